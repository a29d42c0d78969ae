import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useSubmit } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useListLoading } from "~/components/reports/useListLoading";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { ReportTypeOptions, useReportTypeLabel } from "~/components/reports/ReportTypeSelect";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { pageError, pageInfo, screenPage, toastFailure } from "~/web/screen.server";
import { formatDuration } from "~/components/reports/duration";
import { Flag, StatusBadge } from "~/components/reports/StatusBadge";
import { useHydrated } from "~/components/reports/useHydrated";
import { claimReport, listPendingReports, type ApiReport } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { isReportType } from "~/schemas/reports";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { redirectWithSuccess } from "~/web/toast.server";

function rowOf(r: ApiReport, me: string, now: number) {
  return {
    _id: r._id,
    patientName: `${r.patient.firstName} ${r.patient.lastName}`.trim(),
    phoneNumber: r.phoneNumber,
    reportType: r.reportType,
    reportUrl: r.reportUrl,
    status: r.status,
    urgent: r.urgent,
    urgentReason: r.urgentReason,
    overdue: r.overdue,
    matches: !!r.matchesSpecialties,
    waitedMs: now - Date.parse(r.createdAt),
    claimedBy: r.claimedBy ? `${r.claimedBy.firstName} ${r.claimedBy.lastName}`.trim() : null,
    claimedByMe: r.claimedBy?._id === me,
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Expert", "Admin");
  const url = new URL(request.url);
  const wanted = url.searchParams.get("reportType");
  const reportType = isReportType(wanted) ? wanted : null;
  const onlyMine = actor.accountType === "Expert" && url.searchParams.get("mine") === "1";
  const page = screenPage(request);
  let result: Awaited<ReturnType<typeof listPendingReports>>;
  try {
    // The queue: urgent first, then the longest waiting; for experts, their specialties first.
    // Patients are masked here for experts awaiting approval.
    result = await listPendingReports(actor, page, {
      reportType,
      sort: "queue",
      match: actor.accountType === "Expert" ? (onlyMine ? "only" : "first") : "all",
    });
  } catch (err) {
    pageError(err);
  }
  const { t } = await tFor(request);
  const now = Date.now();
  return {
    title: t("reports.pendingTitle"),
    reportType,
    onlyMine,
    isExpert: actor.accountType === "Expert",
    approved: actor.approved,
    items: result.items.map((r) => rowOf(r, actor.id, now)),
    pagination: pageInfo(result),
  };
}

/** "Start review": claim the report, then write the opinion beside it. */
export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Expert");
  const { t } = await tFor(request);
  const form = await readForm(request);
  const reportId = String(form.get("reportId") ?? "");
  const back = `/dashboard/pending-report${new URL(request.url).search}`;
  try {
    await claimReport(actor, reportId, { ip: clientOf(context).ip });
  } catch (err) {
    return toastFailure(err, t, back);
  }
  return redirectWithSuccess(
    `/dashboard/add-review/${encodeURIComponent(reportId)}`,
    t("reports.claimSuccess"),
  );
}

export const meta: MetaFunction<typeof loader> = screenMeta;

type Row = ReturnType<typeof rowOf>;

/** Start / continue a review: small type and wrapping, so long words (Tamil) fit a phone's card. */
const ACTION_BUTTON = "btn-primary px-3 text-center text-sm";

export default function PendingReports() {
  const { t } = useTranslation();
  const { items, pagination, reportType, isExpert, approved, onlyMine } = useLoaderData<typeof loader>();
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
    {
      key: "type",
      header: t("reports.reportTypeLabel"),
      // The type, then what puts it ahead in the queue: urgent (with the patient's reason), overdue, your specialty.
      cell: (r) => (
        <span className="flex flex-col items-start gap-1">
          <span className="font-semibold">{typeLabel(r.reportType)}</span>
          {(r.urgent || r.overdue || (isExpert && r.matches)) && (
            <span className="flex flex-wrap gap-1">
              {r.urgent && <Flag kind="urgent" />}
              {r.overdue && <Flag kind="overdue" />}
              {isExpert && r.matches && <Flag kind="match" />}
            </span>
          )}
          {r.urgentReason && (
            <span className="max-w-56 text-sm break-words text-red-900">
              {t("reports.urgentReasonShown", { reason: r.urgentReason })}
            </span>
          )}
        </span>
      ),
    },
    {
      key: "file",
      header: t("reports.colReport"),
      cell: (r) =>
        canOpenFiles ? (
          <a href={r.reportUrl} target="_blank" rel="noopener noreferrer" className="link">
            {t("reports.viewReport")}
            <span className="sr-only">{` ${t("reports.opensInNewTab")}`}</span>
          </a>
        ) : (
          <span className="text-sm text-slate-500">{t("reports.fileLocked")}</span>
        ),
    },
    {
      key: "status",
      header: t("reports.status"),
      cell: (r) => (
        <span className="flex flex-col items-start gap-1">
          <StatusBadge status={r.status} inReview={!!r.claimedBy} />
          {r.claimedBy && (
            <span className="text-sm text-sky-900">{t("reports.inReviewBy", { name: r.claimedBy })}</span>
          )}
          <span className="text-sm text-slate-600 tabular-nums">
            {`${t("reports.colWaiting")}: ${formatDuration(r.waitedMs, t)}`}
          </span>
        </span>
      ),
    },
  ];
  if (isExpert) {
    columns.push({
      key: "action",
      header: t("reports.colAction"),
      cell: (r) =>
        !approved ? (
          <p className="max-w-64 text-sm text-amber-900">{t("reports.awaitApproval")}</p>
        ) : r.claimedByMe ? (
          <Link to={`/dashboard/add-review/${encodeURIComponent(r._id)}`} className={ACTION_BUTTON}>
            {t("reports.continueReview")}
          </Link>
        ) : r.claimedBy ? (
          <span className="text-sm text-slate-600">{t("reports.inReviewBy", { name: r.claimedBy })}</span>
        ) : (
          // The button itself names the report: one form around the table (below), not one per row.
          <button type="submit" name="reportId" value={r._id} className={ACTION_BUTTON}>
            {t("reports.startReview")}
            <span className="sr-only">{` ${typeLabel(r.reportType)}`}</span>
          </button>
        ),
    });
  }

  return (
    <section>
      <PageHeader
        title={t("reports.pendingTitle")}
        intro={t(isExpert ? "reports.queueIntroExpert" : "reports.queueIntro")}
      />
      <Form method="get" className="mb-4 flex flex-wrap items-end gap-3" role="search">
        <div className="min-w-0 flex-1 basis-full sm:basis-0 sm:max-w-xs">
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
        {isExpert && (
          <label className="flex min-h-11 cursor-pointer items-center gap-2">
            <input
              type="checkbox"
              name="mine"
              value="1"
              defaultChecked={onlyMine}
              key={String(onlyMine)}
              className="h-5 w-5 accent-brand-700"
              onChange={(e) => hydrated && e.currentTarget.form && submit(e.currentTarget.form)}
            />
            <span>{t("reports.onlyMatching")}</span>
          </label>
        )}
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
        <ClaimForm enabled={isExpert && approved}>
          <ResponsiveTable
            caption={t("reports.pendingTitle")}
            columns={columns}
            rows={items}
            rowKey={(r) => r._id}
            busy={loading}
            testId="pending-reports"
            // Seven columns beside the sidebar: the dense look keeps "Start review" in view at 1280 px.
            dense
          />
        </ClaimForm>
      )}
      <Pager pagination={pagination} />
    </section>
  );
}

/**
 * "Start review" posts the report of the button pressed (its name and value): one form around
 * the whole queue instead of a form and a hidden field in each of its rows.
 */
function ClaimForm({ enabled, children }: { enabled: boolean; children: React.ReactNode }) {
  if (!enabled) return <>{children}</>;
  return (
    <Form method="post" preventScrollReset>
      {children}
    </Form>
  );
}
