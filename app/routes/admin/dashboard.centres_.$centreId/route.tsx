import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { formatDuration } from "~/components/reports/duration";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { useOverdueColumns } from "~/components/reports/overdueColumns";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import {
  centreOverdue,
  centreStats,
  handOverHeldItem,
  listHeldItems,
} from "~/domain/consultation/index.server";
import { getCentre, listHealthWorkers, updateCentre, type ApiHealthWorker } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { centreSchema } from "~/schemas/centres";
import { CENTRE_KIND_KEYS, WORKER_ROLE_KEYS, WORKER_STATUS_KEYS } from "~/schemas/limits";
import { parseFormData } from "~/schemas/strict";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { formFailure, pageError } from "~/web/screen.server";
import { isDomainError } from "~/domain/platform/errors";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";
import { CentreForm } from "../dashboard.centres/CentreForm";
import { HeldItems } from "./HeldItems";

/**
 * Admin: one centre — its figures (the Turnaround screen's definitions over the centre's reports),
 * its health workers, its overdue reports and the form to change its name, kind or place.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const id = params.centreId ?? "";
  try {
    const centre = await getCentre(actor, id);
    const now = Date.now();
    const [stats, overdue, held, approved, pending, suspended] = await Promise.all([
      centreStats(actor, id, now),
      centreOverdue(actor, id, now),
      listHeldItems(actor, id, { page: 1, pageSize: 100 }),
      ...(["approved", "pending", "suspended"] as const).map((status) =>
        listHealthWorkers(actor, { status, centreId: id }, { page: 1, pageSize: 100 }),
      ),
    ]);
    return {
      title: centre.name,
      centre,
      stats,
      now,
      workers: [...pending.items, ...approved.items, ...suspended.items],
      held: held.items,
      overdue: overdue.map((r) => ({
        _id: r._id,
        reportType: r.reportType,
        patientName: `${r.patient.firstName} ${r.patient.lastName}`.trim(),
        patientId: r.patient._id,
        urgent: r.urgent,
        createdAt: r.createdAt,
        dueAt: r.dueAt,
        claimedBy: r.claimedBy ? `${r.claimedBy.firstName} ${r.claimedBy.lastName}`.trim() : null,
      })),
    };
  } catch (err) {
    pageError(err);
  }
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const id = params.centreId ?? "";
  const back = `/dashboard/centres/${encodeURIComponent(id)}`;
  const formData = await readForm(request);
  if (formData.get("intent") === "hand-over") {
    // A held item to another worker of the centre (decision 0065): the refusal as a toast.
    try {
      await handOverHeldItem(
        actor,
        id,
        String(formData.get("heldItemId") ?? ""),
        { workerId: String(formData.get("workerId") ?? "") },
        { ip: clientOf(context).ip },
      );
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return redirectWithError(back, t(err.message));
    }
    return redirectWithSuccess(back, t("held.handedOver"));
  }
  if (formData.get("intent") !== "update") return redirectWithError(back, t("centres.unknownAction"));
  const submission = parseFormData(formData, { schema: centreSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  try {
    await updateCentre(actor, id, submission.value, clientOf(context).ip);
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o));
  }
  return redirectWithSuccess(back, t("centres.saved"));
}

function Stat({ label, value, tone }: { label: string; value: string | number; tone?: "warn" }) {
  return (
    <div className={`card ${tone === "warn" ? "border-orange-300 bg-orange-50" : ""}`}>
      <dt className="text-sm font-semibold text-slate-600">{label}</dt>
      <dd className="mt-1 text-2xl font-bold text-slate-900 tabular-nums">{value}</dd>
    </div>
  );
}

export default function CentrePage() {
  const { t } = useTranslation();
  const { centre, stats, workers, overdue, held, now } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const lateColumns = useOverdueColumns(now);
  const dur = (ms: number | null) => (ms === null ? t("reports.notAvailable") : formatDuration(ms, t));
  const workerColumns: Column<ApiHealthWorker>[] = [
    {
      key: "name",
      header: t("centres.workerName"),
      cell: (w) => <span className="font-semibold">{`${w.firstName} ${w.lastName}`.trim()}</span>,
    },
    { key: "role", header: t("centres.role"), cell: (w) => t(WORKER_ROLE_KEYS[w.role]) },
    {
      key: "workerId",
      header: t("centres.workerId"),
      cell: (w) => <span className="break-all">{w.workerId}</span>,
    },
    { key: "status", header: t("reports.status"), cell: (w) => t(WORKER_STATUS_KEYS[w.status]) },
  ];
  return (
    <section className="space-y-6">
      <p>
        <Link to="/dashboard/centres" className="link">
          ← {t("centres.backToList")}
        </Link>
      </p>
      <PageHeader
        title={centre.name}
        intro={`${t(CENTRE_KIND_KEYS[centre.kind])} · ${centre.district}, ${centre.state} ${centre.pinCode}`}
      />
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="centre-counts">
        <Stat label={t("centres.colPatients")} value={stats.patients} />
        <Stat label={t("turnaround.pending")} value={stats.pending} />
        <Stat label={t("turnaround.inReview")} value={stats.inReview} />
        <Stat label={t("centres.reviewed")} value={stats.reviewed} />
        <Stat
          label={t("turnaround.overdue")}
          value={stats.overdue}
          tone={stats.overdue ? "warn" : undefined}
        />
        <Stat label={t("turnaround.median")} value={dur(stats.medianMs)} />
        <Stat label={t("turnaround.p90")} value={dur(stats.p90Ms)} />
        <Stat label={t("centres.colWorkers")} value={stats.workers.approved} />
      </dl>
      <p className="text-sm text-slate-700">
        {t("turnaround.window", { days: stats.windowDays, count: stats.reviewedInWindow })}
      </p>
      <section aria-labelledby="centre-workers">
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          <h2 id="centre-workers" className="text-lg font-bold text-slate-900">
            {t("centres.workersTitle")}
          </h2>
          <Link
            to={`/dashboard/centres/workers?status=approved&centreId=${encodeURIComponent(centre._id)}`}
            className="link"
          >
            {t("centres.manageWorkers")}
          </Link>
        </div>
        {workers.length === 0 ? (
          <EmptyState message={t("centres.noWorkers")} />
        ) : (
          <ResponsiveTable
            caption={t("centres.workersTitle")}
            columns={workerColumns}
            rows={workers}
            rowKey={(w) => w._id}
            testId="centre-workers"
          />
        )}
      </section>
      <HeldItems items={held} workers={workers} />
      <section aria-labelledby="centre-overdue">
        <h2 id="centre-overdue" className="mb-3 text-lg font-bold text-slate-900">
          {t("turnaround.overdueList")}
        </h2>
        {overdue.length === 0 ? (
          <EmptyState message={t("turnaround.noOverdue")} />
        ) : (
          <ResponsiveTable
            caption={t("turnaround.overdueList")}
            columns={lateColumns}
            rows={overdue}
            rowKey={(r) => r._id}
            testId="centre-overdue"
          />
        )}
      </section>
      <section aria-labelledby="edit-centre" className="card">
        <h2 id="edit-centre" className="mb-3 text-lg font-bold text-slate-900">
          {t("centres.editTitle")}
        </h2>
        <CentreForm
          id="edit-centre-form"
          intent="update"
          lastResult={lastResult}
          values={{
            name: centre.name,
            kind: centre.kind,
            district: centre.district,
            state: centre.state,
            pinCode: centre.pinCode,
          }}
          submitLabel={t("centres.save")}
        />
      </section>
    </section>
  );
}
