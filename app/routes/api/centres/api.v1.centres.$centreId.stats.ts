import { centreStats } from "~/domain/consultation/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

/** Admin: a centre's patients, queue, turnaround (the Turnaround screen's definitions) and health workers. */
const route = apiRoute({
  GET: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "api.ok", data: await centreStats(actor, params.centreId ?? "") };
    }),
});
export const loader = route.loader;
export const action = route.action;
