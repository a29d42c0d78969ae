import { requestErasure } from "~/domain/rights/index.server";
import { erasureSchema } from "~/schemas/rights";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Ask for the account to be erased after the notice (the password again); a cancel link is sent. */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, erasureSchema);
      const data = await requestErasure(actor, body, clientOf(context));
      return { status: 201, message: "rights.erasureRequestedApi", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
