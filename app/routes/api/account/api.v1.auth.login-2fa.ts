import { getProfile, loginSecondStep, toApiUser } from "~/domain/accounts/index.server";
import { loginSecondStepSchema } from "~/schemas/two-factor";
import { api, apiRoute, jsonBody } from "~/web/api.server";
import { clientOf } from "~/web/request.server";
import { knownDeviceHeader } from "~/web/auth.server";

/** The second step of an API login: the mfaToken from /auth/login and a code → the login answer. */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const { mfaToken, code, recoveryCode } = await jsonBody(request, loginSecondStepSchema);
      const { user, token, recoveryCodes } = await loginSecondStep(
        mfaToken,
        { code, recoveryCode },
        clientOf(context),
        "api",
      );
      const { profile } = await getProfile(user.id);
      return {
        message: "accounts.loginSuccess",
        extra: { token, user: toApiUser(user, profile), ...(recoveryCodes ? { recoveryCodes } : {}) },
        headers: { "Set-Cookie": await knownDeviceHeader(user.id) },
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
