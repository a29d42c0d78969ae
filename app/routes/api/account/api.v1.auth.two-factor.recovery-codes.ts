import { regenerateRecoveryCodes } from "~/domain/accounts/index.server";
import { proofSchema } from "~/schemas/two-factor";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** New recovery codes (the old ones stop working), after a code or a recovery code. */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const proof = await jsonBody(request, proofSchema);
      return {
        message: "mfa.newCodesMade",
        data: await regenerateRecoveryCodes(actor, proof, clientOf(context)),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
