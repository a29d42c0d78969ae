import { challengeSetup } from "~/domain/accounts/index.server";
import { mfaTokenSchema } from "~/schemas/two-factor";
import { api, apiRoute, jsonBody } from "~/web/api.server";

/** An admin who must set up two-step login before a token: the secret for this login. */
const route = apiRoute({
  POST: (request) =>
    api(request, async () => {
      const { mfaToken } = await jsonBody(request, mfaTokenSchema);
      return { message: "mfa.scanThenConfirm", data: await challengeSetup(mfaToken, "api") };
    }),
});
export const loader = route.loader;
export const action = route.action;
