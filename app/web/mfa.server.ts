import { createCookie, redirect } from "@remix-run/node";
import { config } from "~/config.server";
import { CHALLENGE_TTL_MS } from "~/domain/accounts/index.server";

/**
 * The browser's half-done login (decision 0017): after a right password, the challenge token waits in
 * this short, signed, HttpOnly cookie until /login-2fa gets the second step. It is not a session.
 */
let cookie: ReturnType<typeof createCookie> | undefined;
function mfaCookie() {
  if (!cookie) {
    const c = config();
    cookie = createCookie("cb_mfa", {
      path: "/",
      httpOnly: true,
      sameSite: "lax",
      secure: c.appUrl.startsWith("https://"),
      secrets: [c.sessionSecret],
      maxAge: CHALLENGE_TTL_MS / 1000,
    });
  }
  return cookie;
}

/** The challenge token the browser holds, or null. */
export async function challengeFromCookie(request: Request): Promise<string | null> {
  const token = await mfaCookie().parse(request.headers.get("Cookie"));
  return typeof token === "string" ? token : null;
}

export async function clearChallengeCookie(): Promise<string> {
  return mfaCookie().serialize("", { maxAge: 0 });
}

/** Where a login that needs its second step goes: /login-2fa, keeping where to go afterwards. */
export async function toSecondStep(challengeToken: string, redirectTo: string) {
  const query =
    redirectTo && redirectTo !== "/dashboard/home" ? `?redirectTo=${encodeURIComponent(redirectTo)}` : "";
  return redirect(`/login-2fa${query}`, {
    headers: { "Set-Cookie": await mfaCookie().serialize(challengeToken) },
  });
}
