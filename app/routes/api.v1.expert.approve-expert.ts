import { approveExpert } from "~/domain/experts.server";
import { approveExpertSchema } from "~/schemas/reports";
import { api, apiRoute, jsonBody, requireApiActor } from "~/utils/api.server";
import { clientIp } from "~/utils/request.server";

const route = apiRoute({
  POST: (request) =>
    api(request, async () => {
      const actor = requireApiActor(request);
      const { expertId } = await jsonBody(request, approveExpertSchema);
      return { message: "experts.approved", data: approveExpert(actor, expertId, clientIp(request)) };
    }),
});
export const loader = route.loader;
export const action = route.action;
