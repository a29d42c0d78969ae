import { count, desc } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { phoneCalls } from "~/db/schema";
import { maskPhone } from "~/lib/phone.server";
import { newestFirstWindow, type Actor } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import type { Paged, PageQuery } from "../platform/paging";

/**
 * What admins see of phone calls (decision 0080): missed calls and the calls placed, newest first —
 * when, the number masked, what for, what happened, how long. Never whose profile, never content.
 */
export type ApiPhoneCall = {
  _id: string;
  direction: "in" | "out";
  /** Masked: country code and the last 4 digits. */
  number: string;
  purpose: string;
  status: string;
  outcome: string | null;
  attempts: number;
  durationMs: number | null;
  lastError: string | null;
  createdAt: string;
  endedAt: string | null;
};

export async function listPhoneCalls(actor: Actor, query: PageQuery): Promise<Paged<ApiPhoneCall>> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "messages.adminsOnly");
  const total = (await first(db().select({ n: count() }).from(phoneCalls)))?.n ?? 0;
  const win = newestFirstWindow(query, phoneCalls.createdAt, phoneCalls.id);
  const read = await db()
    .select()
    .from(phoneCalls)
    .where(win.after)
    .orderBy(desc(phoneCalls.createdAt), desc(phoneCalls.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows, nextCursor } = win.cut(read, (r) => r);
  return {
    nextCursor,
    total,
    page: query.page,
    pageSize: query.pageSize,
    items: rows.map((r) => ({
      _id: r.id,
      direction: r.direction === "in" ? "in" : "out",
      number: maskPhone(r.number),
      purpose: r.purpose,
      status: r.status,
      outcome: r.outcome,
      attempts: r.attempts,
      durationMs: r.durationMs,
      lastError: r.lastError,
      createdAt: r.createdAt.toISOString(),
      endedAt: r.endedAt ? r.endedAt.toISOString() : null,
    })),
  };
}
