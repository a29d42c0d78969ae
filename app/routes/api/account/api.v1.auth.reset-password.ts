import { resetPassword, resetPasswordWithCode } from "~/domain/accounts/index.server";
import { clientOf } from "~/web/request.server";
import { resetPasswordApiSchema } from "~/schemas/auth";
import { api, apiRoute, jsonBody } from "~/web/api.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const body = await jsonBody(request, resetPasswordApiSchema);
      // The reset link's token, or (phone accounts) the number and its SMS code.
      if (body.token) await resetPassword(body.token, body.password);
      else await resetPasswordWithCode(body.phone!, body.otp!, body.password, clientOf(context));
      return { message: "accounts.resetSuccess" };
    }),
});
export const loader = route.loader;
export const action = route.action;
