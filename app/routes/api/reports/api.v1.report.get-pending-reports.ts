import { listPendingReports } from "~/domain/consultation/index.server";
import { queueQuerySchema, reportTypeFilter } from "~/schemas/reports";
import { api, apiRoute, pageQuery, pagination, requireApiActor, validate } from "~/web/api.server";
import { z } from "zod";

const filterSchema = z.object({ reportType: reportTypeFilter }).merge(queueQuerySchema);

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const q = new URL(request.url).searchParams;
      const { reportType, sort, match } = validate(filterSchema, {
        reportType: q.get("reportType") ?? undefined,
        sort: q.get("sort") ?? undefined,
        match: q.get("match") ?? undefined,
      });
      const page = await listPendingReports(actor, pageQuery(request), {
        reportType: reportType ?? null,
        sort,
        match,
      });
      return { message: "reports.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
