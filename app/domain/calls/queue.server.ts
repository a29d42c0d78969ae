import { and, count, eq, gte, inArray, lt, lte, sql, type SQL } from "drizzle-orm";
import type { CallWindowName } from "~/config-phone-line.server";
import { config } from "~/config.server";
import { affected, db, exec, first, transaction, type DB, type TxSteps } from "~/db/client.server";
import { phoneCalls, type PhoneCallRow } from "~/db/schema";
import { wallClock, zonedInstant } from "~/lib/clock";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { callableNumber, maskPhone } from "~/lib/phone.server";
import { defineJobKind, type JobContext } from "../platform/index.server";

/**
 * The call queue (decision 0080): a call CareBridge will place is a row of `phone_calls`, like an
 * SMS in the SMS outbox, and each time it falls due is a job of the one runner (kind "phone-call",
 * decision 0113) keyed by the call and that time, asked for with the row (`callJobKey`); the
 * sender (sender.server.ts) is the kind's handler. Other contexts ask for a call with `queueCall`
 * and nothing else (decision 0118). This module only adds rows and their jobs and
 * answers the questions asked before adding one: may this number be called (the country
 * allow-list), is a call to it already waiting, has it had its calls for the day, and when does the
 * person's window open. It never holds what a call says.
 */

export type CallPurpose = "callback" | "opinion-ready" | "general" | "step-reminder";

export type QueuedCall =
  | { queued: true; id: string; at: Date }
  | { queued: false; reason: "not-callable" | "already-queued" | "over-budget" };

const DAY = 86_400_000;

/**
 * The start of the next `window` at or after `from`, in the clinic's time (CLINIC_TIME_ZONE,
 * decision 0092) whatever the server's own zone; `from` itself when inside it.
 */
export function nextWindowStart(window: CallWindowName | null, from = new Date()): Date {
  if (!window) return from;
  const { voice, clinic } = config();
  const [startHour, endHour] = voice.windows[window];
  const now = wallClock(from.getTime(), clinic.timeZone);
  const hour = now.hour + now.minute / 60;
  if (hour >= startHour && hour < endHour) return from;
  const day = hour >= endHour ? now.day + 1 : now.day;
  return new Date(zonedInstant(clinic.timeZone, { ...now, day, hour: startHour, minute: 0 }));
}

/** Calls queued to be placed (any status) in the last 24 hours that match `where`. */
async function outgoingToday(where: SQL, now = new Date()): Promise<number> {
  const row = await first(
    db()
      .select({ n: count() })
      .from(phoneCalls)
      .where(
        and(eq(phoneCalls.direction, "out"), gte(phoneCalls.createdAt, new Date(now.getTime() - DAY)), where),
      ),
  );
  return row?.n ?? 0;
}

/**
 * Adds a call to the queue, due at `at` (the callback delay, or the window's start). One call per
 * number waits at a time (several missed calls bring one callback); VOICE_PER_NUMBER_DAY calls per
 * number a day; only numbers of the allow-list. Returns what it did; never throws for these refusals.
 */
export async function queueCall(call: {
  number: string;
  patientId: string | null;
  purpose: CallPurpose;
  locale: string;
  at: Date;
  /** A next step's reminder call: the step (decision 0115). */
  stepId?: string | null;
}): Promise<QueuedCall> {
  const callable = callableNumber(call.number);
  if (!callable.ok) {
    log("info", "call not queued: number may not be called", {
      to: maskPhone(call.number),
      reason: callable.reason,
    });
    return { queued: false, reason: "not-callable" };
  }
  const number = callable.e164;
  const waiting = await first(
    db()
      .select({ id: phoneCalls.id, stepId: phoneCalls.stepId, at: phoneCalls.nextAttemptAt })
      .from(phoneCalls)
      .where(
        and(
          eq(phoneCalls.number, number),
          eq(phoneCalls.direction, "out"),
          inArray(phoneCalls.status, ["queued", "calling"]),
        ),
      ),
  );
  // The same step's reminder asked again (a runner's second run of one job): that call, once.
  if (waiting && call.stepId && waiting.stepId === call.stepId)
    return { queued: true, id: waiting.id, at: waiting.at };
  if (waiting) return { queued: false, reason: "already-queued" };
  const now = new Date();
  if ((await outgoingToday(eq(phoneCalls.number, number), now)) >= config().voice.perNumberDay) {
    log("warn", "call not queued: the number had its calls for today", {
      to: maskPhone(number),
      purpose: call.purpose,
    });
    return { queued: false, reason: "over-budget" };
  }
  const id = newId();
  await transaction(function* (tx) {
    yield* exec(
      tx.insert(phoneCalls).values({
        id,
        direction: "out",
        number,
        patientId: call.patientId,
        purpose: call.purpose,
        locale: call.locale,
        status: "queued",
        nextAttemptAt: call.at,
        stepId: call.stepId ?? null,
      }),
    );
    yield* callJobs.enqueueSteps(tx, { callId: id }, { key: callJobKey(id, call.at), runAt: call.at });
  });
  callJobs.kick();
  return { queued: true, id, at: call.at };
}

/** Records a call that came in (a missed call): what was decided is its outcome. */
export async function recordIncomingCall(call: {
  number: string;
  patientId: string | null;
  outcome: string;
  providerRef?: string | null;
  /** A refused call's account of why (decision 0101: the address it came from). */
  note?: string | null;
}): Promise<string> {
  const id = newId();
  const now = new Date();
  await db()
    .insert(phoneCalls)
    .values({
      id,
      direction: "in",
      number: call.number,
      patientId: call.patientId,
      purpose: "missed-call",
      status: "done",
      outcome: call.outcome,
      nextAttemptAt: now,
      endedAt: now,
      durationMs: 0,
      providerRef: call.providerRef ?? null,
      lastError: call.note ?? null,
    })
    .onConflictDoNothing();
  return id;
}

/** Missed calls refused (decision 0101) in the last 24 hours, by outcome. */
export async function refusedCallsToday(now = new Date()): Promise<Record<string, number>> {
  const rows = await db()
    .select({ outcome: phoneCalls.outcome, n: count() })
    .from(phoneCalls)
    .where(
      and(
        eq(phoneCalls.direction, "in"),
        gte(phoneCalls.createdAt, new Date(now.getTime() - DAY)),
        sql`${phoneCalls.outcome} like 'refused-%'`,
      ),
    )
    .groupBy(phoneCalls.outcome);
  return Object.fromEntries(rows.map((r) => [r.outcome ?? "", Number(r.n)]));
}

/** Unknown callers answered in the last 24 hours (their general message calls). */
export function unknownCallsToday(now = new Date()): Promise<number> {
  return outgoingToday(eq(phoneCalls.purpose, "general"), now);
}

// ---------------------------------------------------------------------------------------------
// The call's jobs (decision 0113)

export const CALL_KIND = "phone-call";

/** A call's job: place it (or, `givenUp`, record that it failed for good: the job dies at once). */
export type CallJob = { callId: string; givenUp?: boolean };

/** One job per call and time it falls due: a retry or a deferral is the next job of the same call. */
export function callJobKey(callId: string, due: Date): string {
  return `${callId}@${due.getTime()}`;
}

let place: (job: CallJob, ctx: JobContext) => Promise<string> = async () => {
  throw new Error("no call sender in this process");
};

/** The sender registers its handler (sender.server.ts, which asks for calls' jobs through this module). */
export function onPlaceCall(handler: (job: CallJob, ctx: JobContext) => Promise<string>): void {
  place = handler;
}

/**
 * The kind: a call's own retries (no answer, busy) are the call's next jobs, up to VOICE_ATTEMPTS;
 * these attempts are for a handler that failed (the database away): three, then dead.
 */
export const callJobs = defineJobKind<CallJob>(CALL_KIND, {
  run: (job, ctx) => place(job, ctx),
  maxAttempts: 3,
  backoff: [30_000, 120_000],
  leaseMs: 60_000,
});

/** Asks for the job of a call due at `due` (the same call and time asked again is the same job). */
export async function askForCall(callId: string, due: Date): Promise<void> {
  await callJobs.enqueue({ callId }, { key: callJobKey(callId, due), runAt: due });
}

/** A call queued and due with no job (a row from before the runner, or written by hand) gets one. */
export async function askForDueCalls(now = new Date()): Promise<number> {
  const due = await db()
    .select({ id: phoneCalls.id, at: phoneCalls.nextAttemptAt })
    .from(phoneCalls)
    .where(
      and(
        eq(phoneCalls.direction, "out"),
        eq(phoneCalls.status, "queued"),
        lte(phoneCalls.nextAttemptAt, now),
      ),
    );
  for (const c of due) await askForCall(c.id, c.at);
  return due.length;
}

/** Calls being placed whose hold ran out (their process died, or a provider's report never came). */
export async function abandonedCalls(now = new Date()): Promise<PhoneCallRow[]> {
  return db()
    .select()
    .from(phoneCalls)
    .where(
      and(eq(phoneCalls.direction, "out"), eq(phoneCalls.status, "calling"), lt(phoneCalls.lockedUntil, now)),
    );
}

/**
 * A queued call taken for placing: `calling`, held for `lockMs`, its attempt counted, its last
 * call's state cleared. Undefined when it is not queued (any more).
 */
export async function startPlacing(id: string, lockMs: number): Promise<PhoneCallRow | undefined> {
  const [row] = await db()
    .update(phoneCalls)
    .set({
      status: "calling",
      lockedUntil: new Date(Date.now() + lockMs),
      attempts: sql`${phoneCalls.attempts} + 1`,
      ivrState: null,
      verifiedAt: null,
      answeredAt: null,
    })
    .where(and(eq(phoneCalls.id, id), eq(phoneCalls.status, "queued")))
    .returning();
  return row;
}

/** A queued call put off until `until` (outside the person's window, the hour's ceiling): its next job. */
export async function deferCall(id: string, until: Date): Promise<void> {
  await db()
    .update(phoneCalls)
    .set({ nextAttemptAt: until })
    .where(and(eq(phoneCalls.id, id), eq(phoneCalls.status, "queued")));
  await askForCall(id, until);
}
/** The provider's reference of a call it is placing (its status reports name it). */
export async function noteCallRef(id: string, providerRef: string): Promise<void> {
  await db().update(phoneCalls).set({ providerRef }).where(eq(phoneCalls.id, id));
}

/**
 * A call still being placed (`calling`) changed: its menu state as the person keys, or its end.
 * Whether it was still being placed (a late or repeated report changes nothing).
 */
export async function updateCallingCall(id: string, set: Partial<PhoneCallRow>): Promise<boolean> {
  const done = await db()
    .update(phoneCalls)
    .set(set)
    .where(and(eq(phoneCalls.id, id), eq(phoneCalls.status, "calling")))
    .returning({ id: phoneCalls.id });
  return done.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Erasure and retention (decision 0022): a call's row keeps a number, like an SMS

/** Inside the erasure's transaction: every call to or from the person's numbers goes, whatever its state. */
export function* callErasureSteps(tx: DB, numbers: string[]): TxSteps<void> {
  if (!numbers.length) return;
  yield* exec(tx.delete(phoneCalls).where(inArray(phoneCalls.number, numbers)));
}

/** Settled calls and missed calls older than SMS_RETENTION_DAYS go (the rights job); waiting ones stay. */
export async function pruneCalls(now = Date.now()): Promise<number> {
  const cutoff = new Date(now - config().smsRetentionMs);
  return affected(
    await db()
      .delete(phoneCalls)
      .where(and(lt(phoneCalls.createdAt, cutoff), inArray(phoneCalls.status, ["done", "failed"]))),
  );
}
