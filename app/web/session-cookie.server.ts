import { createCookie } from "@remix-run/node";
import { config } from "~/config.server";
import { resolveToken, WEB_SESSION_TTL_MS, type Actor } from "~/domain/accounts/index.server";

/**
 * The HTTP side of sessions: the signed `cb_session` cookie and the bearer header. The tokens
 * themselves (created, resolved, revoked) are the domain's, in domain/accounts/sessions.server.ts, which
 * never sees a Request.
 */

let cookie: ReturnType<typeof createCookie> | undefined;
export function sessionCookie() {
  if (!cookie) {
    const c = config();
    cookie = createCookie("cb_session", {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure: c.appUrl.startsWith("https://"),
      secrets: [c.sessionSecret],
      maxAge: WEB_SESSION_TTL_MS / 1000,
    });
  }
  return cookie;
}

const DEVICE_TTL_S = 365 * 24 * 60 * 60;

let deviceCookie: ReturnType<typeof createCookie> | undefined;
/**
 * The "known device" cookie (the owner's SMS reserve, decision 0021): set at every successful
 * login, kept for a year and through logouts, password resets and address changes. Its value is
 * the domain's knownDeviceMark() of the account, an HMAC under the app's secret: it names no one
 * to whoever reads it, cannot be made for another account, and signs nobody in.
 */
export function knownDeviceCookie() {
  if (!deviceCookie) {
    deviceCookie = createCookie("cb_device", {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure: config().appUrl.startsWith("https://"),
      maxAge: DEVICE_TTL_S,
    });
  }
  return deviceCookie;
}

/**
 * A rendered page runs several loaders for one request (the root, the dashboard layout, the
 * screen), each asking who is signed in; they share one lookup. Only reads (GET/HEAD) share it, and
 * only for as long as their Request object lives: a write may end or change the session it came
 * with, and the next request looks the session up again, so a revoked or expired session is never
 * honoured beyond the request that found it live.
 */
const lookups = {
  web: new WeakMap<Request, Promise<Actor | null>>(),
  api: new WeakMap<Request, Promise<Actor | null>>(),
};

const reads = (request: Request) => request.method === "GET" || request.method === "HEAD";

function once(request: Request, kind: "web" | "api", resolve: () => Promise<Actor | null>) {
  if (!reads(request)) return resolve();
  let found = lookups[kind].get(request);
  if (!found) {
    found = resolve();
    lookups[kind].set(request, found);
  }
  return found;
}

export function actorFromCookie(request: Request): Promise<Actor | null> {
  return once(request, "web", async () => {
    const token = await sessionCookie().parse(request.headers.get("Cookie"));
    return typeof token === "string" ? resolveToken(token, "web", { read: reads(request) }) : null;
  });
}

export function actorFromBearer(request: Request): Promise<Actor | null> {
  return once(request, "api", async () => {
    const header = request.headers.get("Authorization") ?? "";
    const match = /^Bearer\s+([A-Za-z0-9_-]{20,200})$/.exec(header.trim());
    return match ? resolveToken(match[1], "api", { read: reads(request) }) : null;
  });
}

/** A bearer token when one is sent, otherwise the browser session cookie. */
export async function actorFromRequest(request: Request): Promise<Actor | null> {
  if (request.headers.has("Authorization")) return actorFromBearer(request);
  return actorFromCookie(request);
}
