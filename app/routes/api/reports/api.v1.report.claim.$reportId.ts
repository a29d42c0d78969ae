import { claimReport } from "~/domain/consultation/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** An approved expert starts reviewing a report (exactly one of several at once wins). */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const report = await claimReport(actor, params.reportId ?? "", { ip: clientOf(context).ip });
      return { message: "reports.claimSuccess", data: report };
    }),
});
export const loader = route.loader;
export const action = route.action;
