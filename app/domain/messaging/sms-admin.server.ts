import { and, count, desc, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { smsMessages } from "~/db/schema";
import { SMS_STATUSES } from "~/db/types";
import { maskPhone } from "~/lib/phone.server";
import type { Actor } from "../platform/index.server";
import { newestFirstWindow } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { COUNT_KEYS, listCount } from "../platform/index.server";
import type { Paged, PageQuery } from "../platform/paging";
import type { SmsStatus } from "./sms.server";

/**
 * What admins see of outgoing SMS (decision 0014): the list, newest first, and the count in each
 * status. Never the text, and the number masked.
 */

export type ApiSmsMessage = {
  _id: string;
  /** Masked: country code and the last 4 digits. */
  to: string;
  purpose: string;
  status: SmsStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
};

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "messages.adminsOnly");
}

/**
 * Admin: outgoing SMS newest first, optionally of one status ("failed": what did not go out).
 * Never the text — it may hold a sign-in code — and the number masked.
 */
export async function listSmsMessages(
  actor: Actor,
  query: PageQuery & { status?: SmsStatus | null },
): Promise<Paged<ApiSmsMessage>> {
  requireAdmin(actor);
  const { page, pageSize, status } = query;
  const where = status ? eq(smsMessages.status, status) : undefined;
  const total = await listCount(status ? COUNT_KEYS.smsOfStatus(status) : COUNT_KEYS.smsAll);
  const win = newestFirstWindow(query, smsMessages.createdAt, smsMessages.id);
  const rowsRead = await db()
    .select({
      id: smsMessages.id,
      to: smsMessages.to,
      purpose: smsMessages.purpose,
      status: smsMessages.status,
      attempts: smsMessages.attempts,
      lastError: smsMessages.lastError,
      createdAt: smsMessages.createdAt,
      sentAt: smsMessages.sentAt,
    })
    .from(smsMessages)
    .where(and(where, win.after))
    .orderBy(desc(smsMessages.createdAt), desc(smsMessages.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows, nextCursor } = win.cut(rowsRead, (r) => r);
  const items = rows.map((r) => ({
    _id: r.id,
    to: maskPhone(r.to),
    purpose: r.purpose,
    status: r.status,
    attempts: r.attempts,
    lastError: r.lastError,
    createdAt: r.createdAt.toISOString(),
    sentAt: r.sentAt ? r.sentAt.toISOString() : null,
  }));
  return {
    nextCursor,
    items,
    total,
    page,
    pageSize,
  };
}

/** Admin: how many messages are in each status (the screen's filter shows the failed count). */
export async function countSmsByStatus(actor: Actor): Promise<Record<SmsStatus, number>> {
  requireAdmin(actor);
  const rows = await db()
    .select({ status: smsMessages.status, n: count() })
    .from(smsMessages)
    .groupBy(smsMessages.status);
  const counts = Object.fromEntries(SMS_STATUSES.map((s) => [s, 0])) as Record<SmsStatus, number>;
  for (const r of rows) if (r.status in counts) counts[r.status] = r.n;
  return counts;
}
