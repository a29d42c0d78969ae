import { DomainError } from "~/domain/errors";
import { openReportFile } from "~/domain/reports.server";
import { actorFromRequest } from "~/domain/sessions.server";
import { tFor } from "~/i18n/i18n.server";
import { apiRoute, errorResponse } from "~/utils/api.server";
import { fileResponse } from "~/utils/file-response.server";
import { clientOf } from "~/utils/request.server";

/**
 * The only way to a report's bytes: the owning patient, approved experts and admins, with a
 * bearer token or the browser session. Every opening is recorded in the audit trail.
 */
const route = apiRoute({
  GET: async (request, params, context) => {
    try {
      const actor = await actorFromRequest(request);
      if (!actor) throw new DomainError("not_authenticated", "api.notAuthenticated");
      return fileResponse(await openReportFile(actor, params.reportId ?? "", clientOf(context).ip));
    } catch (err) {
      if (err instanceof DomainError) return errorResponse(err, (await tFor(request)).t);
      throw err;
    }
  },
});
export const loader = route.loader;
export const action = route.action;
