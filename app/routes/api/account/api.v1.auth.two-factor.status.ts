import { twoFactorStatus } from "~/domain/accounts/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "api.ok", data: await twoFactorStatus(actor) };
    }),
});
export const loader = route.loader;
export const action = route.action;
