import { getTurnaround } from "~/domain/consultation/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

/** Admin: queue counts, turnaround over the last 30 days, per expert, and the overdue list. */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      return { message: "api.ok", data: await getTurnaround(await requireApiActor(request)) };
    }),
});
export const loader = route.loader;
export const action = route.action;
