import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDomain, type Domain } from "../helpers/factories";

/*
 * The mail outbox on the runner (decisions 0061, 0113), against a mail server that refuses every
 * connection: a mail is retried with doubling waits for as many attempts as fit in
 * MAIL_MAX_AGE_HOURS, then failed and blank with its last error, its job dead; a mail whose link
 * ran out is expired, never sent; a mail erased meanwhile ends its job without a send.
 */
let d: Domain;
beforeAll(async () => {
  d = await freshDomain({
    SMTP_URL: "smtp://127.0.0.1:1",
    MAIL_RETRY_SECONDS: "0.1",
    MAIL_MAX_AGE_HOURS: "0.01", // 36 s: waits of 0.1, 0.2 … 25.6 s fit, so 9 attempts
  });
});
afterAll(() => d?.close());

const mail = (to: string, extra: { expiresAt?: Date } = {}) => ({
  to,
  subject: "Your opinion is ready",
  text: "Open https://carebridge.test/r/abc",
  html: "<p>Open the link</p>",
  purpose: "notice" as const,
  ...extra,
});

async function rowTo(to: string) {
  const t = d.schema.mailMessages;
  const [row] = await d.db.db().select().from(t).where(eq(t.to, to));
  return row;
}

async function jobOf(rowId: string) {
  const t = d.schema.jobs;
  const [job] = await d.db.db().select().from(t).where(eq(t.key, rowId));
  return job;
}

describe("mail on the runner", () => {
  it("counts the attempts that fit in MAIL_MAX_AGE_HOURS", async () => {
    const { mailAttempts } = await import("~/domain/messaging/mail-outbox.server");
    expect(mailAttempts(100, 36_000)).toBe(9);
    // The defaults (30 s doubling up to an hour, 48 hours): 7 waits of under an hour (63.5 min), then 46 hourly ones.
    expect(mailAttempts(30_000, 48 * 3_600_000)).toBe(1 + 7 + 46);
  });

  it("retries with doubling waits up to the kind's cap, then the mail is failed and blank and its job dead", async () => {
    await d.messaging.queueMail(mail("refused@example.com"));
    const row = await rowTo("refused@example.com");
    let job = await jobOf(row.id);
    expect(job).toMatchObject({ kind: "mail", state: "queued", payload: JSON.stringify({ id: row.id }) });
    const { processMailQueue } = await import("~/domain/messaging/mail-outbox.server");
    const before = Date.now();
    expect(await processMailQueue()).toEqual({ sent: 0, retrying: 1, failed: 0, expired: 0 });
    const after = Date.now();
    const first = await rowTo("refused@example.com");
    expect(first).toMatchObject({ status: "queued", attempts: 1, lockedUntil: null });
    expect(first.lastError).toBeTruthy();
    job = await jobOf(row.id);
    // The first wait is MAIL_RETRY_SECONDS from the failed attempt, which happened during the round:
    // bounded by the round's start and end, not by the clock now (a loaded database may be slow).
    expect(job.runAt.getTime()).toBeGreaterThanOrEqual(before + 100);
    expect(job.runAt.getTime()).toBeLessThanOrEqual(after + 100);
    for (let attempt = 2; attempt <= 9; attempt++) {
      await d.db
        .db()
        .update(d.schema.jobs)
        .set({ runAt: new Date(0) })
        .where(eq(d.schema.jobs.id, job.id));
      const round = await processMailQueue();
      expect(round, `attempt ${attempt}`).toEqual({
        sent: 0,
        retrying: attempt < 9 ? 1 : 0,
        failed: attempt < 9 ? 0 : 1,
        expired: 0,
      });
    }
    expect(await rowTo("refused@example.com")).toMatchObject({
      status: "failed",
      attempts: 9,
      subject: "",
      text: "",
      html: "",
      lastError: first.lastError,
    });
    expect(await jobOf(row.id)).toMatchObject({
      state: "dead",
      attempts: 9,
      failures: 9,
      lastError: first.lastError,
    });
    expect(await d.messaging.mailQueue()).toMatchObject({ failed: 1 });
  }, 60_000);

  it("a mail whose link ran out is expired, never sent; one erased meanwhile ends its job without a send", async () => {
    const { processMailQueue } = await import("~/domain/messaging/mail-outbox.server");
    await d.messaging.queueMail(mail("late@example.com", { expiresAt: new Date(Date.now() - 1) }));
    await d.messaging.queueMail(mail("erased@example.com"));
    const erased = await rowTo("erased@example.com");
    await d.db.transaction((tx) => d.messaging.mailErasureSteps(tx, "erased@example.com"));
    expect(await processMailQueue()).toEqual({ sent: 0, retrying: 0, failed: 0, expired: 1 });
    expect(await rowTo("late@example.com")).toMatchObject({ status: "expired", subject: "", text: "" });
    expect(await rowTo("erased@example.com")).toBeUndefined();
    expect(await jobOf(erased.id)).toMatchObject({ state: "done", attempts: 1 });
  });

  it("a code sent at once whose process died during the send is failed and blank at the next prune, not left waiting", async () => {
    const t = d.schema.mailMessages;
    await d.db
      .db()
      .insert(t)
      .values({
        id: "s".repeat(24),
        to: "stranded@example.com",
        subject: "Your code",
        text: "Your code is 123456",
        html: "<p>123456</p>",
        purpose: "code",
        status: "sending",
        attempts: 1,
        nextAttemptAt: new Date(Date.now() - 120_000),
        lockedUntil: new Date(Date.now() - 60_000),
      });
    await d.messaging.pruneMailMessages();
    expect(await rowTo("stranded@example.com")).toMatchObject({
      status: "failed",
      text: "",
      lockedUntil: null,
      lastError: "the sender stopped during the attempt",
    });
  });
});
