import { requestPasswordReset } from "~/domain/accounts.server";
import { forgotSchema } from "~/schemas/auth";
import { api, apiRoute, jsonBody } from "~/utils/api.server";

const route = apiRoute({
  POST: (request) =>
    api(request, async () => {
      const body = await jsonBody(request, forgotSchema);
      await requestPasswordReset(body.email, request);
      return { message: "accounts.resetSent" };
    }),
});
export const loader = route.loader;
export const action = route.action;
