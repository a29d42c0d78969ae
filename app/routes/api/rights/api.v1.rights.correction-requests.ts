import { requestCorrection } from "~/domain/rights/index.server";
import { correctionSchema } from "~/schemas/rights";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Ask admins to correct one's data. */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, correctionSchema);
      const data = await requestCorrection(actor, body, { ip: clientOf(context).ip });
      return { status: 201, message: "rights.correctionSent", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
