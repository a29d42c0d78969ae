import { useParams } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { Opinion } from "~/components/reports/Opinion";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { DocumentIcon } from "~/components/ui/Icon";
import type { SharedView } from "~/domain/sharing/index.server";
import { site } from "~/site";

/** The opened link: the parts the patient shared (file, opinion, letter), read with the grant cookie. */
export function View({ view }: { view: SharedView }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const typeLabel = useReportTypeLabel();
  const { token } = useParams();
  const base = `/s/${token ?? ""}`;
  const type = typeLabel(view.reportType);
  return (
    <article aria-labelledby="share-view-title" data-testid="shared-report">
      <h1 id="share-view-title" className="text-2xl font-bold break-words text-slate-900 sm:text-3xl">
        {t("share.viewTitle", { name: view.patientName })}
      </h1>
      <p className="mt-2 max-w-prose text-slate-700">
        {t("share.viewIntro", { product: site.productName, date: dates.dateTime(view.expiresAt) })}
      </p>

      <section aria-labelledby="share-report" className="card mt-6">
        <h2 id="share-report" className="text-lg font-bold text-slate-900">
          {t("share.reportSection")}: {type}
        </h2>
        <p className="text-sm text-slate-600">
          <time dateTime={view.submittedAt}>
            {t("reports.submittedOn", { date: dates.day(view.submittedAt) })}
          </time>
        </p>
        {view.file &&
          (view.file.isPdf ? (
            <a
              href={`${base}/file`}
              target="_blank"
              rel="noopener noreferrer"
              className="btn-secondary mt-4"
              data-testid="shared-file"
            >
              <DocumentIcon />
              {t("share.viewFile")}
              <span className="sr-only"> {t("reports.opensInNewTab")}</span>
            </a>
          ) : (
            <a
              href={`${base}/file`}
              target="_blank"
              rel="noopener noreferrer"
              className="mt-4 block"
              data-testid="shared-file"
            >
              <img
                src={`${base}/file`}
                decoding="async"
                alt={t("reports.imageAlt", { type })}
                className="aspect-[4/3] w-full rounded-lg border border-slate-200 bg-slate-100 object-contain"
              />
              <span className="link mt-2 inline-block">
                {t("share.viewImage")}
                <span className="sr-only"> {t("reports.opensInNewTab")}</span>
              </span>
            </a>
          ))}
      </section>

      {(view.opinion || view.opinionPending) && (
        <section aria-labelledby="share-opinion" className="card mt-4">
          <h2 id="share-opinion" className="text-lg font-bold text-slate-900">
            {t("share.opinionSection")}
          </h2>
          {view.opinion ? (
            <>
              {view.reviewedAt && (
                <p className="mb-3 text-sm text-slate-600">
                  <time dateTime={view.reviewedAt}>
                    {t("share.reviewedOn", { date: dates.day(view.reviewedAt) })}
                  </time>
                </p>
              )}
              <div className="rounded-lg border border-green-200 bg-green-50 p-3">
                <Opinion opinion={view.opinion} aboutPatient />
              </div>
            </>
          ) : (
            <p className="mt-2 text-slate-700" data-testid="opinion-pending">
              {t("share.opinionPending")}
            </p>
          )}
        </section>
      )}

      {view.letter && (
        <section aria-labelledby="share-letter" className="card mt-4">
          <h2 id="share-letter" className="text-lg font-bold text-slate-900">
            {t("share.letterSection")}
          </h2>
          <a href={`${base}/letter.pdf`} className="btn-secondary mt-3" download data-testid="shared-letter">
            {t("share.downloadLetter")}
          </a>
        </section>
      )}
    </article>
  );
}
