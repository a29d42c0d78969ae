import { centreOverdue } from "~/domain/consultation/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

/** Admin: a centre's overdue reports, urgent first, then oldest. */
const route = apiRoute({
  GET: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "api.ok", data: await centreOverdue(actor, params.centreId ?? "") };
    }),
});
export const loader = route.loader;
export const action = route.action;
