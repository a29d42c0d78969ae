import { setStepReminders } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** One step's reminders off (or on again): the patient's side or her centre (decision 0114). */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return {
        message: "reminders.saved",
        data: await setStepReminders(actor, params.stepId ?? "", body, { ip: clientOf(context).ip }),
      };
    }),
});
export const action = route.action;
