import { listPhoneCalls } from "~/domain/calls/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor } from "~/web/api.server";

/** Admin: missed calls and placed calls, newest first — masked numbers, what for, what happened (decision 0080). */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const page = await listPhoneCalls(await requireApiActor(request), pageQuery(request));
      return { message: "messages.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
