import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { Flag, StatusBadge } from "~/components/reports/StatusBadge";
import type { ReviewReport } from "./route";

/** What the patient sent and where the report stands: type, date, status and flags, the description. */
export function ReportFacts({ report }: { report: ReviewReport }) {
  const { t } = useTranslation();
  const typeLabel = useReportTypeLabel();
  const dates = useDateText();
  const alreadyReviewed = report.status === "Reviewed";
  return (
    <div className="card">
      <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-1 xl:grid-cols-2">
        <div>
          <dt className="text-sm font-semibold text-slate-600">{t("reports.reportTypeLabel")}</dt>
          <dd className="text-lg font-bold text-slate-900">{typeLabel(report.reportType)}</dd>
        </div>
        <div>
          <dt className="text-sm font-semibold text-slate-600">{t("reports.submittedOnLabel")}</dt>
          <dd>
            <time dateTime={report.createdAt}>{dates.day(report.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt className="text-sm font-semibold text-slate-600">{t("reports.status")}</dt>
          <dd className="flex flex-wrap items-center gap-1">
            <StatusBadge
              status={alreadyReviewed ? "Reviewed" : report.status}
              inReview={!!report.claimedBy}
            />
            {report.urgent && <Flag kind="urgent" />}
            {report.overdue && <Flag kind="overdue" />}
            {report.matches && <Flag kind="match" />}
          </dd>
        </div>
        {report.urgentReason && (
          <div>
            <dt className="text-sm font-semibold text-slate-600">{t("reports.urgentReasonLabel")}</dt>
            <dd className="font-semibold break-words text-red-900">{report.urgentReason}</dd>
          </div>
        )}
        <div className="sm:col-span-2 lg:col-span-1 xl:col-span-2">
          <dt className="text-sm font-semibold text-slate-600">{t("reports.patientDescription")}</dt>
          <dd
            className={`break-words whitespace-pre-line ${report.description ? "" : "text-slate-500 italic"}`}
          >
            {report.description || t("reports.noDescription")}
          </dd>
        </div>
      </dl>
    </div>
  );
}
