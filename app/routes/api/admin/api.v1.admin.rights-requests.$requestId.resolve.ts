import { resolveRightsRequest } from "~/domain/rights/index.server";
import { resolveSchema } from "~/schemas/rights";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: answer an open request (a correction done or rejected; an erasure rejected). */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, resolveSchema);
      const data = await resolveRightsRequest(actor, params.requestId ?? "", body, {
        ip: clientOf(context).ip,
      });
      return { message: "rights.resolved", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
