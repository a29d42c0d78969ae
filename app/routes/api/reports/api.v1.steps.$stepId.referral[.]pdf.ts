import { referralLetter } from "~/domain/consultation/index.server";
import { apiRoute } from "~/web/api.server";
import { letterPdfResponse } from "~/web/letter-pdf-response.server";

/**
 * A facility step's referral letter as a PDF (decision 0114), in the patient's language: for the
 * patient's side, her centre's health workers and the expert who asked (bearer token, or the
 * session on a same-site request); anyone else and an unknown step get the same not-found. Each
 * fetch is recorded in the audit trail.
 */
const route = apiRoute({
  GET: (request, params, context) =>
    letterPdfResponse(request, context, (actor, ip) => referralLetter(actor, params.stepId, ip)),
});
export const loader = route.loader;
export const action = route.action;
