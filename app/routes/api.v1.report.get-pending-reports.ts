import { listPendingReports } from "~/domain/reports.server";
import { reportTypeFilter } from "~/schemas/reports";
import { api, apiRoute, pageQuery, pagination, requireApiActor, validate } from "~/utils/api.server";
import { z } from "zod";

const filterSchema = z.object({ reportType: reportTypeFilter });

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const { reportType } = validate(filterSchema, {
        reportType: new URL(request.url).searchParams.get("reportType") ?? undefined,
      });
      const page = await listPendingReports(actor, pageQuery(request), reportType ?? null);
      return { message: "reports.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
