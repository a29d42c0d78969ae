import { sendSignupOtp } from "~/domain/accounts/index.server";
import { sendOtpSchema } from "~/schemas/auth";
import { clientOf } from "~/web/request.server";
import { api, apiRoute, jsonBody } from "~/web/api.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async ({ locale }) => {
      const body = await jsonBody(request, sendOtpSchema);
      await sendSignupOtp(body, clientOf(context), locale);
      return { message: "accounts.otpSent" };
    }),
});
export const loader = route.loader;
export const action = route.action;
