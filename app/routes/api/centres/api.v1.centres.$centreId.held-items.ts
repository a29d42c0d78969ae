import { listHeldItems } from "~/domain/consultation/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor } from "~/web/api.server";

/**
 * Admin: what suspended or moved health workers recorded offline for this centre, kept until
 * handed to another of its workers (decision 0065) — kind, who recorded it, why, when, where it went.
 */
const route = apiRoute({
  GET: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const page = await listHeldItems(actor, params.centreId ?? "", pageQuery(request));
      return { message: "held.listed", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
