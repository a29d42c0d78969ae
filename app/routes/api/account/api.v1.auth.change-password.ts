import { changePassword } from "~/domain/accounts/index.server";
import { changePasswordSchema } from "~/schemas/auth";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, changePasswordSchema);
      await changePassword(actor, body, clientOf(context));
      return { message: "accounts.passwordChanged" };
    }),
});
export const loader = route.loader;
export const action = route.action;
