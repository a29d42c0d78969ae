import { createCookie } from "@remix-run/node";
import { config } from "~/config.server";

let cookie: ReturnType<typeof createCookie> | undefined;

/** Holds only the opaque id of the server-side pending signup (never its data). */
export function pendingSignupCookie() {
  cookie ??= createCookie("pending_signup", {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: config().appUrl.startsWith("https://"),
    secrets: [config().sessionSecret],
    maxAge: 24 * 60 * 60,
  });
  return cookie;
}

export async function readPendingId(request: Request): Promise<string | null> {
  const v = await pendingSignupCookie().parse(request.headers.get("Cookie"));
  return typeof v === "string" ? v : null;
}
