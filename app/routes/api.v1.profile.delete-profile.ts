import { deleteAccount } from "~/domain/accounts.server";
import { deleteAccountApiSchema } from "~/schemas/auth";
import { api, apiRoute, readJson, requireApiActor, validate } from "~/utils/api.server";
import { clientOf } from "~/utils/request.server";

const route = apiRoute({
  DELETE: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      // The contract sends no body; a JSON body with `password` makes the deletion check it.
      const hasJson = /^application\/json\b/i.test(request.headers.get("Content-Type") ?? "");
      const { password } = hasJson ? validate(deleteAccountApiSchema, await readJson(request)) : {};
      await deleteAccount(
        actor,
        password === undefined ? undefined : { password, client: clientOf(context) },
      );
      return { message: "profile.deleted" };
    }),
});
export const loader = route.loader;
export const action = route.action;
