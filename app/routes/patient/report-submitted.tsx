import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  return {
    title: t("reports.submittedTitle"),
    previousReportHref:
      actor.accountType === "Patient" ? `/dashboard/previous-report/${encodeURIComponent(actor.id)}` : null,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

/** After an upload: outside the dashboard, so a simple centred card. */
export default function ReportSubmitted() {
  const { t } = useTranslation();
  const { previousReportHref } = useLoaderData<typeof loader>();
  return (
    <main id="main" className="flex w-full flex-1 items-center justify-center px-4 py-12">
      <div className="card w-full max-w-lg text-center sm:p-8">
        <svg
          viewBox="0 0 24 24"
          className="mx-auto h-16 w-16 text-green-700"
          aria-hidden="true"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.8"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <circle cx="12" cy="12" r="9.5" />
          <path d="m7.5 12.5 3 3 6-6.5" />
        </svg>
        <h1 className="mt-4 text-2xl font-bold text-slate-900 sm:text-3xl">{t("reports.submittedTitle")}</h1>
        <p className="mt-3 text-lg text-slate-700">{t("reports.submittedText")}</p>
        <div className="mt-8 flex flex-col gap-3 sm:flex-row sm:justify-center">
          {previousReportHref && (
            <Link to={previousReportHref} className="btn-primary">
              {t("dashboard.previousReport")}
            </Link>
          )}
          <Link to="/dashboard/home" className={previousReportHref ? "btn-secondary" : "btn-primary"}>
            {t("dashboard.home")}
          </Link>
        </div>
        {previousReportHref && (
          <p className="mt-6">
            <Link to="/dashboard/upload-report" className="link">
              {t("reports.uploadAnother")}
            </Link>
          </p>
        )}
      </div>
    </main>
  );
}
