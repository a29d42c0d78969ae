import { reminderPreference, setReminderPreference } from "~/domain/care/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/**
 * How and at what hour she is reminded of her next steps (decision 0114): the patient herself, or
 * (`?patientId=`) her family manager or her centre's health worker acting for her.
 */
const patientIdOf = (request: Request) => new URL(request.url).searchParams.get("patientId");

const route = apiRoute({
  GET: (request) =>
    api(request, async () => ({
      message: "api.ok",
      data: await reminderPreference(await requireApiActor(request), patientIdOf(request)),
    })),
  PUT: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return {
        message: "reminders.saved",
        data: await setReminderPreference(actor, patientIdOf(request), body, { ip: clientOf(context).ip }),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
