import { revokeCentreAccess } from "~/domain/care/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The signed-in patient ends the registering centre's access to their profile, at once. */
const route = apiRoute({
  DELETE: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const data = await revokeCentreAccess(actor, { ip: clientOf(context).ip });
      return { message: "control.accessEnded", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
