import { deleteReport } from "~/domain/reports.server";
import { deleteReportSchema } from "~/schemas/reports";
import { api, apiRoute, jsonBody, requireApiActor } from "~/utils/api.server";
import { clientIp } from "~/utils/request.server";

const route = apiRoute({
  DELETE: (request) =>
    api(request, async () => {
      const actor = requireApiActor(request);
      const { reportId } = await jsonBody(request, deleteReportSchema);
      await deleteReport(actor, reportId, { ip: clientIp(request) });
      return { message: "reports.deleteSuccess" };
    }),
});
export const loader = route.loader;
export const action = route.action;
