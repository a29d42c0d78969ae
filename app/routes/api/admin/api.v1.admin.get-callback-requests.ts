import { listCallbackRequests } from "~/domain/messaging/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor } from "~/web/api.server";

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const page = await listCallbackRequests(await requireApiActor(request), pageQuery(request));
      return { message: "messages.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
