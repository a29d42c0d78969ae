import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { config } from "~/config.server";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { formatDuration } from "~/components/reports/duration";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { serviceSummary, type RouteGroup } from "~/domain/operations/index.server";
import { stepWeeks } from "~/domain/consultation/index.server";
import { intlTag } from "~/i18n/config";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/web/auth.server";
import { formatDay, zoneName } from "~/lib/format";
import { BackupsSection } from "~/components/service/BackupsSection";
import { StepsSection } from "~/components/service/StepsSection";
import { backupAction, backupSection } from "./backups.server";
import { workSection } from "./work.server";
import { BackgroundWorkSection } from "~/components/service/BackgroundWorkSection";
import { FiguresTable, Legend, Lines, PairedBars, Spark, StackedBars } from "~/components/charts/Charts";

/**
 * Admin: how the service is doing (decision 0034) — requests and errors per hour, response times
 * per kind of request, the queues over two days and the time to an opinion per week, drawn on the
 * server from the rollups every process adds to the database. Labels are made here, in the clinic's
 * time zone (CLINIC_TIME_ZONE, decision 0092), so the page reads the same with or without JavaScript.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const { t, locale } = await tFor(request);
  const [s, backups, steps, work] = await Promise.all([
    serviceSummary(actor),
    backupSection(actor, t, locale),
    stepWeeks(8),
    workSection(actor, locale),
  ]);
  const tag = intlTag(locale);
  const zone = config().clinic.timeZone;
  // An hour's bar starts on a whole UTC hour: in India that is half past (15:30), said so.
  const hourOnly = new Intl.DateTimeFormat(tag, {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: zone,
  });
  const dayHour = new Intl.DateTimeFormat(tag, {
    day: "2-digit",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: zone,
  });
  const dayShort = new Intl.DateTimeFormat(tag, {
    day: "2-digit",
    month: "short",
    timeZone: zone,
  });
  const unit = turnaroundUnit(s.turnaround.flatMap((w) => [w.medianMs ?? 0, w.p90Ms ?? 0]));
  return {
    title: t("service.title"),
    // The zone in words of the screen's language, never its IANA id.
    intro: t("service.intro", { zone: zoneName(zone, locale) }),
    backups,
    work,
    unit: { label: t(unit.key), ms: unit.ms },
    hours: s.requests.map((r) => ({
      ...r,
      tick: hourOnly.format(r.hour),
      label: dayHour.format(r.hour),
    })),
    latency: s.latency,
    // An opinion's next steps per week (decision 0114), newest first; the CSV has 12 weeks.
    steps: [...steps].reverse().map((w) => ({
      ...w,
      label: formatDay(`${w.week}T12:00:00Z`, locale),
      share: w.onTimeShare === null ? "—" : `${Math.round(w.onTimeShare * 100)} %`,
    })),
    queueSeries: s.queueSeries,
    queues: s.queues.map((q) => ({ label: dayHour.format(q.hour), values: q.values })),
    turnaround: s.turnaround.map((w) => ({
      ...w,
      tick: dayShort.format(w.weekStart + 7 * 86_400_000 - 1),
      label: formatDay(w.weekStart + 7 * 86_400_000 - 1, locale, zone),
    })),
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;
export const action = backupAction;

/** The turnaround axis's unit: seconds, minutes, hours or days, so its labels are figures people read (not 0.0). */
function turnaroundUnit(values: number[]): { key: string; ms: number } {
  const max = Math.max(0, ...values);
  if (max === 0) return { key: "service.hoursUnit", ms: 3_600_000 }; // no opinions yet
  if (max < 2 * 60_000) return { key: "service.secondsUnit", ms: 1000 };
  if (max < 2 * 3_600_000) return { key: "service.minutesUnit", ms: 60_000 };
  if (max < 72 * 3_600_000) return { key: "service.hoursUnit", ms: 3_600_000 };
  return { key: "service.daysUnit", ms: 86_400_000 };
}

const GROUP_KEYS: Record<RouteGroup, string> = {
  api: "service.groupApi",
  pages: "service.groupPages",
  uploads: "service.groupUploads",
  files: "service.groupFiles",
  other: "service.groupOther",
};

const SERIES_KEYS: Record<string, string> = {
  'carebridge_pending_reports{urgency="urgent"}': "service.pendingUrgent",
  'carebridge_pending_reports{urgency="normal"}': "service.pendingNormal",
  carebridge_overdue_reports: "service.overdue",
  carebridge_claims_held: "service.claims",
  'carebridge_sms_messages{state="queued"}': "service.smsQueued",
  'carebridge_sms_messages{state="failed"}': "service.smsFailed",
  'carebridge_mail_messages{state="queued"}': "service.mailQueued",
  'carebridge_mail_messages{state="failed"}': "service.mailFailed",
  carebridge_uploads_in_progress: "service.uploads",
};

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="card min-w-0 max-sm:px-3">
      <h2 id={id} className="mb-3 text-lg font-bold text-slate-900">
        {title}
      </h2>
      {children}
    </section>
  );
}

export default function Service() {
  const { t } = useTranslation();
  const { hours, latency, queueSeries, queues, turnaround, backups, intro, unit, steps, work } =
    useLoaderData<typeof loader>();
  const inUnit = (ms: number | null) => (ms === null ? null : ms / unit.ms);
  const ms = (v: number | null) =>
    v === null ? t("service.notAvailable") : t("service.ms", { value: Math.round(v) });
  const dur = (v: number | null) => (v === null ? t("service.notAvailable") : formatDuration(v, t));
  const total = hours.reduce((a, h) => a + h.total, 0);
  const last = turnaround[turnaround.length - 1];
  return (
    <div className="space-y-6">
      <PageHeader title={t("service.title")} intro={intro} />

      <BackupsSection data={backups} />

      <Section id="service-requests" title={t("service.requestsTitle")}>
        <StackedBars
          testId="chart-requests"
          title={t("service.requestsTitle")}
          desc={t("service.requestsDesc", {
            total,
            clientErrors: hours.reduce((a, h) => a + h["4xx"], 0),
            serverErrors: hours.reduce((a, h) => a + h["5xx"], 0),
            peak: Math.max(0, ...hours.map((h) => h.total)),
          })}
          tickEvery={12}
          bars={hours.map((h) => ({
            label: h.tick,
            parts: [
              { key: "ok", value: h.ok },
              { key: "clientErrors", value: h["4xx"] },
              { key: "serverErrors", value: h["5xx"] },
            ],
          }))}
        />
        <Legend
          items={[
            { key: "ok", label: t("service.ok") },
            { key: "clientErrors", label: t("service.clientErrors") },
            { key: "serverErrors", label: t("service.serverErrors") },
          ]}
        />
        <FiguresTable
          testId="table-requests"
          summary={t("service.showTable")}
          caption={t("service.requestsTitle")}
          head={[
            t("service.hour"),
            t("service.total"),
            t("service.ok"),
            t("service.clientErrors"),
            t("service.serverErrors"),
          ]}
          rows={hours
            .filter((h) => h.total > 0)
            .reverse()
            .map((h) => [h.label, h.total, h.ok, h["4xx"], h["5xx"]])}
        />
        {total === 0 && <p className="mt-2 text-slate-700">{t("service.noData")}</p>}
      </Section>

      <Section id="service-latency" title={t("service.latencyTitle")}>
        <PairedBars
          testId="chart-latency"
          title={t("service.latencyTitle")}
          desc={t("service.latencyDesc")}
          groups={latency.map((g) => ({
            label: t(GROUP_KEYS[g.group]),
            a: { value: g.p50Ms, text: ms(g.p50Ms) },
            b: { value: g.p99Ms, text: ms(g.p99Ms) },
          }))}
        />
        <Legend
          items={[
            { key: "p50", label: t("service.p50") },
            { key: "p99", label: t("service.p99") },
          ]}
        />
        <p className="mt-2 max-w-prose text-sm text-slate-700">{t("service.latencyNote")}</p>
        <FiguresTable
          testId="table-latency"
          summary={t("service.showTable")}
          caption={t("service.latencyTitle")}
          head={[t("service.group"), t("service.requests"), t("service.p50"), t("service.p99")]}
          rows={latency.map((g) => [t(GROUP_KEYS[g.group]), g.requests, ms(g.p50Ms), ms(g.p99Ms)])}
        />
      </Section>

      <Section id="service-queues" title={t("service.queuesTitle")}>
        <p className="mb-3 max-w-prose text-sm text-slate-700">{t("service.queuesNote")}</p>
        <ul className="grid grid-cols-1 gap-4 md:grid-cols-2" data-testid="chart-queues">
          {queueSeries.map((name) => {
            const values = queues.map((q) => q.values[name] ?? null);
            const known = values.filter((v): v is number => v !== null);
            const latest = known.length ? String(known[known.length - 1]) : t("service.notAvailable");
            const max = known.length ? String(Math.max(...known)) : t("service.notAvailable");
            const label = t(SERIES_KEYS[name] ?? name);
            return (
              <li key={name} className="min-w-0">
                <p className="flex flex-wrap justify-between gap-x-3 text-sm">
                  <span className="font-semibold text-slate-900">{label}</span>
                  <span className="text-slate-700 tabular-nums">
                    {t("service.latest", { value: latest })} · {t("service.highest", { value: max })}
                  </span>
                </p>
                <Spark
                  title={label}
                  desc={t("service.queuesDesc", { name: label, latest, max })}
                  values={values}
                />
              </li>
            );
          })}
        </ul>
        <FiguresTable
          testId="table-queues"
          summary={t("service.showTable")}
          caption={t("service.queuesTitle")}
          head={[t("service.hour"), ...queueSeries.map((n) => t(SERIES_KEYS[n] ?? n))]}
          rows={queues
            .filter((q) => Object.values(q.values).some((v) => v !== null))
            .reverse()
            .map((q) => [q.label, ...queueSeries.map((n) => q.values[n] ?? t("service.notAvailable"))])}
        />
      </Section>

      <Section id="service-turnaround" title={t("service.turnaroundTitle")}>
        <Lines
          testId="chart-turnaround"
          title={t("service.turnaroundTitle")}
          desc={t("service.turnaroundDesc", {
            median: dur(last?.medianMs ?? null),
            p90: dur(last?.p90Ms ?? null),
          })}
          labels={turnaround.map((w) => w.tick)}
          tickEvery={3}
          unit={unit.label}
          series={[
            { key: "median", values: turnaround.map((w) => inUnit(w.medianMs)) },
            { key: "p90", values: turnaround.map((w) => inUnit(w.p90Ms)), dashed: true },
          ]}
        />
        <Legend
          items={[
            { key: "median", label: t("service.median"), line: true },
            { key: "p90", label: t("service.p90"), dashed: true },
          ]}
        />
        <FiguresTable
          testId="table-turnaround"
          summary={t("service.showTable")}
          caption={t("service.turnaroundTitle")}
          head={[t("service.week"), t("service.reviewed"), t("service.median"), t("service.p90")]}
          rows={[...turnaround].reverse().map((w) => [w.label, w.reviewed, dur(w.medianMs), dur(w.p90Ms)])}
        />
      </Section>

      <StepsSection steps={steps} />
      <BackgroundWorkSection kinds={work.kinds} dead={work.dead} />
    </div>
  );
}
