import type { LoaderFunctionArgs } from "@remix-run/node";
import { referralLetter } from "~/domain/consultation/index.server";
import { requireActor } from "~/web/auth.server";
import { letterPdfResponse } from "~/web/letter-pdf-response.server";

/**
 * The referral letter's download from the screens (decision 0114): the signed-in session (sent to
 * the login page without one), then the same answer as GET /api/v1/steps/{stepId}/referral.pdf.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await requireActor(request);
  return letterPdfResponse(request, context, (actor, ip) => referralLetter(actor, params.stepId, ip));
}
