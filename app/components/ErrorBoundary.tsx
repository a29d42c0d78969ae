import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";

/** The status a route error is answered with: a thrown Response's, otherwise 500. */
export function errorStatus(error: unknown) {
  return isRouteErrorResponse(error) ? error.status : 500;
}

function messageKey(status: number) {
  if (status === 404) return "errors.notFound";
  if (status >= 400 && status < 500) return "errors.requestRefused";
  return "errors.serverError";
}

/**
 * What a screen that failed shows, wherever its boundary is: the status, the message in the
 * reader's language (never the error's own text, which may be English or internal) and a way back.
 * The 404 message already names its status (the spec's wording), so only the others show it apart.
 */
export function ErrorMessage({ backTo = "/", backLabel }: { backTo?: string; backLabel?: string }) {
  const error = useRouteError();
  const { t } = useTranslation();
  const status = errorStatus(error);
  return (
    <div
      className="flex flex-col items-center py-8 text-center"
      data-testid="route-error"
      data-status={status}
    >
      {status !== 404 && (
        <p className="text-sm font-semibold text-slate-600">{t("errors.status", { status })}</p>
      )}
      <h1 className="text-2xl font-bold text-slate-900">{t(messageKey(status))}</h1>
      <a href={backTo} className="btn-primary mt-8">
        {backLabel ?? t("errors.backHome")}
      </a>
    </div>
  );
}

/** The whole page's error: the message as the page's main content (root, or a layout that cannot draw itself). */
export function ErrorPage() {
  return (
    <main
      id="main"
      className="mx-auto flex w-full max-w-3xl flex-1 flex-col items-center justify-center px-4 py-8 text-center"
    >
      <ErrorMessage />
    </main>
  );
}
