import { sendSignupOtp } from "~/domain/accounts.server";
import { sendOtpSchema } from "~/schemas/auth";
import { api, apiRoute, jsonBody } from "~/utils/api.server";

const route = apiRoute({
  POST: (request) =>
    api(request, async ({ locale }) => {
      const body = await jsonBody(request, sendOtpSchema);
      await sendSignupOtp(body.email, request, locale);
      return { message: "accounts.otpSent" };
    }),
});
export const loader = route.loader;
export const action = route.action;
