import { and, count, eq, inArray, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first, type DB, type TxSteps, exec } from "~/db/client.server";
import { mailMessages } from "~/db/schema";
import { MAIL_STATUSES } from "~/db/types";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { DomainError } from "../platform/errors";
import { backgroundLoop } from "../platform/index.server";
import { SmtpError, transmit, type Mail } from "./mail.server";

/**
 * The mail outbox (decision 0061), the SMS outbox's design (decision 0014) for mail: every mail is
 * a row of mail_messages until it is settled. `queueMail` adds one and kicks this process's
 * sender; `sendMailNow` (a code the person is waiting for) adds one already held by this request
 * and sends it at once, answering 503 when the mail server cannot take it. The sender runs in
 * every serving process: it claims one due row at a time with one conditional update, so
 * processes and nodes never send a row twice, and retries failures with doubling waits
 * (MAIL_RETRY_SECONDS, at most an hour) until MAIL_MAX_AGE_HOURS, then marks it failed. A mail
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
  await db()
    .insert(mailMessages)
    .values({ ...values(mail, new Date()), status: "queued" });
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
    await settle(row, { status: "failed", lastError, ...BLANK });
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
  await done(row);
}

// ---------------------------------------------------------------------------------------------
// The sender

const pollMs = () => Math.min(5_000, config().mailRetryMs);

const sender = backgroundLoop("mail sender", (stopping) => processMailQueue(stopping));

/** Starts this process's background sender (idempotent): a poll every few seconds plus kicks. */
export function startMailSender(): void {
  sender.start(pollMs());
}

/** Makes the sender look for due rows now (no-op where no sender runs, e.g. a script). */
export function kickMailSender(): void {
  sender.kick();
}

/**
 * Sends what is due now. At shutdown: this process's sender stops polling and finishes its round
 * first, and mail queued by the last requests goes out; what cannot go now stays queued for the
 * next start or another process. Where no sender runs (a script, the domain tests), it is the
 * one way queued mail leaves.
 */
export async function flushMail(): Promise<void> {
  await sender.stop();
  try {
    await processMailQueue();
  } catch (err) {
    log("error", "mail sender failed", { error: String((err as Error)?.message ?? err) });
  }
}

/** A row may be taken: queued and due, or held by a sender whose hold ran out (it died). */
function dueCondition(now: Date): SQL {
  return or(
    and(eq(mailMessages.status, "queued"), lte(mailMessages.nextAttemptAt, now)),
    and(eq(mailMessages.status, "sending"), lt(mailMessages.lockedUntil, now)),
  )!;
}

/**
 * Takes the next due row with ONE conditional update (status → sending, held for LOCK_MS,
 * attempts + 1): the update repeats the due condition, so of processes racing for one row
 * exactly one gets it back (SQLite runs the statement alone; PostgreSQL re-checks the condition
 * on the row another transaction just changed).
 */
async function claimNext(now: Date): Promise<Row | undefined> {
  const next = db()
    .select({ id: mailMessages.id })
    .from(mailMessages)
    .where(dueCondition(now))
    .orderBy(mailMessages.nextAttemptAt, mailMessages.id)
    .limit(1);
  const [row] = await db()
    .update(mailMessages)
    .set({
      status: "sending",
      lockedUntil: new Date(now.getTime() + LOCK_MS),
      attempts: sql`${mailMessages.attempts} + 1`,
    })
    .where(and(inArray(mailMessages.id, next), dueCondition(now)))
    .returning();
  return row;
}

const BLANK = { subject: "", text: "", html: "" };

/** Writes the outcome of our attempt, unless our hold ran out and another sender took the row. */
async function settle(row: Row, set: Partial<Row>): Promise<void> {
  const held = and(
    eq(mailMessages.id, row.id),
    eq(mailMessages.status, "sending"),
    eq(mailMessages.lockedUntil, row.lockedUntil!),
  );
  const settled = set.status !== "queued";
  const written =
    settled && row.purpose === "erased"
      ? await db().delete(mailMessages).where(held).returning({ id: mailMessages.id })
      : await db()
          .update(mailMessages)
          .set({ ...set, lockedUntil: null })
          .where(held)
          .returning({ id: mailMessages.id });
  if (!written.length) log("warn", "mail hold ran out before the outcome was written", { id: row.id });
}

const done = (row: Row) => settle(row, { status: "sent", sentAt: new Date(), ...BLANK });

export type MailRound = { sent: number; retrying: number; failed: number; expired: number };

/** Sends every due mail, one claim at a time, until none is due (or `stop()` says so). */
export async function processMailQueue(stop: () => boolean = () => false): Promise<MailRound> {
  const round: MailRound = { sent: 0, retrying: 0, failed: 0, expired: 0 };
  let misses = 0;
  while (!stop()) {
    const now = new Date();
    if (!(await first(db().select({ id: mailMessages.id }).from(mailMessages).where(dueCondition(now)))))
      break;
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

async function deliver(row: Row): Promise<keyof MailRound> {
  const c = config();
  const who = { id: row.id, purpose: row.purpose, attempt: row.attempts };
  const now = Date.now();
  if (row.expiresAt && row.expiresAt.getTime() <= now) {
    await settle(row, { status: "expired", ...BLANK });
    log("warn", "mail expired before it could be sent", { ...who, lastError: row.lastError });
    return "expired";
  }
  if (now - row.createdAt.getTime() > c.mailMaxAgeMs) {
    const lastError = row.lastError ?? "the sender stopped during the last attempt";
    await settle(row, { status: "failed", lastError, ...BLANK });
    log("error", "mail failed", { ...who, error: lastError });
    return "failed";
  }
  try {
    await transmit(row);
  } catch (err) {
    const lastError = err instanceof SmtpError ? err.message : "could not send (unexpected error)";
    if (!(err instanceof SmtpError))
      log("error", "mail sending threw", { ...who, error: String((err as Error)?.message ?? err) });
    const wait = Math.min(MAX_WAIT_MS, c.mailRetryMs * 2 ** Math.min(20, row.attempts - 1));
    await settle(row, { status: "queued", nextAttemptAt: new Date(Date.now() + wait), lastError });
    log(row.attempts === 1 ? "error" : "warn", "mail not sent; will retry", {
      ...who,
      error: lastError,
      retryInMs: wait,
    });
    return "retrying";
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

/** Settled mails (sent, failed, expired: already blank) older than SMS_RETENTION_DAYS are deleted. */
export async function pruneMailMessages(now = Date.now()): Promise<number> {
  const cutoff = new Date(now - config().smsRetentionMs);
  const gone = await db()
    .delete(mailMessages)
    .where(
      and(lt(mailMessages.createdAt, cutoff), inArray(mailMessages.status, ["sent", "failed", "expired"])),
    )
    .returning({ id: mailMessages.id });
  return gone.length;
}
