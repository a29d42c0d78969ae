import { Link, useParams } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { myDataDownloadHref } from "~/components/DownloadMyData";
import { EmptyState } from "~/components/reports/EmptyState";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useListLoading } from "~/components/reports/useListLoading";
import { ReportCard } from "./ReportCard";
import type { ListData } from "./route";

export function ReportList({
  items,
  pagination,
  own,
  canUpload,
}: Pick<ListData, "items" | "pagination" | "own" | "canUpload">) {
  const { t } = useTranslation();
  const loading = useListLoading();
  const patientName = items[0]?.patientName;
  const { patientId } = useParams();
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
            <ReportCard key={r._id} report={r} own={own} />
          ))}
        </ul>
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
