import { count, isNull } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { uploadSessions } from "~/db/schema";
import { diskSpace } from "~/storage/disk.server";
import { queueCounts, stepGaugeValues } from "../consultation/index.server";
import { mailQueue } from "../messaging/index.server";
import { COUNT_KEYS, jobFigures, listCountsOf } from "../platform/index.server";
import { lastVerifiedBackup } from "./backups.server";

/** One product figure as Prometheus shows it (and the Service screen draws it). */
export type Gauge = { name: string; help: string; labels?: Record<string, string>; value: number };

/**
 * The product's own gauges, for /metrics (decision 0033) and the admin's Service screen: how much
 * work waits and whether messages are getting out. Callers cache the answer (the metrics server for ~10 s, in one process per node),
 * so a scrape never costs these per worker.
 *
 * Pending reports by urgency, overdue and held claims are the Turnaround screen's own queue counts
 * (counters and short index walks, decision 0046); the SMS outbox by state is read from the lists'
 * counters (decision 0031), the mail outbox (decision 0061) and unfinished uploads from small tables.
 * Background jobs have the same figures for every kind (decision 0113).
 */
export async function productGauges(): Promise<Gauge[]> {
  const now = Date.now();
  const [counted, queue, uploads, mail, verified, jobs, steps] = await Promise.all([
    listCountsOf([
      COUNT_KEYS.smsOfStatus("queued"),
      COUNT_KEYS.smsOfStatus("sending"),
      COUNT_KEYS.smsOfStatus("failed"),
    ]),
    queueCounts(null, now),
    first(db().select({ n: count() }).from(uploadSessions).where(isNull(uploadSessions.reportId))),
    mailQueue(),
    lastVerifiedBackup(),
    jobFigures(now),
    stepGaugeValues(now),
  ]);
  const [smsQueued, smsSending, smsFailed] = counted;
  const [urgent, normal] = queue.waitingByPriority;
  const pendingHelp = "Reports waiting for an opinion, by urgency.";
  const smsHelp = "SMS in the outbox: queued (waiting or retrying) and failed (given up).";
  const mailHelp = "Mail in the outbox: queued (waiting, retrying or being sent) and failed (given up).";
  return [
    { name: "carebridge_pending_reports", help: pendingHelp, labels: { urgency: "urgent" }, value: urgent },
    { name: "carebridge_pending_reports", help: pendingHelp, labels: { urgency: "normal" }, value: normal },
    {
      name: "carebridge_overdue_reports",
      help: "Pending reports past their turnaround target.",
      value: queue.overdue,
    },
    {
      name: "carebridge_claims_held",
      help: "Pending reports an expert has claimed (claim not yet lapsed).",
      value: queue.inReview,
    },
    {
      name: "carebridge_sms_messages",
      help: smsHelp,
      labels: { state: "queued" },
      value: smsQueued + smsSending,
    },
    { name: "carebridge_sms_messages", help: smsHelp, labels: { state: "failed" }, value: smsFailed },
    { name: "carebridge_mail_messages", help: mailHelp, labels: { state: "queued" }, value: mail.queued },
    { name: "carebridge_mail_messages", help: mailHelp, labels: { state: "failed" }, value: mail.failed },
    {
      name: "carebridge_uploads_in_progress",
      help: "Resumable uploads begun and not yet finished.",
      value: uploads?.n ?? 0,
    },
    {
      // Decision 0067: 0 until the first verified backup; the alert fires when it is over 26 hours old.
      name: "carebridge_backup_last_verified_timestamp_seconds",
      help: "When the newest verified backup finished (Unix time; 0: none yet).",
      value: verified ? Math.floor(verified.getTime() / 1000) : 0,
    },
    // An opinion's next steps (decision 0114), on the clinic's calendar.
    {
      name: "carebridge_next_steps_due_week",
      help: "Next steps due this week (Monday to Sunday, the clinic's calendar), open or closed.",
      value: steps.dueThisWeek,
    },
    {
      name: "carebridge_next_steps_closed_week",
      help: "Next steps due this week already closed (done, visited, declined or unreachable).",
      value: steps.closedThisWeek,
    },
    {
      name: "carebridge_next_steps_overdue",
      help: "Open next steps past their due date.",
      value: steps.overdue,
    },
    {
      name: "carebridge_next_steps_on_time_ratio",
      help: "Share of last week's next steps closed by their due date (0 to 1).",
      value: steps.lastWeekOnTimeShare,
    },
    ...jobGauges(jobs),
    ...(await diskSpace().catch(() => [])).map((d) => ({
      name: "carebridge_disk_free_bytes",
      help: "Free space where this node keeps its database and files (DISK_LOW_MB, DISK_RESERVE_MB).",
      labels: { part: d.part },
      value: d.freeBytes,
    })),
  ];
}

/** The runner's figures, the same for every kind (decision 0113). */
function jobGauges(figures: Awaited<ReturnType<typeof jobFigures>>): Gauge[] {
  const jobsHelp =
    "Background jobs by kind: queued (waiting or retrying), running, dead (given up, kept for an admin).";
  const ageHelp = "Age of the oldest queued background job of each kind (0: none waiting).";
  const failHelp =
    "Failed attempts of the background jobs kept, by kind (finished jobs are pruned after 7 days).";
  return figures.flatMap((f) => [
    ...(["queued", "running", "dead"] as const).map((state) => ({
      name: "carebridge_jobs",
      help: jobsHelp,
      labels: { kind: f.kind, state },
      value: f[state],
    })),
    {
      name: "carebridge_job_oldest_waiting_seconds",
      help: ageHelp,
      labels: { kind: f.kind },
      value: f.oldestWaitingSeconds,
    },
    { name: "carebridge_job_failed_attempts", help: failHelp, labels: { kind: f.kind }, value: f.failures },
  ]);
}
