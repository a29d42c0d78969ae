import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { formatDuration } from "~/components/reports/duration";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import { useOverdueColumns } from "~/components/reports/overdueColumns";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { config } from "~/config.server";
import { getTurnaround } from "~/domain/consultation/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";

/** Admin: how long patients wait for an opinion. */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const title = t("turnaround.title");
  if (actor.accountType !== "Admin") {
    return data(
      { title, notAllowed: t("reports.adminsOnly"), stats: null, now: 0, targets: null },
      { status: 403 },
    );
  }
  const stats = await getTurnaround(actor);
  const c = config();
  return {
    title,
    notAllowed: null,
    now: Date.now(),
    targets: { routine: c.reviewTargetMs / 3_600_000, urgent: c.reviewTargetUrgentMs / 3_600_000 },
    stats: {
      ...stats,
      overdueReports: stats.overdueReports.map((r) => ({
        _id: r._id,
        reportType: r.reportType,
        patientName: `${r.patient.firstName} ${r.patient.lastName}`.trim(),
        patientId: r.patient._id,
        urgent: r.urgent,
        createdAt: r.createdAt,
        dueAt: r.dueAt,
        claimedBy: r.claimedBy ? `${r.claimedBy.firstName} ${r.claimedBy.lastName}`.trim() : null,
      })),
    },
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

function Stat({ label, value, tone }: { label: string; value: string | number; tone?: "warn" }) {
  return (
    <div className={`card ${tone === "warn" ? "border-orange-300 bg-orange-50" : ""}`}>
      <dt className="text-sm font-semibold text-slate-600">{label}</dt>
      <dd className="mt-1 text-3xl font-bold text-slate-900 tabular-nums">{value}</dd>
    </div>
  );
}

export default function Turnaround() {
  const { t } = useTranslation();
  const { stats, notAllowed, now, targets } = useLoaderData<typeof loader>();
  const lateColumns = useOverdueColumns(now);
  if (notAllowed || !stats || !targets)
    return <NotAllowed title={t("turnaround.title")} message={notAllowed ?? ""} />;
  const dur = (ms: number | null) => (ms === null ? t("reports.notAvailable") : formatDuration(ms, t));
  type Expert = (typeof stats.experts)[number];
  const expertColumns: Column<Expert>[] = [
    {
      key: "expert",
      header: t("turnaround.colExpert"),
      cell: (e) => (
        <span className="font-semibold">{`${e.expert.firstName} ${e.expert.lastName}`.trim()}</span>
      ),
    },
    {
      key: "claimed",
      header: t("turnaround.colClaimed"),
      cell: (e) => <span className="tabular-nums">{e.claimed}</span>,
    },
    {
      key: "reviewed",
      header: t("turnaround.colReviewed"),
      cell: (e) => <span className="tabular-nums">{e.reviewed}</span>,
    },
    { key: "median", header: t("turnaround.colMedian"), cell: (e) => dur(e.medianMs) },
  ];
  return (
    <section className="space-y-6">
      <PageHeader
        title={t("turnaround.title")}
        intro={t("turnaround.intro", { routine: targets.routine, urgent: targets.urgent })}
      />
      <dl className="grid grid-cols-1 gap-3 min-[420px]:grid-cols-3" data-testid="queue-counts">
        <Stat label={t("turnaround.pending")} value={stats.pending} />
        <Stat label={t("turnaround.inReview")} value={stats.inReview} />
        <Stat
          label={t("turnaround.overdue")}
          value={stats.overdue}
          tone={stats.overdue ? "warn" : undefined}
        />
      </dl>
      <section aria-labelledby="turnaround-times">
        <h2 id="turnaround-times" className="text-lg font-bold text-slate-900">
          {t("turnaround.window", { days: stats.windowDays, count: stats.reviewedInWindow })}
        </h2>
        <dl className="mt-3 grid grid-cols-1 gap-3 min-[420px]:grid-cols-2" data-testid="turnaround-times">
          <Stat label={t("turnaround.median")} value={dur(stats.medianMs)} />
          <Stat label={t("turnaround.p90")} value={dur(stats.p90Ms)} />
        </dl>
      </section>
      <section aria-labelledby="per-expert">
        <h2 id="per-expert" className="mb-3 text-lg font-bold text-slate-900">
          {t("turnaround.perExpert", { days: stats.windowDays })}
        </h2>
        {stats.experts.length === 0 ? (
          <EmptyState message={t("turnaround.noData")} />
        ) : (
          <ResponsiveTable
            caption={t("turnaround.perExpert", { days: stats.windowDays })}
            columns={expertColumns}
            rows={stats.experts}
            rowKey={(e) => e.expert._id}
            testId="per-expert"
          />
        )}
      </section>
      <section aria-labelledby="overdue-list">
        <h2 id="overdue-list" className="mb-3 text-lg font-bold text-slate-900">
          {t("turnaround.overdueList")}
        </h2>
        {stats.overdueReports.length === 0 ? (
          <EmptyState message={t("turnaround.noOverdue")} />
        ) : (
          <ResponsiveTable
            caption={t("turnaround.overdueList")}
            columns={lateColumns}
            rows={stats.overdueReports}
            rowKey={(r) => r._id}
            testId="overdue-reports"
          />
        )}
      </section>
    </section>
  );
}
