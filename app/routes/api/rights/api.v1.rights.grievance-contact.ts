import { grievanceContact } from "~/domain/rights/index.server";
import { api, apiRoute } from "~/web/api.server";

/** Public: the grievance officer of this deployment (name, e-mail, phone). */
const route = apiRoute({
  GET: (request) => api(request, () => ({ message: "rights.grievanceFetched", data: grievanceContact() })),
});
export const loader = route.loader;
export const action = route.action;
