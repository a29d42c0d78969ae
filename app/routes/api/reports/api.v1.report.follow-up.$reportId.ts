import { askFollowUp } from "~/domain/consultation/index.server";
import { api, apiRoute, JSON_MAX_BYTES, readJson, requireApiActor } from "~/web/api.server";
import { holdRefusedOutbox } from "~/web/held.server";
import { idempotent } from "~/web/idempotency.server";
import { clientOf } from "~/web/request.server";

/** The owning patient asks a follow-up question about the opinion. */
const route = apiRoute({
  POST: (request, params, context) =>
    idempotent(request, { maxBytes: JSON_MAX_BYTES }, async (request) => {
      const held = await holdRefusedOutbox(request, context, {
        kind: "follow-up",
        reportId: params.reportId ?? "",
      });
      return (
        held ??
        api(request, async () => {
          const actor = await requireApiActor(request);
          const body = await readJson(request);
          const followUp = await askFollowUp(actor, params.reportId ?? "", body, {
            ip: clientOf(context).ip,
          });
          return { status: 201, message: "followups.askSuccess", data: followUp };
        })
      );
    }),
});
export const loader = route.loader;
export const action = route.action;
