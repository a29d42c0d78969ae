import { listPendingExperts } from "~/domain/accounts/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor } from "~/web/api.server";

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const page = await listPendingExperts(await requireApiActor(request), pageQuery(request));
      return { message: "experts.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
