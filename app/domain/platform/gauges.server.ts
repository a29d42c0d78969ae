import { and, count, eq, gt } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { reports, smsMessages, uploadSessions } from "~/db/schema";
import { overdueCondition } from "../consultation/reports.server";

/**
 * The product's own gauges: how big each queue is right now. The Service screen samples them
 * once a minute (service.server.ts); /metrics serves them too. Mail has no queue in the database
 * (it is sent in the background by the process that made it): this simple version reports 0 for it.
 */
export type Gauge = { name: string; help: string; labels?: Record<string, string>; value: number };

const n = async (query: PromiseLike<{ n: number }[]> & { limit(n: number): PromiseLike<{ n: number }[]> }) =>
  (await first(query))?.n ?? 0;

export async function productGauges(now = Date.now()): Promise<Gauge[]> {
  const pending = (priority: "urgent" | "normal") =>
    n(
      db()
        .select({ n: count() })
        .from(reports)
        .where(
          and(
            eq(reports.status, "Pending"),
            priority === "urgent" ? eq(reports.priority, 0) : gt(reports.priority, 0),
          ),
        ),
    );
  const sms = (status: "queued" | "failed") =>
    n(db().select({ n: count() }).from(smsMessages).where(eq(smsMessages.status, status)));
  const [urgent, normal, overdue, claims, smsQueued, smsFailed, uploads] = await Promise.all([
    pending("urgent"),
    pending("normal"),
    n(db().select({ n: count() }).from(reports).where(overdueCondition(now))),
    n(
      db()
        .select({ n: count() })
        .from(reports)
        .where(and(eq(reports.status, "Pending"), gt(reports.claimExpiresAt, new Date(now)))),
    ),
    sms("queued"),
    sms("failed"),
    n(db().select({ n: count() }).from(uploadSessions)),
  ]);
  return [
    {
      name: "carebridge_pending_reports",
      help: "Reports waiting for an opinion",
      labels: { urgency: "urgent" },
      value: urgent,
    },
    {
      name: "carebridge_pending_reports",
      help: "Reports waiting for an opinion",
      labels: { urgency: "normal" },
      value: normal,
    },
    { name: "carebridge_overdue_reports", help: "Reports past their review target", value: overdue },
    {
      name: "carebridge_claims_held",
      help: "Pending reports an expert holds a live claim on",
      value: claims,
    },
    { name: "carebridge_sms_messages", help: "SMS by state", labels: { state: "queued" }, value: smsQueued },
    { name: "carebridge_sms_messages", help: "SMS by state", labels: { state: "failed" }, value: smsFailed },
    { name: "carebridge_mail_messages", help: "Mail by state", labels: { state: "queued" }, value: 0 },
    { name: "carebridge_mail_messages", help: "Mail by state", labels: { state: "failed" }, value: 0 },
    { name: "carebridge_uploads_in_progress", help: "Resumable uploads not finished", value: uploads },
  ];
}
