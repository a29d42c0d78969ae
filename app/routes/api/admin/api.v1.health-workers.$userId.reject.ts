import { rejectHealthWorker } from "~/domain/care/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: decline a waiting health worker's application with a `reason` they are told. */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return {
        message: "centres.rejected",
        data: await rejectHealthWorker(actor, params.userId ?? "", body, clientOf(context).ip),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
