import { getProfile, expertUser, hasTwoFactor, toApiUser } from "~/domain/accounts/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const { user, profile } = await getProfile((await requireApiActor(request)).id);
      // Experts read their own verification details and the admin's decision (the rejection reason).
      const apiUser = user.accountType === "Expert" ? await expertUser(user.id) : toApiUser(user, profile);
      return {
        message: "api.ok",
        data: { ...apiUser, twoFactor: await hasTwoFactor(user.id) },
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
