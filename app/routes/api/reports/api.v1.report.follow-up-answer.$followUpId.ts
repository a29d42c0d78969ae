import { answerFollowUp } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The expert holding the report's follow-ups answers one question. */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const followUp = await answerFollowUp(actor, params.followUpId ?? "", body, {
        ip: clientOf(context).ip,
      });
      return { message: "followups.answerSuccess", data: followUp };
    }),
});
export const loader = route.loader;
export const action = route.action;
