import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useListLoading } from "~/components/reports/useListLoading";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { ReviewText } from "~/components/reports/ReviewText";
import { pageError, pageInfo, screenPage, toastFailure } from "~/web/screen.server";
import { FollowUpThread } from "~/components/reports/Opinion";
import { listApprovedExperts } from "~/domain/accounts/index.server";
import { reassignFollowUps, listAllReviewed, type ApiReport } from "~/domain/consultation/index.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/web/auth.server";

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
    followUps: r.followUps ?? [],
    expertId: r.expert?._id ?? null,
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
  // Who can take over a report's follow-up questions.
  const experts = await listApprovedExperts(actor, { page: 1, pageSize: 100 });
  return {
    title: t("reports.allReviewedTitle"),
    items: result.items.map(rowOf),
    pagination: pageInfo(result),
    experts: experts.items.map((e) => ({ _id: e._id, name: `${e.firstName} ${e.lastName}`.trim() })),
  };
}

/** Admin: another approved expert takes over a report's follow-up questions. */
export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const form = await readForm(request);
  const back = `/dashboard/previous-reviewed-reports${new URL(request.url).search}`;
  try {
    await reassignFollowUps(
      actor,
      String(form.get("reportId") ?? ""),
      { expertId: form.get("expertId") },
      {
        ip: clientOf(context).ip,
      },
    );
  } catch (err) {
    return toastFailure(err, t, back, { field: "expertId" });
  }
  return redirectWithSuccess(back, t("followups.reassignSuccess"));
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Row = ReturnType<typeof rowOf>;

export default function AllReviewedReports() {
  const { t } = useTranslation();
  const { items, pagination, experts } = useLoaderData<typeof loader>();
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
    {
      key: "followups",
      header: t("followups.title"),
      cell: (r) => (
        <details className="sm:min-w-56">
          <summary className="link cursor-pointer">
            {t("followups.title")} ({r.followUps.length})
          </summary>
          <div className="mt-2 space-y-3">
            <FollowUpThread reportId={r._id} followUps={r.followUps} />
            <Form method="post" preventScrollReset className="space-y-2">
              <input type="hidden" name="reportId" value={r._id} />
              <label htmlFor={`reassign-${r._id}`} className="field-label">
                {t("reports.reassignLabel")}
              </label>
              <select
                id={`reassign-${r._id}`}
                name="expertId"
                required
                defaultValue=""
                className="field-input"
              >
                <option value="">{t("reports.chooseExpert")}</option>
                {experts
                  .filter((e) => e._id !== r.expertId)
                  .map((e) => (
                    <option key={e._id} value={e._id}>
                      {e.name}
                    </option>
                  ))}
              </select>
              <button type="submit" className="btn-secondary">
                {t("reports.reassign")}
              </button>
            </Form>
          </div>
        </details>
      ),
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
