import { and, eq, inArray, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { smsMessages } from "~/db/schema";
import { SMS_PURPOSES, SMS_STATUSES } from "~/db/types";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { maskPhone } from "~/lib/phone.server";
import { backgroundLoop } from "../platform/index.server";
import { GatewayError, sendThroughGateway, writeToOutbox } from "./sms-delivery.server";

export { maskPhone };

/**
 * Outgoing SMS (decision 0014). `queueSms` adds a row to the persisted queue (table
 * sms_messages) and kicks this process's sender; a request never waits for the gateway. The
 * sender runs in every serving process (started by startup.server.ts): it claims one due row at a
 * time with one conditional update, so several processes and nodes never send a row twice, sends
 * it through Kannel's sendsms interface (SMS_URL) or, unset, writes it to data/sms-outbox/, and
 * retries failures with backoff until the last attempt marks it failed for the admins to see.
 * The text is never logged and never shown to anyone: it may hold a sign-in code.
 *
 * This module: the queue and the sender. Beside it: sms-segments.server.ts (what a text costs),
 * sms-delivery.server.ts (the gateway and the outbox folder), sms-retention.server.ts (erasure and
 * pruning) and sms-admin.server.ts (what admins see).
 */
/** "erased": the last message to an erased person — the row is deleted once sent (or given up), never kept. */
export type SmsPurpose = (typeof SMS_PURPOSES)[number];

export type SmsStatus = (typeof SMS_STATUSES)[number];

export async function queueSms(message: { to: string; text: string; purpose: SmsPurpose }): Promise<void> {
  await db().insert(smsMessages).values({
    id: newId(),
    to: message.to,
    text: message.text,
    purpose: message.purpose,
    status: "queued",
    nextAttemptAt: new Date(),
  });
  kickSmsSender();
}

// ---------------------------------------------------------------------------------------------
// The sender

/** Waits after the 1st, 2nd … failed attempt; after the attempt that follows the last wait, failed. */
export const SMS_BACKOFF_MS: readonly number[] = [
  10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000,
];

/** Code texts are useless once the code has expired: such a message is not sent after this long. */
const CODE_PURPOSES: readonly string[] = [
  "signup-code",
  "login-code",
  "reset-code",
  "takeover-code",
  "proof-code",
];

type SenderSettings = {
  /** Waits between attempts; attempts in all = backoffMs.length + 1. */
  backoffMs: readonly number[];
  /** How often every process looks for due rows (besides the kick of `queueSms`). */
  pollMs: number;
  /** How long a claimed row is held; a sender that died holding it gives it up after this. */
  lockMs: number;
  /** The gateway must answer within this. */
  timeoutMs: number;
  /** A code message still unsent this long after it was queued is marked failed instead. */
  codeMaxAgeMs: number;
};

const DEFAULTS: SenderSettings = {
  backoffMs: SMS_BACKOFF_MS,
  pollMs: 5_000,
  lockMs: 60_000,
  timeoutMs: 10_000,
  codeMaxAgeMs: 15 * 60_000,
};
let settings: SenderSettings = { ...DEFAULTS };

/**
 * For tests only: shorter waits (e.g. `{ backoffMs: [50, 100], pollMs: 200 }`); no argument
 * restores the defaults. Applies to this process's sender from its next round.
 */
export function configureSmsSender(overrides?: Partial<SenderSettings>): void {
  settings = { ...DEFAULTS, ...overrides };
  sender.repoll(settings.pollMs);
}

const sender = backgroundLoop("sms sender", (stopping) => processSmsQueue(stopping));

/** Starts this process's background sender (idempotent): a poll every few seconds plus kicks. */
export function startSmsSender(): void {
  sender.start(settings.pollMs);
}

/** Makes the sender look for due rows now (no-op where no sender runs, e.g. a script). */
export function kickSmsSender(): void {
  sender.kick();
}

/** Stops the sender: no new claims; waits for the message being sent (bounded by the gateway timeout). */
export function stopSmsSender(): Promise<void> {
  return sender.stop();
}

/** A row may be taken: queued and due, or held by a sender whose hold ran out (it died). */
function dueCondition(now: Date): SQL {
  return or(
    and(eq(smsMessages.status, "queued"), lte(smsMessages.nextAttemptAt, now)),
    and(eq(smsMessages.status, "sending"), lt(smsMessages.lockedUntil, now)),
  )!;
}

type Claimed = typeof smsMessages.$inferSelect;

/**
 * Takes the next due row with ONE conditional update (status → sending, held for lockMs,
 * attempts + 1) and returns it, or undefined. The update repeats the due condition, so of
 * processes racing for one row exactly one gets it back: SQLite runs the statement alone, and
 * PostgreSQL re-checks the condition on the row another transaction just changed.
 */
async function claimNext(now: Date): Promise<Claimed | undefined> {
  const next = db()
    .select({ id: smsMessages.id })
    .from(smsMessages)
    .where(dueCondition(now))
    .orderBy(smsMessages.nextAttemptAt, smsMessages.id)
    .limit(1);
  const [row] = await db()
    .update(smsMessages)
    .set({
      status: "sending",
      lockedUntil: new Date(now.getTime() + settings.lockMs),
      attempts: sql`${smsMessages.attempts} + 1`,
    })
    .where(and(inArray(smsMessages.id, next), dueCondition(now)))
    .returning();
  return row;
}

async function anyDue(now: Date): Promise<boolean> {
  return !!(await first(db().select({ id: smsMessages.id }).from(smsMessages).where(dueCondition(now))));
}

/** Writes the outcome of our attempt, unless our hold ran out and another sender took the row. */
async function settle(row: Claimed, values: Partial<Claimed>): Promise<boolean> {
  const done = await db()
    .update(smsMessages)
    .set(values)
    .where(
      and(
        eq(smsMessages.id, row.id),
        eq(smsMessages.status, "sending"),
        eq(smsMessages.lockedUntil, row.lockedUntil!),
      ),
    )
    .returning({ id: smsMessages.id });
  if (!done.length) log("warn", "sms hold ran out before the outcome was written", { id: row.id });
  return done.length === 1;
}

export type SmsRound = { sent: number; retrying: number; failed: number };

/**
 * Sends every due message, one claim at a time, until none is due (or `stop()` says so). The
 * background sender runs this; tests may call it directly.
 */
export async function processSmsQueue(stop: () => boolean = () => false): Promise<SmsRound> {
  const round: SmsRound = { sent: 0, retrying: 0, failed: 0 };
  let misses = 0;
  while (!stop()) {
    const now = new Date();
    if (!(await anyDue(now))) break;
    const row = await claimNext(now);
    if (!row) {
      // Another process took the row we aimed at; look again (it is not due any more).
      if (++misses > 20) break;
      continue;
    }
    misses = 0;
    round[await deliver(row)]++;
  }
  return round;
}

async function deliver(row: Claimed): Promise<keyof SmsRound> {
  const maxAttempts = settings.backoffMs.length + 1;
  const who = { id: row.id, to: maskPhone(row.to), purpose: row.purpose, attempt: row.attempts };
  const giveUp = async (lastError: string) => {
    if (row.purpose === "erased") await forget(row);
    else await settle(row, { status: "failed", lockedUntil: null, lastError });
    log("error", "sms failed", { ...who, error: lastError });
    return "failed" as const;
  };
  if (row.attempts > maxAttempts) {
    return giveUp(row.lastError ?? "the sender stopped during the last attempt");
  }
  if (CODE_PURPOSES.includes(row.purpose) && Date.now() - row.createdAt.getTime() > settings.codeMaxAgeMs) {
    return giveUp(`${row.lastError ? `${row.lastError}; ` : ""}code expired before it could be sent`);
  }
  try {
    const c = config();
    if (c.smsUrl) await sendThroughGateway(c.smsUrl, row, settings.timeoutMs);
    else writeToOutbox(c.smsOutboxDir, row);
  } catch (err) {
    const lastError = err instanceof GatewayError ? err.message : "could not send (unexpected error)";
    if (!(err instanceof GatewayError))
      log("error", "sms sending threw", { ...who, error: String((err as Error)?.message ?? err) });
    if (row.attempts >= maxAttempts) return giveUp(lastError);
    const wait = settings.backoffMs[row.attempts - 1] ?? settings.backoffMs.at(-1) ?? 0;
    await settle(row, {
      status: "queued",
      lockedUntil: null,
      nextAttemptAt: new Date(Date.now() + wait),
      lastError,
    });
    log("warn", "sms not sent; will retry", { ...who, error: lastError, retryInMs: wait });
    return "retrying";
  }
  if (row.purpose === "erased") await forget(row);
  else await settle(row, { status: "sent", lockedUntil: null, sentAt: new Date() });
  if (config().smsUrl) log("info", "sms sent", who);
  return "sent";
}

/** Deletes a row we hold (the last message to an erased person, sent or given up): nothing of it stays. */
async function forget(row: Claimed) {
  await db()
    .delete(smsMessages)
    .where(
      and(
        eq(smsMessages.id, row.id),
        eq(smsMessages.status, "sending"),
        eq(smsMessages.lockedUntil, row.lockedUntil!),
      ),
    );
}
