import { deleteReport } from "~/domain/consultation/index.server";
import { deleteReportSchema } from "~/schemas/reports";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

const route = apiRoute({
  DELETE: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const { reportId } = await jsonBody(request, deleteReportSchema);
      await deleteReport(actor, reportId, { ip: clientOf(context).ip });
      return { message: "reports.deleteSuccess" };
    }),
});
export const loader = route.loader;
export const action = route.action;
