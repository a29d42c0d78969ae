import { clearTakeOver } from "~/domain/care/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: has reviewed a take-over and lets it stand (the account may then delete reports). */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const data = await clearTakeOver(actor, params.takeOverId ?? "", clientOf(context).ip);
      return { message: "family.takeOverClearedDone", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
