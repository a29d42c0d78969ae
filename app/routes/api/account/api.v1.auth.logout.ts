import { logout } from "~/domain/accounts/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

const route = apiRoute({
  POST: (request) =>
    api(request, async () => {
      await logout(await requireApiActor(request));
      return { message: "accounts.loggedOut" };
    }),
});
export const loader = route.loader;
export const action = route.action;
