import { listReviewedByExpert } from "~/domain/consultation/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor } from "~/web/api.server";

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const page = await listReviewedByExpert(await requireApiActor(request), pageQuery(request));
      return { message: "reports.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
