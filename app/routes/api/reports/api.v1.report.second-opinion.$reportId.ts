import { requestSecondOpinion } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The expert of the first opinion, or an admin, asks another specialty for a second opinion. */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const report = await requestSecondOpinion(actor, params.reportId ?? "", body, {
        ip: clientOf(context).ip,
      });
      return { status: 201, message: "panel.askSuccess", data: report };
    }),
});
export const loader = route.loader;
export const action = route.action;
