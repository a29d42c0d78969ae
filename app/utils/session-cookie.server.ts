import { createCookie } from "@remix-run/node";
import { config } from "~/config.server";
import { resolveToken, WEB_SESSION_TTL_MS, type Actor } from "~/domain/sessions.server";

/**
 * The HTTP side of sessions: the signed `cb_session` cookie and the bearer header. The tokens
 * themselves (created, resolved, revoked) are the domain's, in domain/sessions.server.ts, which
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

export async function actorFromCookie(request: Request): Promise<Actor | null> {
  const token = await sessionCookie().parse(request.headers.get("Cookie"));
  return typeof token === "string" ? resolveToken(token, "web") : null;
}

export async function actorFromBearer(request: Request): Promise<Actor | null> {
  const header = request.headers.get("Authorization") ?? "";
  const match = /^Bearer\s+([A-Za-z0-9_-]{20,200})$/.exec(header.trim());
  return match ? resolveToken(match[1], "api") : null;
}

/** A bearer token when one is sent, otherwise the browser session cookie. */
export async function actorFromRequest(request: Request): Promise<Actor | null> {
  if (request.headers.has("Authorization")) return actorFromBearer(request);
  return actorFromCookie(request);
}
