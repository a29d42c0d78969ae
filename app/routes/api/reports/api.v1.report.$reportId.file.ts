import { DomainError } from "~/domain/platform/errors";
import { openReportFile } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { apiRoute, errorResponse } from "~/web/api.server";
import { fileActor } from "~/web/file-access.server";
import { fileResponse } from "~/web/file-response.server";
import { clientOf } from "~/web/request.server";

/**
 * The only way to a report's bytes: those fileAccessRefusal allows (the owning patient, admins,
 * approved experts while it is pending, its reviewer and claimant), with a bearer token or the browser session (same-site requests only). Every opening is recorded in
 * the audit trail.
 */
const route = apiRoute({
  GET: async (request, params, context) => {
    try {
      const actor = await fileActor(request);
      // Our own Add Review page shows the report in a frame beside the form.
      return fileResponse(
        await openReportFile(actor, params.reportId ?? "", clientOf(context).ip),
        undefined,
        {
          ownFrames: true,
        },
      );
    } catch (err) {
      if (err instanceof DomainError) return errorResponse(err, (await tFor(request)).t);
      throw err;
    }
  },
});
export const loader = route.loader;
export const action = route.action;
