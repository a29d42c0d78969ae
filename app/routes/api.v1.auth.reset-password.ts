import { resetPassword } from "~/domain/accounts.server";
import { resetPasswordApiSchema } from "~/schemas/auth";
import { api, apiRoute, jsonBody } from "~/utils/api.server";

const route = apiRoute({
  POST: (request) =>
    api(request, async () => {
      const body = await jsonBody(request, resetPasswordApiSchema);
      await resetPassword(body.token, body.password);
      return { message: "accounts.resetSuccess" };
    }),
});
export const loader = route.loader;
export const action = route.action;
