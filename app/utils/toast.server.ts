import { createCookieSessionStorage } from "@remix-run/node";
import { createToastUtilsWithCustomSession } from "remix-toast";
import { config } from "~/config.server";

let utils: ReturnType<typeof createToastUtilsWithCustomSession> | undefined;

/** remix-toast bound to a signed cookie under the deployment's session secret. */
export function toasts() {
  if (!utils) {
    const c = config();
    utils = createToastUtilsWithCustomSession(
      createCookieSessionStorage({
        cookie: {
          name: "toast",
          path: "/",
          httpOnly: true,
          sameSite: "lax",
          secure: c.appUrl.startsWith("https://"),
          secrets: [c.sessionSecret],
        },
      }),
    );
  }
  return utils;
}

export const redirectWithSuccess = (url: string, message: string, init?: ResponseInit) =>
  toasts().redirectWithSuccess(url, message, init);
export const redirectWithError = (url: string, message: string, init?: ResponseInit) =>
  toasts().redirectWithError(url, message, init);
export const getToast = (request: Request) => toasts().getToast(request);
