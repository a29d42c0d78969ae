import { DomainError } from "~/domain/errors";
import { openReportFile } from "~/domain/reports.server";
import { actorFromRequest } from "~/domain/sessions.server";
import { tFor } from "~/i18n/i18n.server";
import { apiRoute, errorResponse } from "~/utils/api.server";
import { fileResponse } from "~/utils/file-response.server";
import { clientOf } from "~/utils/request.server";

/**
 * Whether a cookie-authenticated GET comes from our own pages (or the address bar): the
 * browser's Sec-Fetch-Site when it sends one; without it, a Referer from another host counts
 * as cross-site. Another site must not be able to open a file in the patient's name (which
 * would put a false "opened by" entry in their audit trail).
 */
function isSameSiteNavigation(request: Request): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site) return site === "same-origin" || site === "same-site" || site === "none";
  const referer = request.headers.get("Referer");
  if (!referer) return true;
  try {
    return new URL(referer).host === new URL(request.url).host;
  } catch {
    return false;
  }
}

/**
 * The only way to a report's bytes: the owning patient, approved experts and admins, with a
 * bearer token or the browser session (same-site requests only). Every opening is recorded in
 * the audit trail.
 */
const route = apiRoute({
  GET: async (request, params, context) => {
    try {
      const actor = await actorFromRequest(request);
      if (!actor) throw new DomainError("not_authenticated", "api.notAuthenticated");
      if (!request.headers.has("Authorization") && !isSameSiteNavigation(request)) {
        throw new DomainError("forbidden", "errors.crossSiteFile");
      }
      return fileResponse(await openReportFile(actor, params.reportId ?? "", clientOf(context).ip));
    } catch (err) {
      if (err instanceof DomainError) return errorResponse(err, (await tFor(request)).t);
      throw err;
    }
  },
});
export const loader = route.loader;
export const action = route.action;
