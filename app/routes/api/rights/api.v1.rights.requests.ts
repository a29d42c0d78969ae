import { listOwnRequests } from "~/domain/rights/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

/** The signed-in person's correction and erasure requests with the admins' answers, newest first. */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "rights.requestsFetched", data: await listOwnRequests(actor) };
    }),
});
export const loader = route.loader;
export const action = route.action;
