import { resetTwoFactor, toApiUser } from "~/domain/accounts/index.server";
import { resetTwoFactorSchema } from "~/schemas/two-factor";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: removes another account's second factor (audited; the owner is told). */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const { userId, ...proof } = await jsonBody(request, resetTwoFactorSchema);
      const user = await resetTwoFactor(actor, userId, clientOf(context), proof);
      return { message: "mfa.resetDone", data: toApiUser(user) };
    }),
});
export const loader = route.loader;
export const action = route.action;
