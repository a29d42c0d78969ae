import { attachRepeatReport } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The repeat report attached to a tests step (decision 0114): the patient's side or her centre accepting the offer. */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return {
        message: "reminders.attached",
        data: await attachRepeatReport(actor, params.stepId ?? "", body, { ip: clientOf(context).ip }),
      };
    }),
});
export const action = route.action;
