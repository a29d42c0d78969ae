import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useListLoading } from "~/components/reports/useListLoading";
import { EmptyState } from "~/components/reports/EmptyState";
import { LocalDate } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { ReviewText } from "~/components/reports/ReviewText";
import { pageError, pageInfo, screenPage } from "~/web/screen.server";
import { StatusBadge } from "~/components/reports/StatusBadge";
import { listReviewedByExpert, type ApiReport } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/web/auth.server";

function rowOf(r: ApiReport) {
  return {
    _id: r._id,
    reportType: r.reportType,
    review: r.review,
    status: r.status,
    reportUrl: r.reportUrl,
    patientEmail: r.patient.email,
    patientPhone: r.phoneNumber,
    // The spec's "Reviewed On" is the report's updatedAt; reviewedAt is that same moment.
    reviewedOn: r.reviewedAt ?? r.updatedAt,
    expertId: r.expert?._id ?? null,
    // The follow-up thread, when this expert holds it.
    followUps: r.followUps ?? null,
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Expert", "Admin");
  let result: Awaited<ReturnType<typeof listReviewedByExpert>>;
  try {
    // Expert: their own reviews; Admin: every reviewed report.
    result = await listReviewedByExpert(actor, screenPage(request));
  } catch (err) {
    pageError(err);
  }
  const { t } = await tFor(request);
  const isAdmin = actor.accountType === "Admin";
  return {
    title: t("reports.reviewedTitle"),
    isAdmin,
    canOpenFiles: isAdmin || actor.approved,
    items: result.items.map(rowOf),
    pagination: pageInfo(result),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Row = ReturnType<typeof rowOf>;

export default function ReviewedReports() {
  const { t } = useTranslation();
  const { items, pagination, isAdmin, canOpenFiles } = useLoaderData<typeof loader>();
  const typeLabel = useReportTypeLabel();
  const loading = useListLoading();
  const offset = (pagination.page - 1) * pagination.pageSize;
  const na = t("reports.notAvailable");

  const columns: Column<Row>[] = [
    {
      key: "n",
      header: t("reports.colNumber"),
      cell: (_, i) => offset + i + 1,
      className: "w-12 tabular-nums",
    },
    { key: "type", header: t("reports.reportTypeLabel"), cell: (r) => typeLabel(r.reportType) },
    {
      key: "review",
      header: t("reports.reviewLabel"),
      cell: (r) => <ReviewText text={r.review} />,
      className: "sm:min-w-48 sm:max-w-64",
    },
    { key: "status", header: t("reports.status"), cell: (r) => <StatusBadge status={r.status} /> },
    {
      key: "file",
      header: t("reports.colReport"),
      cell: (r) =>
        canOpenFiles ? (
          <a href={r.reportUrl} target="_blank" rel="noopener noreferrer" className="link whitespace-nowrap">
            {t("reports.viewReport")}
            <span className="sr-only"> {t("reports.opensInNewTab")}</span>
          </a>
        ) : (
          <span className="text-sm text-slate-500">{t("reports.fileLocked")}</span>
        ),
    },
    {
      key: "email",
      header: t("reports.colPatientEmail"),
      cell: (r) => <span className="[overflow-wrap:anywhere]">{r.patientEmail || na}</span>,
      className: "sm:min-w-40",
    },
    {
      key: "phone",
      header: t("reports.colPatientPhone"),
      cell: (r) => <span className="whitespace-nowrap tabular-nums">{r.patientPhone || na}</span>,
    },
    {
      key: "reviewedOn",
      header: t("reports.colReviewedOn"),
      cell: (r) => <LocalDate iso={r.reviewedOn} withTime />,
      className: "sm:min-w-28",
    },
  ];
  if (!isAdmin) {
    columns.push({
      key: "followups",
      header: t("followups.title"),
      cell: (r) =>
        r.followUps && r.followUps.length > 0 ? (
          <Link to="/dashboard/follow-ups" className="link whitespace-nowrap">
            {t("followups.title")} ({r.followUps.filter((f) => !f.answer).length}/{r.followUps.length})
          </Link>
        ) : (
          <span className="text-slate-500">{na}</span>
        ),
    });
  }
  if (isAdmin) {
    columns.push({
      key: "expertId",
      header: t("reports.colExpertId"),
      cell: (r) => <code className="text-xs break-all text-slate-700">{r.expertId ?? na}</code>,
    });
  }

  return (
    <section>
      <PageHeader
        title={t("reports.reviewedTitle")}
        intro={isAdmin ? t("reports.reviewedIntroAdmin") : t("reports.reviewedIntroExpert")}
      />
      {items.length === 0 ? (
        <EmptyState message={t("reports.noReviewedReports")} />
      ) : (
        <ResponsiveTable
          caption={t("reports.reviewedTitle")}
          columns={columns}
          rows={items}
          rowKey={(r) => r._id}
          busy={loading}
          testId="reviewed-reports"
          dense
        />
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
