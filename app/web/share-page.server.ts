import { createHash } from "node:crypto";
import { config } from "~/config.server";
import { isDomainError } from "~/domain/platform/errors";
import { isShareRefusal, type ShareGrant } from "~/domain/sharing/index.server";
import { tFor } from "~/i18n/i18n.server";
import { securityHeaders } from "./security.server";

/**
 * The HTTP side of the public sharing-link pages (/s/<token>, its file and letter): the headers
 * every answer carries and the cookie that holds the doctor's open of one link.
 */

/** Not indexed, never stored, and the address (which is the secret) never sent on as a referrer. */
export const SHARE_PAGE_HEADERS = {
  "X-Robots-Tag": "noindex, nofollow",
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
} as const;

/**
 * The landing page holds the Open form. Under "no-referrer" a browser posts a form with
 * `Origin: null`, which our cross-site check (rightly) refuses; "same-origin" still sends no
 * referrer to any other site, so the token cannot leak either.
 */
export const SHARE_FORM_HEADERS = { ...SHARE_PAGE_HEADERS, "Referrer-Policy": "same-origin" } as const;

/**
 * The cookie holding this browser's open of one link: named after a hash of the token (so
 * several links opened in one browser keep their own), under /s so that the page's data requests
 * (/s/<token>.data), the file and the letter all carry it.
 */
function cookieName(token: string) {
  return `cb_share_${createHash("sha256").update(token).digest("hex").slice(0, 16)}`;
}

/** The grant this browser holds for the link of `token`. */
export function grantOf(request: Request, token: string): string | null {
  const name = cookieName(token);
  for (const part of (request.headers.get("Cookie") ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

/** Set-Cookie for an open: HttpOnly, SameSite=Lax, under /s only. */
export function grantCookie(token: string, grant: ShareGrant): string {
  const secure = config().appUrl.startsWith("https://") ? "; Secure" : "";
  return `${cookieName(token)}=${grant.value}; Path=/s; Max-Age=${grant.maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** The app's security headers plus the share pages' own, on a response built by hand (files, refusals). */
export function withShareHeaders(response: Response, request: Request): Response {
  for (const [k, v] of Object.entries(SHARE_PAGE_HEADERS)) response.headers.set(k, v);
  securityHeaders(response.headers, request);
  return response;
}

/**
 * A refused file or letter request: a browser that has not opened the link (or whose open ran
 * out) goes to the link's page, which says what to do; anything else is a short text answer with
 * the refusal's status (404 unknown or not shared, 410 gone, 429 rate limited).
 */
export async function sharedResourceRefusal(
  err: unknown,
  request: Request,
  token: string,
): Promise<Response> {
  if (isShareRefusal(err) && err.reason === "not_opened") {
    return withShareHeaders(
      new Response(null, { status: 303, headers: { Location: `/s/${encodeURIComponent(token)}` } }),
      request,
    );
  }
  if (!isDomainError(err)) throw err;
  const { t } = await tFor(request);
  const headers: Record<string, string> = {
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
  };
  let status = 500;
  if (isShareRefusal(err)) status = err.status;
  else if (err.code === "rate_limited") {
    status = 429;
    headers["Retry-After"] = String(err.extra.retryAfterSeconds ?? 60);
  } else throw err;
  const seconds = err.extra.retryAfterSeconds;
  return withShareHeaders(
    new Response(t(err.message, { ...(seconds ? { seconds } : {}), ...(err.extra.values ?? {}) }), {
      status,
      headers,
    }),
    request,
  );
}
