import { updateExpertDetails } from "~/domain/experts.server";
import { expertDetailsSchema } from "~/schemas/experts";
import { api, apiRoute, jsonBody, requireApiActor } from "~/utils/api.server";

/** Expert: registration, council, years of practice and specialties (a rejected application re-enters the queue). */
const route = apiRoute({
  PUT: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, expertDetailsSchema);
      return { message: "experts.detailsUpdated", data: await updateExpertDetails(actor, body) };
    }),
});
export const loader = route.loader;
export const action = route.action;
