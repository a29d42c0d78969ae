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
 * read and nothing to clear, so no cookie is set either; a toast cookie that holds no toast (what
 * remix-toast leaves after showing one) is removed rather than written again empty. An empty
 * cookie on every page made every page personal to its browser (never kept, see
 * app/web/page-cache.server.ts).
 */
export async function getToast(request: Request): ReturnType<ReturnType<typeof toasts>["getToast"]> {
  if (!/(?:^|;)\s*toast=/.test(request.headers.get("Cookie") ?? ""))
    return { toast: undefined, headers: new Headers() };
  const read = await toasts().getToast(request);
  if (read.toast) return read;
  const secure = config().appUrl.startsWith("https://") ? "; Secure" : "";
  const headers = new Headers({ "Set-Cookie": `toast=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure}` });
  return { toast: undefined, headers };
}
