import { listHealthWorkers } from "~/domain/care/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor } from "~/web/api.server";

/** Admin: health workers by `status` (pending by default, approved, suspended), optionally of one `centreId`. */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const q = new URL(request.url).searchParams;
      const page = await listHealthWorkers(
        actor,
        { status: q.get("status") ?? undefined, centreId: q.get("centreId") ?? undefined },
        pageQuery(request),
      );
      return { message: "api.ok", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
