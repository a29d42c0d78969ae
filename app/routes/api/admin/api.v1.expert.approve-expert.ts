import { approveExpert } from "~/domain/accounts/index.server";
import { approveExpertSchema } from "~/schemas/reports";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const { expertId } = await jsonBody(request, approveExpertSchema);
      return {
        message: "experts.approved",
        data: await approveExpert(actor, expertId, clientOf(context).ip),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
