import { setNotifyChannel, toApiUser } from "~/domain/accounts/index.server";
import { notifySchema } from "~/schemas/auth";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";

/** An expert or admin chooses e-mail, SMS or both for notifications. */
const route = apiRoute({
  PUT: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, notifySchema);
      const { user, profile } = await setNotifyChannel(actor, body.notify);
      return { message: "profile.notifySaved", data: toApiUser(user, profile) };
    }),
});
export const loader = route.loader;
export const action = route.action;
