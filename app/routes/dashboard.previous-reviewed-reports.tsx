import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { useListLoading } from "~/components/reports/useListLoading";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { ReviewText } from "~/components/reports/ReviewText";
import { pageError, pageInfo, screenPage } from "~/components/reports/screen.server";
import { listAllReviewed, type ApiReport } from "~/domain/reports.server";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/utils/auth.server";

const fullName = (p: { firstName: string; lastName: string } | null) =>
  p ? `${p.firstName ?? ""} ${p.lastName ?? ""}`.trim() : "";

function rowOf(r: ApiReport) {
  return {
    _id: r._id,
    expertName: fullName(r.expert),
    patientName: fullName(r.patient),
    patientId: r.patient._id,
    reportType: r.reportType,
    review: r.review,
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  let result: Awaited<ReturnType<typeof listAllReviewed>>;
  try {
    result = await listAllReviewed(actor, screenPage(request));
  } catch (err) {
    pageError(err);
  }
  const { t } = await tFor(request);
  return {
    title: t("reports.allReviewedTitle"),
    items: result.items.map(rowOf),
    pagination: pageInfo(result),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Row = ReturnType<typeof rowOf>;

export default function AllReviewedReports() {
  const { t } = useTranslation();
  const { items, pagination } = useLoaderData<typeof loader>();
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
    { key: "expert", header: t("reports.colExpertName"), cell: (r) => r.expertName || na },
    { key: "patient", header: t("reports.colPatientName"), cell: (r) => r.patientName || na },
    {
      key: "type",
      header: t("reports.reportTypeLabel"),
      cell: (r) => (r.reportType ? typeLabel(r.reportType) : na),
    },
    {
      key: "review",
      header: t("reports.reviewLabel"),
      cell: (r) => <ReviewText text={r.review} />,
      className: "min-w-64 max-w-lg",
    },
  ];

  return (
    <section>
      <PageHeader title={t("reports.allReviewedTitle")} intro={t("reports.reviewedIntroAdmin")} />
      {items.length === 0 ? (
        <EmptyState message={t("reports.noReviewedReports")} />
      ) : (
        <ResponsiveTable
          caption={t("reports.allReviewedTitle")}
          columns={columns}
          rows={items}
          rowKey={(r) => r._id}
          busy={loading}
          testId="all-reviewed-reports"
        />
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
