import { and, count, desc, eq, inArray, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { mkdirSync, writeFileSync } from "node:fs";
import { readdir, readFile, stat, unlink } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import path from "node:path";
import { config } from "~/config.server";
import { affected, db, exec, first, type DB, type TxSteps } from "~/db/client.server";
import { smsMessages } from "~/db/schema";
import { SMS_PURPOSES, SMS_STATUSES } from "~/db/types";
import type { Paged, PageQuery } from "../platform/paging";
import { newId } from "~/utils/ids.server";
import { log } from "~/utils/log.server";
import { maskPhone } from "~/utils/phone.server";

export { maskPhone };
import { DomainError } from "../platform/errors";
import type { Actor } from "../accounts/sessions.server";
import { COUNT_KEYS, listCount } from "../platform/list-counts.server";
import { newestFirstWindow } from "../platform/cursor.server";

/**
 * Outgoing SMS (decision 0014). `queueSms` adds a row to the persisted queue (table
 * sms_messages) and kicks this process's sender; a request never waits for the gateway. The
 * sender runs in every serving process (started by startup.server.ts): it claims one due row at a
 * time with one conditional update, so several processes and nodes never send a row twice, sends
 * it through Kannel's sendsms interface (SMS_URL) or, unset, writes it to data/sms-outbox/, and
 * retries failures with backoff until the last attempt marks it failed for the admins to see.
 * The text is never logged and never shown to anyone: it may hold a sign-in code.
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
// Segments: what one text costs

/** GSM 03.38 default alphabet (one septet each; ESC itself is not a character of a text). */
const GSM_BASIC = new Set(
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà",
);
/** The extension table: ESC + one septet, so two units each. */
const GSM_EXTENDED = new Set("\f^{}\\[~]|€");

/**
 * How a text goes out and how many SMS it takes: GSM 7-bit when every character is in the GSM
 * 03.38 default alphabet (extension characters such as € { } [ ] count 2), 160 units in one SMS
 * or 153 per part of a longer one; otherwise UCS-2 (Hindi, Bengali, Tamil …), counted in UTF-16
 * code units, 70 in one SMS or 67 per part.
 */
export function smsSegments(text: string): { encoding: "gsm" | "ucs2"; units: number; segments: number } {
  let septets = 0;
  for (const ch of text) {
    if (GSM_BASIC.has(ch)) septets += 1;
    else if (GSM_EXTENDED.has(ch)) septets += 2;
    else {
      const units = text.length;
      return { encoding: "ucs2", units, segments: units <= 70 ? 1 : Math.ceil(units / 67) };
    }
  }
  return { encoding: "gsm", units: septets, segments: septets <= 160 ? 1 : Math.ceil(septets / 153) };
}

// ---------------------------------------------------------------------------------------------
// The sender

/** Waits after the 1st, 2nd … failed attempt; after the attempt that follows the last wait, failed. */
export const SMS_BACKOFF_MS: readonly number[] = [
  10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000,
];

/** Code texts are useless once the code has expired: such a message is not sent after this long. */
const CODE_PURPOSES: readonly string[] = ["signup-code", "login-code", "reset-code", "takeover-code"];

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
  if (sender) {
    clearInterval(sender.timer);
    sender.timer = setInterval(kickSmsSender, settings.pollMs).unref();
  }
}

type Sender = { timer: NodeJS.Timeout; running: Promise<void> | null; again: boolean; stopping: boolean };
let sender: Sender | null = null;

/** Starts this process's background sender (idempotent): a poll every few seconds plus kicks. */
export function startSmsSender(): void {
  if (sender) return;
  // unref: the poll never keeps a stopping process alive.
  sender = {
    timer: setInterval(kickSmsSender, settings.pollMs).unref(),
    running: null,
    again: false,
    stopping: false,
  };
  kickSmsSender();
}

/** Makes the sender look for due rows now (no-op where no sender runs, e.g. a script). */
export function kickSmsSender(): void {
  const s = sender;
  if (!s || s.stopping) return;
  if (s.running) {
    s.again = true; // a row may have been queued after the running round's last look
    return;
  }
  s.running = (async () => {
    do {
      s.again = false;
      try {
        await processSmsQueue(() => s.stopping);
      } catch (err) {
        log("error", "sms sender failed", { error: String((err as Error)?.message ?? err) });
      }
    } while (s.again && !s.stopping);
  })().finally(() => {
    s.running = null;
  });
}

/** Stops the sender: no new claims; waits for the message being sent (bounded by the gateway timeout). */
export async function stopSmsSender(): Promise<void> {
  const s = sender;
  if (!s) return;
  sender = null;
  s.stopping = true;
  clearInterval(s.timer);
  await s.running;
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

// ---------------------------------------------------------------------------------------------
// Erasure and retention (decision 0022)

/**
 * Inside the erasure's transaction: every message to the person's numbers goes (codes, notices,
 * "will be deleted on …"), whatever its state; a sender holding one finds it gone and writes nothing.
 */
export function* smsErasureSteps(tx: DB, numbers: string[]): TxSteps<void> {
  if (numbers.length) yield* exec(tx.delete(smsMessages).where(inArray(smsMessages.to, numbers)));
}

/**
 * Sent and failed messages older than SMS_RETENTION_DAYS are deleted (the rights job): the queue
 * is not an archive of numbers and texts. Queued and sending ones stay until they are settled.
 */
export async function pruneSmsMessages(now = Date.now()): Promise<number> {
  const cutoff = new Date(now - config().smsRetentionMs);
  await pruneOutbox(cutoff.getTime());
  return affected(
    await db()
      .delete(smsMessages)
      // sms_messages_created_idx (created_at, id)
      .where(and(lt(smsMessages.createdAt, cutoff), inArray(smsMessages.status, ["sent", "failed"]))),
  );
}

/** The outbox's message files (SMS_URL unset), as paths; none when there is no outbox. */
async function outboxFiles(): Promise<string[]> {
  const dir = config().smsOutboxDir;
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(".json")).map((n) => path.join(dir, n));
}

/**
 * The erasure (decision 0022): the outbox files of messages to any of `numbers` (the person's, as
 * personNumbers gives them) are deleted — the outbox is no archive of a person's numbers and texts.
 */
export async function deleteOutboxFilesTo(numbers: string[]): Promise<number> {
  if (!numbers.length) return 0;
  let n = 0;
  for (const file of await outboxFiles()) {
    try {
      const to = (JSON.parse(await readFile(file, "utf8")) as { to?: unknown }).to;
      if (typeof to === "string" && numbers.includes(to)) {
        await unlink(file);
        n++;
      }
    } catch (err) {
      // Gone already (another node's erasure) or not one of ours: nothing to erase in it.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !(err instanceof SyntaxError))
        log("error", "could not erase an sms outbox file", { file: path.basename(file), error: String(err) });
    }
  }
  return n;
}

/** Outbox files written before `cutoff` (SMS_RETENTION_DAYS, like the rows) are deleted. */
async function pruneOutbox(cutoff: number) {
  for (const file of await outboxFiles()) {
    try {
      if ((await stat(file)).mtimeMs < cutoff) await unlink(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        log("error", "could not prune an sms outbox file", { file: path.basename(file), error: String(err) });
    }
  }
}

/**
 * Without SMS_URL: one file per message (0600 in a 0700 folder) and one log line without the text.
 * The last message to an erased person is not written (only the masked log line): the erasure has
 * already removed their files, and nothing of them may come back.
 */
function writeToOutbox(dir: string, row: Claimed) {
  if (row.purpose === "erased") {
    log("info", "sms to an erased person not kept in the outbox", {
      to: maskPhone(row.to),
      purpose: row.purpose,
    });
    return;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Named by the row, so a message taken again after a crash rewrites its own file.
  const file = path.join(dir, `${row.createdAt.toISOString().replace(/[:.]/g, "-")}-${row.id}.json`);
  const body = { id: row.id, to: row.to, purpose: row.purpose, text: row.text, createdAt: row.createdAt };
  writeFileSync(file, JSON.stringify(body, null, 2) + "\n", { mode: 0o600 });
  log("info", "sms written to outbox", {
    to: maskPhone(row.to),
    purpose: row.purpose,
    file: path.basename(file),
  });
}

/** A failure worth retrying; its message is safe to store and show (no credentials, no text). */
class GatewayError extends Error {}

/**
 * Kannel's sendsms: a GET with the credentials of SMS_URL's userinfo as username/password, the
 * URL's own parameters (from, smsc …), and to, text, charset=UTF-8, coding 0 (GSM) or 2 (UCS-2).
 * Accepted: a 2xx answer starting "0:" (accepted) or "3:" (queued for later delivery).
 */
async function sendThroughGateway(smsUrl: string, row: Claimed, timeoutMs: number): Promise<void> {
  const url = new URL(smsUrl);
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const q = url.searchParams;
  if (username) q.set("username", username);
  if (password) q.set("password", password);
  q.set("to", row.to);
  q.set("text", row.text);
  q.set("charset", "UTF-8");
  q.set("coding", smsSegments(row.text).encoding === "gsm" ? "0" : "2");
  // A gateway's answer is stored and shown to admins: never with the password, the text or the
  // whole number in it (a careless gateway may echo the request).
  const hidden: [string, string][] = [
    [password, "***"],
    [row.text, "***"],
    [row.to, maskPhone(row.to)],
  ];
  const clean = (s: string) => {
    let out = s.replace(/\s+/g, " ").trim();
    for (const [secret, shown] of hidden) {
      if (secret.length < 3) continue;
      const forms = [
        secret,
        encodeURIComponent(secret),
        new URLSearchParams({ s: secret }).toString().slice(2),
      ];
      for (const form of forms) out = out.split(form).join(shown);
    }
    return out.slice(0, 200);
  };
  const { status, body } = await httpGet(url, timeoutMs).catch((err: NodeJS.ErrnoException) => {
    if (err instanceof GatewayError) throw err;
    const why = err.code === "ECONNREFUSED" ? "connection refused" : (err.code ?? clean(err.message));
    throw new GatewayError(`gateway unreachable: ${why}`);
  });
  const answer = clean(body);
  if (status < 200 || status > 299) throw new GatewayError(`gateway answered HTTP ${status}: ${answer}`);
  if (!/^\s*[03]:/.test(body)) throw new GatewayError(`gateway refused: ${answer}`);
}

const MAX_ANSWER = 4096;

function httpGet(url: URL, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const get = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = get(url, { method: "GET", agent: false, headers: { Connection: "close" } });
    const timer = setTimeout(() => {
      req.destroy();
      const limit = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
      reject(new GatewayError(`gateway did not answer within ${limit}`));
    }, timeoutMs);
    timer.unref();
    req.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.once("response", (res: IncomingMessage) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < MAX_ANSWER) body += chunk;
      });
      res.once("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// What admins see

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
