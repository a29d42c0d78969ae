import { count, isNull } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { uploadSessions } from "~/db/schema";
import { diskSpace } from "~/storage/disk.server";
import { queueCounts } from "../consultation/index.server";
import { mailQueue } from "../messaging/index.server";
import { COUNT_KEYS, listCountsOf } from "../platform/index.server";
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
 */
export async function productGauges(): Promise<Gauge[]> {
  const now = Date.now();
  const [counted, queue, uploads, mail, verified] = await Promise.all([
    listCountsOf([
      COUNT_KEYS.smsOfStatus("queued"),
      COUNT_KEYS.smsOfStatus("sending"),
      COUNT_KEYS.smsOfStatus("failed"),
    ]),
    queueCounts(null, now),
    first(db().select({ n: count() }).from(uploadSessions).where(isNull(uploadSessions.reportId))),
    mailQueue(),
    lastVerifiedBackup(),
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
    ...(await diskSpace().catch(() => [])).map((d) => ({
      name: "carebridge_disk_free_bytes",
      help: "Free space where this node keeps its database and files (DISK_LOW_MB, DISK_RESERVE_MB).",
      labels: { part: d.part },
      value: d.freeBytes,
    })),
  ];
}
