import { updateProfile, toApiUser } from "~/domain/accounts/index.server";
import { profileSchema } from "~/schemas/auth";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";

const route = apiRoute({
  PUT: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, profileSchema);
      const { user, profile } = await updateProfile(actor, body);
      const apiUser = toApiUser(user, profile);
      return { message: "profile.profileUpdated", data: apiUser, extra: { profileDetails: apiUser } };
    }),
});
export const loader = route.loader;
export const action = route.action;
