import { getProfile, login } from "~/domain/accounts.server";
import { toApiUser } from "~/domain/users.server";
import { loginSchema } from "~/schemas/auth";
import { clientOf } from "~/utils/request.server";
import { api, apiRoute, jsonBody } from "~/utils/api.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const body = await jsonBody(request, loginSchema);
      const { user, token } = await login(body, clientOf(context), "api");
      const { profile } = await getProfile(user.id);
      return { message: "accounts.loginSuccess", extra: { token, user: toApiUser(user, profile) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
