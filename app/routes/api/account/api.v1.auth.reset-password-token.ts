import { requestPasswordReset } from "~/domain/accounts/index.server";
import { forgotSchema } from "~/schemas/auth";
import { clientOf } from "~/web/request.server";
import { knownDeviceOf } from "~/web/auth.server";
import { api, apiRoute, jsonBody } from "~/web/api.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async ({ locale }) => {
      const body = await jsonBody(request, forgotSchema);
      // An e-mail gets the reset link; a mobile number (phone accounts) a 6-digit code by SMS.
      await requestPasswordReset(body, clientOf(context), locale, await knownDeviceOf(request));
      return { message: "accounts.resetSent" };
    }),
});
export const loader = route.loader;
export const action = route.action;
