import { revokeManager } from "~/domain/care/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The signed-in patient ends a family manager's access to their profile, at once. */
const route = apiRoute({
  DELETE: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const data = await revokeManager(actor, params.managerId ?? "", { ip: clientOf(context).ip });
      return { message: "control.accessEnded", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
