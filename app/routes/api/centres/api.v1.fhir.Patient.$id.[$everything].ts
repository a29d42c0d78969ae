import { exportBundle } from "~/domain/interop/index.server";
import { apiRoute, requireApiActor } from "~/web/api.server";
import { exportAnswer, fhirJsonResponse } from "~/web/fhir-response.server";
import { clientOf } from "~/web/request.server";

/**
 * FHIR R4 `Patient/{id}/$everything`: the patient's data as a collection Bundle
 * (application/fhir+json). The patient themself or an admin; audited and rate-limited.
 */
const route = apiRoute({
  GET: (request, params, context) =>
    exportAnswer(request, async () => {
      const actor = await requireApiActor(request);
      return fhirJsonResponse(await exportBundle(actor, params.id ?? "", clientOf(context)));
    }),
});
export const loader = route.loader;
export const action = route.action;
