import { getProfile, login, toApiUser } from "~/domain/accounts/index.server";
import { loginSchema } from "~/schemas/auth";
import { clientOf } from "~/web/request.server";
import { knownDeviceHeader } from "~/web/auth.server";
import { api, apiRoute, jsonBody } from "~/web/api.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const body = await jsonBody(request, loginSchema);
      const result = await login(body, clientOf(context), "api");
      if (result.mfa) {
        // Two-step login (decision 0017): still 200, but no token yet — POST /auth/login-2fa with the
        // mfaToken and a code (an admin who must set it up first calls /auth/login-2fa-setup).
        const enrol = result.mfa.mode === "enrol";
        return {
          message: enrol ? "mfa.apiSetupRequired" : "mfa.apiCodeRequired",
          extra: {
            mfaRequired: true,
            ...(enrol ? { mfaSetupRequired: true } : {}),
            mfaToken: result.mfa.token,
            mfaExpiresAt: result.mfa.expiresAt.toISOString(),
          },
        };
      }
      const { profile } = await getProfile(result.user.id);
      return {
        message: "accounts.loginSuccess",
        extra: { token: result.token, user: toApiUser(result.user, profile) },
        // The "known device" mark (decision 0021): a client that keeps it draws on the owner's SMS reserve.
        headers: { "Set-Cookie": await knownDeviceHeader(result.user.id) },
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
