import { redirect } from "@remix-run/node";
import type { AccountType } from "~/db/types";
import { knownDeviceMark, type Actor } from "~/domain/accounts/index.server";
import { actorFromCookie, knownDeviceCookie, sessionCookie } from "./session-cookie.server";
import { localeCookie, tFor } from "~/i18n/i18n.server";
import { redirectWithError } from "./toast.server";

/** Screens: the signed-in actor, or a redirect to /login that comes back afterwards. */
export async function requireActor(request: Request): Promise<Actor> {
  const actor = await actorFromCookie(request);
  if (actor) return actor;
  const { t } = await tFor(request);
  const url = new URL(request.url);
  const back = url.pathname + url.search;
  const key = url.pathname.startsWith("/dashboard/upload-report")
    ? "errors.loginFirstUpload"
    : "errors.loginFirst";
  throw await redirectWithError(`/login?redirectTo=${encodeURIComponent(back)}`, t(key));
}

/** Screens for some account types only: anyone else sees the not-found page. */
export async function requireRole(request: Request, ...types: AccountType[]): Promise<Actor> {
  const actor = await requireActor(request);
  if (!types.includes(actor.accountType)) throw new Response("Not Found", { status: 404 });
  return actor;
}

/** Screens: signed-in visitors do not see signup/login/forgot/update/verify. */
export async function redirectIfSignedIn(request: Request) {
  if (await actorFromCookie(request)) throw redirect("/dashboard/home");
}

/**
 * Set-Cookie headers that start a browser session (and carry the account's language), with the
 * device's "known device" mark for `userId` (the owner's SMS reserve, decision 0021).
 */
export async function sessionHeaders(token: string, locale: string, userId: string) {
  const headers = new Headers();
  headers.append("Set-Cookie", await sessionCookie().serialize(token));
  headers.append("Set-Cookie", await localeCookie.serialize(locale));
  headers.append("Set-Cookie", await knownDeviceHeader(userId));
  return headers;
}

/** The Set-Cookie value that marks this device as one `userId` logged in on (a year). */
export function knownDeviceHeader(userId: string): Promise<string> {
  return knownDeviceCookie().serialize(knownDeviceMark(userId));
}

/** The "known device" mark the request carries, as a plain value for the domain (or null). */
export async function knownDeviceOf(request: Request): Promise<string | null> {
  const v = await knownDeviceCookie().parse(request.headers.get("Cookie"));
  return typeof v === "string" ? v : null;
}

/** Set-Cookie headers that end the browser session; `forgetDevice` (an erased account) also drops its device mark. */
export async function clearSessionHeaders(forgetDevice = false) {
  const headers = new Headers();
  headers.append("Set-Cookie", await sessionCookie().serialize("", { maxAge: 0 }));
  if (forgetDevice) headers.append("Set-Cookie", await knownDeviceCookie().serialize("", { maxAge: 0 }));
  return headers;
}
