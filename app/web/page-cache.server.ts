import type { EntryContext } from "@remix-run/node";

/**
 * Which rendered pages our server may keep whole and serve again (server/page-cache.ts), and
 * under which key. Only pages that draw nothing of the visitor but their language: the
 * signed-out home, login and signup pages, asked for without a query string. What varies them is
 * all in the key — the origin (HSTS and links), the `lng` cookie and Accept-Language (the
 * language, taken as sent, so the key never depends on how the language is picked). Any other
 * cookie (a session, a toast, a pending signup, a second step) means the page is drawn for this
 * request alone; the render then checks again (`publicRender`).
 */
const PUBLIC_PAGES = new Set(["/", "/login", "/signup"]);
/** Cookies these pages never read: the language is in the key; the known-device mark is read by the login post only. */
const IGNORED_COOKIES = new Set(["cb_device"]);
const KEYED_COOKIES = new Set(["lng"]);

export function pageCacheKey(request: {
  pathname: string;
  search: string;
  origin: string;
  cookie: string | undefined;
  acceptLanguage: string | undefined;
}): string | null {
  if (!PUBLIC_PAGES.has(request.pathname) || request.search !== "") return null;
  let lng = "";
  for (const pair of (request.cookie ?? "").split(";")) {
    if (!pair.trim()) continue;
    const eq = pair.indexOf("=");
    const name = (eq === -1 ? pair : pair.slice(0, eq)).trim();
    if (IGNORED_COOKIES.has(name)) continue;
    if (!KEYED_COOKIES.has(name) || lng) return null;
    lng = pair.slice(eq + 1).trim();
  }
  return [request.pathname, request.origin, lng, request.acceptLanguage ?? ""].join("\n");
}

/**
 * Whether a finished render is the same for everyone asking the same way: a GET answered 200,
 * no user (the root loader found none), no toast, nothing in an action's answer, no cookie set.
 */
export function publicRender(
  request: Request,
  status: number,
  responseHeaders: Headers,
  context: EntryContext,
): boolean {
  if (request.method !== "GET" || status !== 200) return false;
  if (responseHeaders.has("Set-Cookie")) return false;
  const handler = context.staticHandlerContext;
  if (handler.actionData || handler.errors) return false;
  const root = handler.loaderData?.root as { user?: unknown; toast?: unknown } | undefined;
  return !!root && root.user == null && root.toast == null;
}
