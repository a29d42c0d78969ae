import { signupWithOtp, toApiUser } from "~/domain/accounts/index.server";
import { signupApiSchema } from "~/schemas/auth";
import { clientOf } from "~/web/request.server";
import { api, apiRoute, jsonBody } from "~/web/api.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async ({ locale }) => {
      const body = await jsonBody(request, signupApiSchema);
      const user = await signupWithOtp(body, clientOf(context), locale);
      return { status: 201, message: "accounts.signupSuccess", data: toApiUser(user) };
    }),
});
export const loader = route.loader;
export const action = route.action;
