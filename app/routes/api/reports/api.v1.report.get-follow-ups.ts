import { listFollowUpThreads } from "~/domain/consultation/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor } from "~/web/api.server";

/** Expert: reviewed reports whose follow-up questions they hold, with the threads. */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const page = await listFollowUpThreads(await requireApiActor(request), pageQuery(request));
      return { message: "reports.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
