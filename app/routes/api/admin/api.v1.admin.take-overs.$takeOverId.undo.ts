import { undoTakeOver } from "~/domain/care/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: undoes a take-over within 7 days (the previous access back, the new login taken away). */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const data = await undoTakeOver(actor, params.takeOverId ?? "", clientOf(context).ip);
      return { message: "family.takeOverUndoneDone", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
