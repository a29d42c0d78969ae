import { DomainError } from "~/domain/platform/errors";
import { reportPageImage } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { apiRoute, errorResponse } from "~/web/api.server";
import { fileActor } from "~/web/file-access.server";
import { clientOf } from "~/web/request.server";

/**
 * One page of a PDF report as a JPEG (decision 0084): the expert's preview of where a lab value
 * was read. The same rule and trail as the file itself (a bearer token or the browser session).
 */
const route = apiRoute({
  GET: async (request, params, context) => {
    try {
      const actor = await fileActor(request);
      const jpeg = await reportPageImage(actor, params.reportId ?? "", params.pageId, clientOf(context).ip);
      return new Response(new Uint8Array(jpeg), {
        headers: {
          "Content-Type": "image/jpeg",
          "Content-Length": String(jpeg.length),
          "Cache-Control": "private, no-store",
          "X-Content-Type-Options": "nosniff",
          "Cross-Origin-Resource-Policy": "same-origin",
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
