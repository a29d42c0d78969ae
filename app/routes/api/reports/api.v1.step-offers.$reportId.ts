import { stepOffersFor } from "~/domain/consultation/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

/** The tests steps this (new) report may close, for the patient's side or her centre to accept (decision 0114). */
const route = apiRoute({
  GET: (request, params) =>
    api(request, async () => ({
      message: "api.ok",
      data: await stepOffersFor(await requireApiActor(request), params.reportId ?? ""),
    })),
});
export const loader = route.loader;
