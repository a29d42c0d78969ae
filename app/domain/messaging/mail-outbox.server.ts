import { and, count, eq, inArray, lt } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first, type DB, type TxSteps, exec, transaction } from "~/db/client.server";
import { mailMessages } from "~/db/schema";
import { MAIL_STATUSES } from "~/db/types";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { DomainError } from "../platform/errors";
import {
  backoffWait,
  defineJobKind,
  type JobContext,
  type JobKind,
  startJobs,
} from "../platform/index.server";
import { SmtpError, transmit, type Mail } from "./mail.server";

/**
 * The mail outbox (decision 0061), the SMS outbox's design (decision 0014) for mail: every mail is
 * a row of mail_messages until it is settled. `queueMail` adds one, with its job for the runner
 * (kind "mail", decision 0113) in the same transaction, and kicks this process's sender;
 * `sendMailNow` (a code the person is waiting for) adds one already held by this request and sends
 * it at once, answering 503 when the mail server cannot take it. The runner runs in every serving
 * process and holds a job in one process at a time, so processes and nodes never send a mail
 * twice; failures wait doubling times (MAIL_RETRY_SECONDS, at most an hour) for as many attempts as
 * fit in MAIL_MAX_AGE_HOURS (the kind's cap), then the mail is marked failed. A mail
 * with a code or a link that runs out has `expiresAt` and is never sent after it (expired).
 * Once sent, failed or expired, the subject and bodies are blanked: no code or link stays stored.
 */

/** "erased": the last mail to an erased person — the row is deleted once settled, never kept. */
export type MailPurpose = "code" | "reset-link" | "notice" | "erased";
export type MailStatus = (typeof MAIL_STATUSES)[number];
export type OutgoingMail = Mail & { purpose: MailPurpose; expiresAt?: Date };

/** A sender holds a claimed row this long; one that died holding it gives it up after this. */
const LOCK_MS = 60_000;
/** The longest wait between two attempts. */
const MAX_WAIT_MS = 3_600_000;

type Row = typeof mailMessages.$inferSelect;

const values = (mail: OutgoingMail, now: Date) => ({
  id: newId(),
  to: mail.to,
  subject: mail.subject,
  text: mail.text,
  html: mail.html,
  purpose: mail.purpose,
  expiresAt: mail.expiresAt ?? null,
  nextAttemptAt: now,
  createdAt: now,
});

/** Off the request path: the mail is stored, and this process's sender is told; a failure is retried. */
export async function queueMail(mail: OutgoingMail): Promise<void> {
  const row = values(mail, new Date());
  await transaction(function* (tx) {
    yield* exec(tx.insert(mailMessages).values({ ...row, status: "queued" }));
    yield* mailJobs().enqueueSteps(tx, { id: row.id }, { key: row.id });
  });
  kickMailSender();
}

/** How long a person asked to wait before asking for a code again when the mail server is down. */
export function mailRetryAfterSeconds(): number {
  return Math.max(1, Math.ceil(config().mailRetryMs / 1000));
}

/**
 * A code the person is waiting for: stored already held by this request (no sender takes it), and
 * sent at once. When the mail server cannot take it, the row is given up (a later copy of an old
 * code would only confuse), an error is logged, and the request is answered 503 with Retry-After:
 * the person asks again in a moment and gets a new code.
 */
export async function sendMailNow(mail: OutgoingMail): Promise<void> {
  const now = new Date();
  const [row] = await db()
    .insert(mailMessages)
    .values({
      ...values(mail, now),
      status: "sending",
      attempts: 1,
      lockedUntil: new Date(now.getTime() + LOCK_MS),
    })
    .returning();
  try {
    await transmit(row);
  } catch (err) {
    const lastError = err instanceof SmtpError ? err.message : "could not send (unexpected error)";
    await settle(row, { status: "failed", lastError }, true);
    log("error", "mail unavailable: a code could not be sent", {
      id: row.id,
      purpose: row.purpose,
      error: lastError,
      ...(err instanceof SmtpError ? {} : { cause: String((err as Error)?.message ?? err) }),
    });
    throw new DomainError("unavailable", "errors.mailUnavailable", {
      retryAfterSeconds: mailRetryAfterSeconds(),
    });
  }
  await done(row, true);
}

// ---------------------------------------------------------------------------------------------
// The sender

/**
 * Attempts in all for a mail: as many as fit in MAIL_MAX_AGE_HOURS with waits doubling from
 * MAIL_RETRY_SECONDS up to an hour (the runner's cap for the kind "mail", decision 0113).
 */
export function mailAttempts(retryMs: number, maxAgeMs: number): number {
  let attempts = 1;
  for (let waited = 0; attempts < 10_000; attempts++) {
    waited += backoffWait({ baseMs: retryMs, maxMs: MAX_WAIT_MS }, attempts);
    if (waited > maxAgeMs) break;
  }
  return attempts;
}

type MailJob = { id: string };
let kind: JobKind<MailJob> | undefined;

/** The runner's kind "mail" (decision 0113), registered at first use: its cap reads the configuration. */
function mailJobs(): JobKind<MailJob> {
  if (kind) return kind;
  const c = config();
  kind = defineJobKind<MailJob>("mail", {
    run: (job, ctx) => deliver(job.id, ctx),
    maxAttempts: mailAttempts(c.mailRetryMs, c.mailMaxAgeMs),
    backoff: { baseMs: c.mailRetryMs, maxMs: MAX_WAIT_MS },
    leaseMs: LOCK_MS,
    pollMs: Math.min(5_000, c.mailRetryMs),
    onDead: (job, ctx) => giveUp(job.id, ctx.lastError, ctx.attempt),
  });
  return kind;
}

/** Starts this process's background sender (idempotent): a poll every few seconds plus kicks. */
export function startMailSender(): void {
  startJobs([mailJobs().kind]);
}

/** Makes the sender look for due rows now (no-op where no sender runs, e.g. a script). */
export function kickMailSender(): void {
  mailJobs().kick();
}

/**
 * Sends what is due now. At shutdown: this process's sender stops polling and finishes its round
 * first, and mail queued by the last requests goes out; what cannot go now stays queued for the
 * next start or another process. Where no sender runs (a script, the domain tests), it is the
 * one way queued mail leaves.
 */
export async function flushMail(): Promise<void> {
  await mailJobs().stop();
  try {
    await processMailQueue();
  } catch (err) {
    log("error", "mail sender failed", { error: String((err as Error)?.message ?? err) });
  }
}

const BLANK = { subject: "", text: "", html: "" };

/**
 * Writes a mail's outcome: settled (sent, failed, expired) blanks it, and deletes the last mail to
 * an erased person; `held` only while this request still holds the row it sends at once.
 */
async function settle(row: Row, set: Partial<Row>, held = false): Promise<void> {
  const where = held
    ? and(
        eq(mailMessages.id, row.id),
        eq(mailMessages.status, "sending"),
        eq(mailMessages.lockedUntil, row.lockedUntil!),
      )
    : eq(mailMessages.id, row.id);
  const settled = set.status !== "queued" && set.status !== "sending";
  const written =
    settled && row.purpose === "erased"
      ? await db().delete(mailMessages).where(where).returning({ id: mailMessages.id })
      : await db()
          .update(mailMessages)
          .set({ ...set, ...(settled ? BLANK : {}), lockedUntil: null })
          .where(where)
          .returning({ id: mailMessages.id });
  if (held && !written.length)
    log("warn", "mail hold ran out before the outcome was written", { id: row.id });
}

const done = (row: Row, held = false) => settle(row, { status: "sent", sentAt: new Date() }, held);

export type MailRound = { sent: number; retrying: number; failed: number; expired: number };

/** Sends every due mail, one claim at a time, until none is due (or `stop()` says so). */
export async function processMailQueue(stop: () => boolean = () => false): Promise<MailRound> {
  const round = await mailJobs().runDue(stop);
  return {
    sent: round.outcomes.sent ?? 0,
    retrying: round.retrying,
    failed: round.dead,
    expired: round.outcomes.expired ?? 0,
  };
}

/** The mail given up after the kind's last attempt: failed with its reason, blank. */
async function giveUp(id: string, lastError: string, attempt: number): Promise<void> {
  const row = await first(db().select().from(mailMessages).where(eq(mailMessages.id, id)));
  if (!row || !["queued", "sending"].includes(row.status)) return;
  await settle(row, { status: "failed", lastError });
  log("error", "mail failed", { id, purpose: row.purpose, attempt, error: lastError });
}

/**
 * One attempt at one mail (the job "mail"). A mail already settled, or deleted by an erasure, is not
 * sent again (a runner that died after sending leaves its job to be run once more).
 */
async function deliver(id: string, job: JobContext): Promise<string> {
  const row = await first(db().select().from(mailMessages).where(eq(mailMessages.id, id)));
  if (!row || !["queued", "sending"].includes(row.status)) return "settled";
  const c = config();
  const who = { id: row.id, purpose: row.purpose, attempt: job.attempt };
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) {
    await settle(row, { status: "expired" });
    log("warn", "mail expired before it could be sent", { ...who, lastError: row.lastError });
    return "expired";
  }
  await settle(row, { status: "sending", attempts: job.attempt });
  try {
    await transmit(row);
  } catch (err) {
    const lastError = err instanceof SmtpError ? err.message : "could not send (unexpected error)";
    if (!(err instanceof SmtpError))
      log("error", "mail sending threw", { ...who, error: String((err as Error)?.message ?? err) });
    if (job.attempt < job.maxAttempts) {
      const wait = backoffWait({ baseMs: c.mailRetryMs, maxMs: MAX_WAIT_MS }, job.attempt);
      await settle(row, { status: "queued", nextAttemptAt: new Date(Date.now() + wait), lastError });
      log(job.attempt === 1 ? "error" : "warn", "mail not sent; will retry", {
        ...who,
        error: lastError,
        retryInMs: wait,
      });
    }
    throw new Error(lastError);
  }
  await done(row);
  if (c.smtpUrl) log("info", "mail sent", who);
  return "sent";
}

// ---------------------------------------------------------------------------------------------
// What admins see, erasure and retention

/** The outbox for /metrics and the Service screen: queued (waiting, retrying or being sent) and failed. */
export async function mailQueue(): Promise<{ queued: number; failed: number }> {
  const rows = await db()
    .select({ status: mailMessages.status, n: count() })
    .from(mailMessages)
    .where(inArray(mailMessages.status, ["queued", "sending", "failed"]))
    .groupBy(mailMessages.status);
  const n = (s: MailStatus) => rows.find((r) => r.status === s)?.n ?? 0;
  return { queued: n("queued") + n("sending"), failed: n("failed") };
}

/** Inside the erasure's transaction: every mail to the person's address goes, whatever its state. */
export function* mailErasureSteps(tx: DB, email: string | null | undefined): TxSteps<void> {
  if (email) yield* exec(tx.delete(mailMessages).where(eq(mailMessages.to, email)));
}

/**
 * Settled mails (sent, failed, expired: already blank) older than SMS_RETENTION_DAYS are deleted.
 * A code sent at once whose request's process died during the send (still "sending" past its
 * hold; it has no job, decision 0113) is failed and blanked first: never sent late, never counted
 * as waiting.
 */
export async function pruneMailMessages(now = Date.now()): Promise<number> {
  const stranded = await db()
    .select()
    .from(mailMessages)
    .where(and(eq(mailMessages.status, "sending"), lt(mailMessages.lockedUntil, new Date(now))));
  for (const row of stranded)
    await settle(row, { status: "failed", lastError: "the sender stopped during the attempt" }, true);
  const cutoff = new Date(now - config().smsRetentionMs);
  const gone = await db()
    .delete(mailMessages)
    .where(
      and(lt(mailMessages.createdAt, cutoff), inArray(mailMessages.status, ["sent", "failed", "expired"])),
    )
    .returning({ id: mailMessages.id });
  return gone.length;
}
