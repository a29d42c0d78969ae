import { beginSetup } from "~/domain/two-factor.server";
import { api, apiRoute, requireApiActor } from "~/utils/api.server";

/** Starts setting up two-step login: a new secret (unconfirmed until /auth/two-factor/confirm). */
const route = apiRoute({
  POST: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "mfa.scanThenConfirm", data: await beginSetup(actor) };
    }),
});
export const loader = route.loader;
export const action = route.action;
