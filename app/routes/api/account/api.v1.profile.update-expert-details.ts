import { updateExpertDetails } from "~/domain/accounts/index.server";
import { expertDetailsSchema } from "~/schemas/experts";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Expert: registration, council, years of practice and specialties (a rejected application re-enters the queue; a changed registration or council sends an approved expert back to admin review). */
const route = apiRoute({
  PUT: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, expertDetailsSchema);
      const { user, backToReview } = await updateExpertDetails(actor, body, clientOf(context).ip);
      return {
        message: backToReview ? "experts.detailsUpdatedReview" : "experts.detailsUpdated",
        data: user,
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
