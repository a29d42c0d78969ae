import { rejectExpert } from "~/domain/accounts/index.server";
import { rejectExpertSchema } from "~/schemas/experts";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: decline an expert's application with a reason (the expert is told by mail). */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, rejectExpertSchema);
      return { message: "experts.rejected", data: await rejectExpert(actor, body, clientOf(context).ip) };
    }),
});
export const loader = route.loader;
export const action = route.action;
