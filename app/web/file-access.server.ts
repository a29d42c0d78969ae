import { DomainError } from "~/domain/platform/errors";
import type { Actor } from "~/domain/accounts/index.server";
import { actorFromRequest } from "./session-cookie.server";

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
 * Who may fetch a file (a report, an opinion letter): a bearer token, or the browser session on a
 * same-site request. Throws not_authenticated / forbidden ("errors.crossSiteFile").
 */
export async function fileActor(request: Request): Promise<Actor> {
  const actor = await actorFromRequest(request);
  if (!actor) throw new DomainError("not_authenticated", "api.notAuthenticated");
  if (!request.headers.has("Authorization") && !isSameSiteNavigation(request)) {
    throw new DomainError("forbidden", "errors.crossSiteFile");
  }
  return actor;
}
