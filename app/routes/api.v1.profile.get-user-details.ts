import { getProfile } from "~/domain/accounts.server";
import { hasTwoFactor } from "~/domain/two-factor.server";
import { toApiUser } from "~/domain/users.server";
import { api, apiRoute, requireApiActor } from "~/utils/api.server";

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const { user, profile } = await getProfile((await requireApiActor(request)).id);
      return {
        message: "api.ok",
        data: { ...toApiUser(user, profile), twoFactor: await hasTwoFactor(user.id) },
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
