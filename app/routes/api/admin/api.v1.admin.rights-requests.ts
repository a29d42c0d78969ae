import { listRightsRequests } from "~/domain/rights/index.server";
import { rightsQueueQuerySchema } from "~/schemas/rights";
import { api, apiRoute, pageQuery, pagination, requireApiActor, validate } from "~/web/api.server";

/** Admin: the requests queue, newest first; `status` (open by default, or all) and `type` filter it. */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const q = new URL(request.url).searchParams;
      const filters = validate(rightsQueueQuerySchema, {
        status: q.get("status") ?? undefined,
        type: q.get("type") ?? undefined,
      });
      const page = await listRightsRequests(actor, { ...pageQuery(request), ...filters });
      return { message: "rights.queueFetched", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
