import { releaseReport } from "~/domain/consultation/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The claimant (or an admin) gives the report back to the queue. */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const report = await releaseReport(actor, params.reportId ?? "", { ip: clientOf(context).ip });
      return { message: "reports.releaseSuccess", data: report };
    }),
});
export const loader = route.loader;
export const action = route.action;
