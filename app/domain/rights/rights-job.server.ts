import { and, eq, lte } from "drizzle-orm";
import { config } from "~/config.server";
import { db, runExclusive } from "~/db/client.server";
import { rightsRequests } from "~/db/schema";
import { log } from "~/lib/log.server";
import { auditInsert, defineSchedule, pruneAuditBefore } from "../platform/index.server";
import { pruneMailMessages, pruneSmsMessages } from "../messaging/index.server";
import { pruneCalls } from "../calls/index.server";
import { eraseOne } from "./erasure.server";

// ---------------------------------------------------------------------------------------------
// The job: due erasures and the audit retention

/** Carries out every erasure whose notice has run out; returns how many. */
export async function runDueErasures(now = new Date()): Promise<number> {
  let done = 0;
  for (;;) {
    const due = await db()
      .select({ id: rightsRequests.id, userId: rightsRequests.userId })
      .from(rightsRequests)
      // rights_requests_due_idx (type, status, due_at)
      .where(
        and(
          eq(rightsRequests.type, "erasure"),
          eq(rightsRequests.status, "open"),
          lte(rightsRequests.dueAt, now),
        ),
      )
      .limit(50);
    if (!due.length) return done;
    let progressed = false;
    for (const r of due) {
      try {
        if (await eraseOne(r, now)) {
          done++;
          progressed = true;
        }
      } catch (err) {
        log("error", "erasure failed", { request: r.id, error: String(err) });
      }
    }
    if (!progressed) return done;
  }
}

/** Removes audit events older than AUDIT_RETENTION_DAYS (at least a year); returns how many. */
export async function pruneAuditEvents(now = Date.now()): Promise<number> {
  const cutoff = new Date(now - config().auditRetentionMs);
  const n = await pruneAuditBefore(cutoff);
  if (n) {
    await auditInsert(db(), null, "account.audit_prune", "audit", null, {
      removed: n,
      before: cutoff.toISOString(),
    });
  }
  return n;
}

let running = false;

/** The rights job (start-up and every RIGHTS_JOB_SECONDS): one node at a time, one run at a time. */
export async function rightsJob(): Promise<void> {
  if (running) return;
  running = true;
  try {
    await runExclusive("rights", async () => {
      const erased = await runDueErasures();
      if (erased) log("info", "erasures carried out", { count: erased });
      await pruneAuditEvents();
      const sms = await pruneSmsMessages();
      await pruneCalls();
      if (sms) log("info", "old sms removed", { count: sms });
      const mail = await pruneMailMessages();
      if (mail) log("info", "old mail rows removed", { count: mail });
    });
  } finally {
    running = false;
  }
}

/**
 * The rights job on the runner's clock (decision 0113): at each process's start, then once every
 * RIGHTS_JOB_SECONDS for the whole cluster (the period's job is one, whichever node asks).
 */
const rightsSchedule = defineSchedule("rights", {
  run: () => rightsJob(),
  everyMs: () => config().rightsJobMs,
  lookMs: () => config().rightsJobMs,
  atStart: true,
});

/** Starts this process's rights schedule (owner processes). */
export function startRightsJob(): void {
  rightsSchedule.start();
}

export function stopRightsJob(): Promise<void> {
  return rightsSchedule.stop();
}
