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

/**
 * The toast of this request, if its cookie carries one. Without a toast cookie there is nothing to
 * read and nothing to clear, so no cookie is set either (remix-toast would write an empty one on
 * every page, which made every page personal to the browser that got it).
 */
export const getToast = (request: Request): ReturnType<ReturnType<typeof toasts>["getToast"]> =>
  /(?:^|;)\s*toast=/.test(request.headers.get("Cookie") ?? "")
    ? toasts().getToast(request)
    : Promise.resolve({ toast: undefined, headers: new Headers() });
