import { turnOffTwoFactor } from "~/domain/accounts/index.server";
import { turnOffTwoFactorSchema } from "~/schemas/two-factor";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Turns two-step login off: the password and a code (or a recovery code). Not for admins while required. */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, turnOffTwoFactorSchema);
      await turnOffTwoFactor(actor, body, clientOf(context));
      return { message: "mfa.turnedOff" };
    }),
});
export const loader = route.loader;
export const action = route.action;
