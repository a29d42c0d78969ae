import { startTakeOver } from "~/domain/care/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The family manager (or the centre's health worker) sends the take-over code to the person's own number. */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const sent = await startTakeOver(actor, params.patientId ?? "", body, clientOf(context));
      return { message: "family.takeOverStarted", data: sent };
    }),
});
export const loader = route.loader;
export const action = route.action;
