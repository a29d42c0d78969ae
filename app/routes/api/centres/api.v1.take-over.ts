import { toApiUser } from "~/domain/accounts/index.server";
import { completeTakeOver } from "~/domain/care/index.server";
import { api, apiRoute, readJson } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/**
 * The person completes a take-over (no sign-in: the code sent to their number proves it): their
 * own patient account under the profile's id. They log in with the number and password after.
 */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const body = await readJson(request);
      const user = await completeTakeOver(body, clientOf(context));
      return { status: 201, message: "family.takeOverDone", data: toApiUser(user) };
    }),
});
export const loader = route.loader;
export const action = route.action;
