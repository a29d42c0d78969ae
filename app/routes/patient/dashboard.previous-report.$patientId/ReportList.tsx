import { Link, useParams } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { myDataDownloadHref } from "~/components/DownloadMyData";
import { EmptyState } from "~/components/reports/EmptyState";
import { WhoseReports } from "~/components/WhoseReports";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useListLoading } from "~/components/reports/useListLoading";
import { ReportCard } from "./ReportCard";
import { LabCharts } from "~/components/labs/LabValues";
import type { ListData } from "./route";

export function ReportList({
  items,
  pagination,
  own,
  managed,
  whose,
  canUpload,
  canVoice,
  voiceMaxSeconds,
  labSeries,
  canActSteps,
}: Pick<
  ListData,
  | "items"
  | "pagination"
  | "own"
  | "managed"
  | "whose"
  | "canUpload"
  | "canVoice"
  | "voiceMaxSeconds"
  | "labSeries"
  | "canActSteps"
>) {
  const { t } = useTranslation();
  const loading = useListLoading();
  const { patientId } = useParams();
  // A family member's name comes from the switcher too, so an empty list still says whose it is.
  const patientName = items[0]?.patientName ?? whose.find((o) => o.id === patientId && !o.self)?.name;
  return (
    <section aria-busy={loading || undefined}>
      <PageHeader
        title={t("reports.previousTitle")}
        intro={
          own
            ? t("reports.previousIntro")
            : patientName
              ? t("reports.previousIntroAdmin", { name: patientName })
              : undefined
        }
      >
        {canUpload && (
          <Link to="/dashboard/upload-report" className="btn-primary">
            {t("dashboard.uploadReport")}
          </Link>
        )}
        {/* An admin looking at a patient's reports can download all of that patient's data. */}
        {!own && patientId && (
          <a href={myDataDownloadHref(patientId)} className="btn-secondary">
            {t("fhir.adminButton")}
          </a>
        )}
      </PageHeader>
      <WhoseReports
        options={whose}
        current={patientId}
        hrefFor={(id) => `/dashboard/previous-report/${encodeURIComponent(id)}`}
      />
      <LabCharts series={labSeries} />
      {items.length === 0 ? (
        <EmptyState message={t("reports.noReportsForPatient")}>
          {canUpload && (
            <>
              <p className="w-full text-slate-600">{t("reports.uploadFirst")}</p>
              <Link to="/dashboard/upload-report" className="btn-primary">
                {t("dashboard.uploadReport")}
              </Link>
            </>
          )}
        </EmptyState>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2">
          {items.map((r) => (
            // A family manager acts for the member as for themself (follow-ups, sharing).
            <ReportCard
              key={r._id}
              report={r}
              own={own || managed}
              aboutPatient={!own}
              canActSteps={canActSteps}
              voice={{ canAdd: canVoice, maxSeconds: voiceMaxSeconds }}
            />
          ))}
        </ul>
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
