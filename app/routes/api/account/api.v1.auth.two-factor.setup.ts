import { beginSetup } from "~/domain/accounts/index.server";
import { startTwoFactorSchema } from "~/schemas/two-factor";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Starts setting up two-step login after the current password: a new secret (unconfirmed until /auth/two-factor/confirm). */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const { password } = await jsonBody(request, startTwoFactorSchema);
      return {
        message: "mfa.scanThenConfirm",
        data: await beginSetup(actor, { password }, clientOf(context)),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
