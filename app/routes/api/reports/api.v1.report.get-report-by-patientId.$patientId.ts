import { listPatientReports } from "~/domain/consultation/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor } from "~/web/api.server";

const route = apiRoute({
  GET: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const page = await listPatientReports(actor, params.patientId ?? "", pageQuery(request));
      return { message: "reports.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
