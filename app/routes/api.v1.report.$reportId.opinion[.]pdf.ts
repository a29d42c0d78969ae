import { DomainError } from "~/domain/platform/errors";
import { opinionLetter } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { apiRoute, errorResponse } from "~/web/api.server";
import { fileActor } from "~/web/file-access.server";
import { contentDisposition, fileFrameHeaders } from "~/web/file-response.server";
import { clientOf } from "~/web/request.server";

/**
 * The signed opinion letter as a PDF, in the patient's language: for the owning patient, the
 * reviewing expert and admins (bearer token, or the session on a same-site request). Each fetch is
 * recorded in the audit trail.
 */
const route = apiRoute({
  GET: async (request, params, context) => {
    try {
      const actor = await fileActor(request);
      const { pdf, fileName } = await opinionLetter(actor, params.reportId ?? "", clientOf(context).ip);
      return new Response(new Uint8Array(pdf), {
        status: 200,
        headers: {
          "Content-Type": "application/pdf",
          "Content-Length": String(pdf.length),
          "Content-Disposition": contentDisposition(fileName, "attachment"),
          "X-Content-Type-Options": "nosniff",
          "Cache-Control": "private, no-store",
          ...fileFrameHeaders("application/pdf"),
        },
      });
    } catch (err) {
      if (err instanceof DomainError) return errorResponse(err, (await tFor(request)).t);
      throw err;
    }
  },
});
export const loader = route.loader;
export const action = route.action;
