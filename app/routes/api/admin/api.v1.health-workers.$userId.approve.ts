import { approveHealthWorker } from "~/domain/care/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: approve a waiting health worker (they are told by mail or SMS). */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return {
        message: "centres.approved",
        data: await approveHealthWorker(actor, params.userId ?? "", clientOf(context).ip),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
