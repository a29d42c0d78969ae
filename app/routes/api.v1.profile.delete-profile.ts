import { deleteAccount } from "~/domain/accounts.server";
import { api, apiRoute, requireApiActor } from "~/utils/api.server";

const route = apiRoute({
  DELETE: (request) =>
    api(request, async () => {
      await deleteAccount(requireApiActor(request));
      return { message: "profile.deleted" };
    }),
});
export const loader = route.loader;
export const action = route.action;
