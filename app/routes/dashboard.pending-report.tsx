import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useSubmit } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { useListLoading } from "~/components/reports/useListLoading";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { ReportTypeOptions, useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { pageError, pageInfo, screenPage } from "~/components/reports/screen.server";
import { StatusBadge } from "~/components/reports/StatusBadge";
import { useHydrated } from "~/components/reports/useHydrated";
import { listPendingReports, type ApiReport } from "~/domain/reports.server";
import { tFor } from "~/i18n/i18n.server";
import { isReportType } from "~/schemas/reports";
import { requireRole } from "~/utils/auth.server";

function rowOf(r: ApiReport) {
  return {
    _id: r._id,
    patientName: `${r.patient.firstName} ${r.patient.lastName}`.trim(),
    phoneNumber: r.phoneNumber,
    reportType: r.reportType,
    reportUrl: r.reportUrl,
    status: r.status,
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Expert", "Admin");
  const url = new URL(request.url);
  const wanted = url.searchParams.get("reportType");
  const reportType = isReportType(wanted) ? wanted : null;
  const page = screenPage(request);
  let result: Awaited<ReturnType<typeof listPendingReports>>;
  try {
    // Patients are masked here for experts awaiting approval.
    result = await listPendingReports(actor, page, reportType);
  } catch (err) {
    pageError(err);
  }
  const { t } = await tFor(request);
  return {
    title: t("reports.pendingTitle"),
    reportType,
    isExpert: actor.accountType === "Expert",
    approved: actor.approved,
    items: result.items.map(rowOf),
    pagination: pageInfo(result),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Row = ReturnType<typeof rowOf>;

export default function PendingReports() {
  const { t } = useTranslation();
  const { items, pagination, reportType, isExpert, approved } = useLoaderData<typeof loader>();
  const typeLabel = useReportTypeLabel();
  const submit = useSubmit();
  const hydrated = useHydrated();
  const loading = useListLoading();
  const offset = (pagination.page - 1) * pagination.pageSize;
  const canOpenFiles = !isExpert || approved;

  const columns: Column<Row>[] = [
    {
      key: "n",
      header: t("reports.colNumber"),
      cell: (_, i) => offset + i + 1,
      className: "w-12 tabular-nums",
    },
    {
      key: "patient",
      header: t("reports.colPatientName"),
      cell: (r) => r.patientName || t("reports.notAvailable"),
    },
    {
      key: "phone",
      header: t("reports.colPhone"),
      cell: (r) =>
        /^\+?\d+$/.test(r.phoneNumber) ? (
          <a
            href={`tel:${r.phoneNumber}`}
            className="whitespace-nowrap text-slate-900 tabular-nums hover:underline"
          >
            {r.phoneNumber}
          </a>
        ) : (
          <span className="whitespace-nowrap">{r.phoneNumber}</span>
        ),
    },
    { key: "type", header: t("reports.reportTypeLabel"), cell: (r) => typeLabel(r.reportType) },
    {
      key: "file",
      header: t("reports.colReport"),
      cell: (r) =>
        canOpenFiles ? (
          <a href={r.reportUrl} target="_blank" rel="noopener noreferrer" className="link">
            {t("reports.viewReport")}
            <span className="sr-only"> {t("reports.opensInNewTab")}</span>
          </a>
        ) : (
          <span className="text-sm text-slate-500">{t("reports.fileLocked")}</span>
        ),
    },
    { key: "status", header: t("reports.status"), cell: (r) => <StatusBadge status={r.status} /> },
  ];
  if (isExpert) {
    columns.push({
      key: "action",
      header: t("reports.colAction"),
      cell: (r) =>
        approved ? (
          <Link
            to={`/dashboard/add-review/${encodeURIComponent(r._id)}`}
            className="btn-primary px-3 whitespace-nowrap"
          >
            {t("reports.addReview")}
          </Link>
        ) : (
          <p className="max-w-64 text-sm text-amber-900">{t("reports.awaitApproval")}</p>
        ),
    });
  }

  return (
    <section>
      <PageHeader title={t("reports.pendingTitle")} intro={t("reports.pendingIntro")} />
      <Form method="get" className="mb-4 flex flex-wrap items-end gap-3" role="search">
        <div className="min-w-0 flex-1 sm:max-w-xs">
          <label htmlFor="reportType-filter" className="field-label">
            {t("reports.filterLabel")}
          </label>
          <select
            id="reportType-filter"
            name="reportType"
            defaultValue={reportType ?? ""}
            key={reportType ?? ""}
            className="field-input"
            onChange={(e) => hydrated && e.currentTarget.form && submit(e.currentTarget.form)}
          >
            <ReportTypeOptions placeholder={t("reports.allTypes")} />
          </select>
        </div>
        <button type="submit" className="btn-secondary">
          {t("reports.applyFilter")}
        </button>
      </Form>
      <p
        role="status"
        aria-live="polite"
        className={loading ? "mb-3 flex items-center gap-2 font-semibold text-brand-800" : "sr-only"}
      >
        {loading && (
          <>
            <span
              className="h-4 w-4 animate-spin rounded-full border-2 border-brand-600 border-t-transparent"
              aria-hidden="true"
            />
            {t("reports.loadingReports")}
          </>
        )}
      </p>
      {items.length === 0 ? (
        <EmptyState message={t("reports.noPendingReports")} />
      ) : (
        <ResponsiveTable
          caption={t("reports.pendingTitle")}
          columns={columns}
          rows={items}
          rowKey={(r) => r._id}
          busy={loading}
          testId="pending-reports"
        />
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
