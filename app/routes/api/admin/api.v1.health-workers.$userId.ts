import { updateHealthWorker } from "~/domain/care/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: move a health worker to another centre (`centreId`) and/or suspend or reinstate them (`suspended`). */
const route = apiRoute({
  PATCH: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return {
        message: "centres.workerSaved",
        data: await updateHealthWorker(actor, params.userId ?? "", body, clientOf(context).ip),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
