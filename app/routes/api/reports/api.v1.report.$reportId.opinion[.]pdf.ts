import { opinionLetter } from "~/domain/consultation/index.server";
import { apiRoute } from "~/web/api.server";
import { letterPdfResponse } from "~/web/letter-pdf-response.server";

/**
 * The signed opinion letter as a PDF, in the patient's language: for the owning patient, the
 * reviewing expert and admins (bearer token, or the session on a same-site request). Each fetch is
 * recorded in the audit trail.
 */
const route = apiRoute({
  GET: (request, params, context) =>
    letterPdfResponse(request, context, (actor, ip) => opinionLetter(actor, params.reportId ?? "", ip)),
});
export const loader = route.loader;
export const action = route.action;
