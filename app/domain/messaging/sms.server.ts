import { eq } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, first, transaction } from "~/db/client.server";
import { smsMessages } from "~/db/schema";
import { SMS_PURPOSES, SMS_STATUSES } from "~/db/types";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { maskPhone } from "~/lib/phone.server";
import {
  backoffWait,
  defineJobKind,
  type JobContext,
  type JobKindOptions,
  startJobs,
} from "../platform/index.server";
import { GatewayError, sendThroughGateway, writeToOutbox } from "./sms-delivery.server";

export { maskPhone };

/**
 * Outgoing SMS (decision 0014). `queueSms` adds a row to the persisted queue (table
 * sms_messages) and, in the same transaction, asks the runner for its job (kind "sms", decision
 * 0113), then kicks this process's sender; a request never waits for the gateway. The runner runs
 * in every serving process (started by startup.server.ts) and holds a job in one process at a
 * time, so several processes and nodes never send a message twice; the handler sends it through
 * Kannel's sendsms interface (SMS_URL) or, unset, writes it to data/sms-outbox/. Failures wait the
 * runner's backoff until the kind's last attempt, which marks the row failed for the admins to see.
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
  const id = newId();
  await transaction(function* (tx) {
    yield* exec(
      tx.insert(smsMessages).values({
        id,
        to: message.to,
        text: message.text,
        purpose: message.purpose,
        status: "queued",
        nextAttemptAt: new Date(),
      }),
    );
    yield* smsJobs.enqueueSteps(tx, { id }, { key: id });
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
 * The sender is the runner's kind "sms" (decision 0113): its lease, its retries and its cap are
 * the runner's; the row of sms_messages keeps what the admins see (status, attempts, last error,
 * next attempt). As many attempts as the list of waits allows, then the row is failed.
 */
const kindOptions = (s: SenderSettings): JobKindOptions<SmsJob> => ({
  run: (job, ctx) => deliver(job.id, ctx),
  maxAttempts: s.backoffMs.length + 1,
  backoff: s.backoffMs,
  leaseMs: s.lockMs,
  pollMs: s.pollMs,
  onDead: (job, ctx) => giveUp(job.id, ctx.lastError, ctx.attempt),
});

type SmsJob = { id: string };
const smsJobs = defineJobKind<SmsJob>("sms", kindOptions(DEFAULTS));

/**
 * For tests only: shorter waits (e.g. `{ backoffMs: [50, 100], pollMs: 200 }`); no argument
 * restores the defaults. Applies to this process's sender from its next round.
 */
export function configureSmsSender(overrides?: Partial<SenderSettings>): void {
  settings = { ...DEFAULTS, ...overrides };
  smsJobs.configure(kindOptions(settings));
}

/** Starts this process's background sender (idempotent): a poll every few seconds plus kicks. */
export function startSmsSender(): void {
  startJobs([smsJobs.kind]);
}

/** Makes the sender look for due rows now (no-op where no sender runs, e.g. a script). */
export function kickSmsSender(): void {
  smsJobs.kick();
}

/** Stops the sender: no new claims; waits for the message being sent (bounded by the gateway timeout). */
export function stopSmsSender(): Promise<void> {
  return smsJobs.stop();
}

type Row = typeof smsMessages.$inferSelect;

/** Writes to the message's row (gone when the person was erased meanwhile: nothing to write). */
async function update(id: string, values: Partial<Row>): Promise<void> {
  await db().update(smsMessages).set(values).where(eq(smsMessages.id, id));
}

export type SmsRound = { sent: number; retrying: number; failed: number };

/**
 * Sends every due message, one claim at a time, until none is due (or `stop()` says so). The
 * background sender runs this; tests may call it directly.
 */
export async function processSmsQueue(stop: () => boolean = () => false): Promise<SmsRound> {
  const round = await smsJobs.runDue(stop);
  return {
    sent: round.outcomes.sent ?? 0,
    retrying: round.retrying,
    failed: round.dead + (round.outcomes.failed ?? 0),
  };
}

/** The message given up: failed with its reason for the admins, or, the last to an erased person, deleted. */
async function giveUp(id: string, lastError: string, attempt: number): Promise<void> {
  const row = await first(db().select().from(smsMessages).where(eq(smsMessages.id, id)));
  if (!row) return;
  if (row.purpose === "erased") await forget(id);
  else await update(id, { status: "failed", lockedUntil: null, lastError });
  log("error", "sms failed", { id, to: maskPhone(row.to), purpose: row.purpose, attempt, error: lastError });
}

/**
 * One attempt at one message (the job "sms"). A message already settled, or deleted by an erasure,
 * is not sent again (a runner that died after sending leaves its job to be run once more).
 */
async function deliver(id: string, job: JobContext): Promise<string> {
  const row = await first(db().select().from(smsMessages).where(eq(smsMessages.id, id)));
  if (!row || row.status === "sent" || row.status === "failed") return "settled";
  const who = { id: row.id, to: maskPhone(row.to), purpose: row.purpose, attempt: job.attempt };
  if (CODE_PURPOSES.includes(row.purpose) && Date.now() - row.createdAt.getTime() > settings.codeMaxAgeMs) {
    await giveUp(
      id,
      `${row.lastError ? `${row.lastError}; ` : ""}code expired before it could be sent`,
      job.attempt,
    );
    return "failed";
  }
  await update(id, { status: "sending", attempts: job.attempt, lockedUntil: null });
  try {
    const c = config();
    if (c.smsUrl) await sendThroughGateway(c.smsUrl, row, settings.timeoutMs);
    else writeToOutbox(c.smsOutboxDir, row);
  } catch (err) {
    const lastError = err instanceof GatewayError ? err.message : "could not send (unexpected error)";
    if (!(err instanceof GatewayError))
      log("error", "sms sending threw", { ...who, error: String((err as Error)?.message ?? err) });
    if (job.attempt < job.maxAttempts) {
      const wait = backoffWait(settings.backoffMs, job.attempt);
      await update(id, { status: "queued", nextAttemptAt: new Date(Date.now() + wait), lastError });
      log("warn", "sms not sent; will retry", { ...who, error: lastError, retryInMs: wait });
    }
    throw new Error(lastError);
  }
  if (row.purpose === "erased") await forget(id);
  else await update(id, { status: "sent", lockedUntil: null, sentAt: new Date() });
  if (config().smsUrl) log("info", "sms sent", who);
  return "sent";
}

/** Deletes a message (the last message to an erased person, sent or given up): nothing of it stays. */
async function forget(id: string) {
  await db().delete(smsMessages).where(eq(smsMessages.id, id));
}
