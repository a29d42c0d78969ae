import { and, count, eq, gt, isNull } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { reports, smsMessages, uploadSessions } from "~/db/schema";
import { overdueCondition } from "../consultation/reports.server";
import { mailQueue } from "../messaging/mail.server";

/** One product figure as Prometheus shows it (and the Service screen draws it). */
export type Gauge = { name: string; help: string; labels?: Record<string, string>; value: number };

/**
 * The product's own gauges, for /metrics (decision 0033) and the admin's Service screen: how much
 * work waits and whether messages are getting out. Each is a COUNT today, served by the queue and
 * status indexes; callers cache the answer (the metrics server for ~10 s, in one process per node),
 * so a scrape never costs these per worker.
 *
 * Maintained counters would plug in here: where the lists keep a running count of pending reports
 * by priority, read that row instead of the first COUNT below (the others are small tables).
 */
export async function productGauges(): Promise<Gauge[]> {
  const now = Date.now();
  const [pending, overdue, claims, sms, uploads] = await Promise.all([
    db()
      .select({ priority: reports.priority, n: count() })
      .from(reports)
      .where(eq(reports.status, "Pending"))
      .groupBy(reports.priority),
    first(db().select({ n: count() }).from(reports).where(overdueCondition(now))),
    first(
      db()
        .select({ n: count() })
        .from(reports)
        .where(and(eq(reports.status, "Pending"), gt(reports.claimExpiresAt, new Date(now)))),
    ),
    db().select({ status: smsMessages.status, n: count() }).from(smsMessages).groupBy(smsMessages.status),
    first(db().select({ n: count() }).from(uploadSessions).where(isNull(uploadSessions.reportId))),
  ]);
  const urgent = pending.filter((r) => r.priority === 0).reduce((a, r) => a + r.n, 0);
  const normal = pending.filter((r) => r.priority !== 0).reduce((a, r) => a + r.n, 0);
  const smsIn = (state: string) => sms.filter((r) => r.status === state).reduce((a, r) => a + r.n, 0);
  const mail = mailQueue();
  const pendingHelp = "Reports waiting for an opinion, by urgency.";
  const smsHelp = "SMS in the outbox: queued (waiting or retrying) and failed (given up).";
  const mailHelp = "Mail of this process: queued (being sent) and failed since it started.";
  return [
    { name: "carebridge_pending_reports", help: pendingHelp, labels: { urgency: "urgent" }, value: urgent },
    { name: "carebridge_pending_reports", help: pendingHelp, labels: { urgency: "normal" }, value: normal },
    {
      name: "carebridge_overdue_reports",
      help: "Pending reports past their turnaround target.",
      value: overdue?.n ?? 0,
    },
    {
      name: "carebridge_claims_held",
      help: "Pending reports an expert has claimed (claim not yet lapsed).",
      value: claims?.n ?? 0,
    },
    {
      name: "carebridge_sms_messages",
      help: smsHelp,
      labels: { state: "queued" },
      value: smsIn("queued") + smsIn("sending"),
    },
    { name: "carebridge_sms_messages", help: smsHelp, labels: { state: "failed" }, value: smsIn("failed") },
    { name: "carebridge_mail_messages", help: mailHelp, labels: { state: "queued" }, value: mail.queued },
    { name: "carebridge_mail_messages", help: mailHelp, labels: { state: "failed" }, value: mail.failed },
    {
      name: "carebridge_uploads_in_progress",
      help: "Resumable uploads begun and not yet finished.",
      value: uploads?.n ?? 0,
    },
  ];
}
