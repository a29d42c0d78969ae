import { requestPasswordReset } from "~/domain/accounts.server";
import { forgotSchema } from "~/schemas/auth";
import { clientOf } from "~/utils/request.server";
import { api, apiRoute, jsonBody } from "~/utils/api.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const body = await jsonBody(request, forgotSchema);
      await requestPasswordReset(body.email, clientOf(context));
      return { message: "accounts.resetSent" };
    }),
});
export const loader = route.loader;
export const action = route.action;
