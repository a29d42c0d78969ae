import { confirmSetup } from "~/domain/accounts/index.server";
import { confirmTwoFactorSchema } from "~/schemas/two-factor";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Turns two-step login on with the password and the first code from the app; the recovery codes come back once. */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, confirmTwoFactorSchema);
      // The password again, then the first code; the account's other sessions and tokens end.
      return { message: "mfa.turnedOn", data: await confirmSetup(actor, body, clientOf(context)) };
    }),
});
export const loader = route.loader;
export const action = route.action;
