import { requestLoginCode } from "~/domain/accounts/index.server";
import { loginCodeSchema } from "~/schemas/auth";
import { api, apiRoute, jsonBody } from "~/web/api.server";
import { clientOf } from "~/web/request.server";
import { knownDeviceOf } from "~/web/auth.server";

/**
 * A 6-digit login code by SMS to an account's mobile number (the same answer whether or
 * not an account has it); then POST /auth/login with { phone, otp }.
 */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async ({ locale }) => {
      const body = await jsonBody(request, loginCodeSchema);
      await requestLoginCode(body.phone, clientOf(context), locale, await knownDeviceOf(request));
      return { message: "accounts.loginCodeSent" };
    }),
});
export const loader = route.loader;
export const action = route.action;
