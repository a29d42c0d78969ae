import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, resetTokenFrom, startSmtp } from "../helpers/smtp";

/**
 * The mail outbox (decision 0061), on the built server with two worker
 * processes sharing one database and a real SMTP server that is stopped and started again on its
 * port: a code the person waits for is refused honestly (503, Retry-After, an error logged) while
 * SMTP is down; a reset link requested meanwhile arrives when it returns, exactly once, and its
 * row keeps no body; a link that expired meanwhile is never sent late.
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const METRICS_TOKEN = "mail-metrics-token-0123456789";

/** The node's carebridge_mail_messages gauge by state, as /metrics exports it. */
async function mailGauge() {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  const value = (state: string) =>
    Number(new RegExp(`^carebridge_mail_messages\\{state="${state}"\\} (\\S+)$`, "m").exec(text)?.[1]);
  return { queued: value("queued"), failed: value("failed") };
}

type MailRow = {
  id: string;
  to: string;
  status: string;
  subject: string;
  text: string;
  html: string;
  attempts: number;
};
const rowsTo = (to: string, purpose = "%") =>
  db.all<MailRow>(
    `select id, "to", status, subject, text, html, attempts from mail_messages where "to" = ? and purpose like ?`,
    to,
    purpose,
  );

async function until<T>(what: string, fn: () => Promise<T | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    WEB_CONCURRENCY: "2",
    METRICS_TOKEN,
    // A first wait of 0.2 s (then 0.4, 0.8 …): a mail waiting for SMTP goes within a second of its return.
    MAIL_RETRY_SECONDS: "0.2",
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
});
afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe("the mail outbox", () => {
  it("SMTP down: a signup code is refused with 503, Retry-After and an error in the log (never 400), and works again when it returns", async () => {
    await smtp.stop();
    try {
      const res = await api.post("/auth/send-otp", { email: "waiting@example.com", checkUserPresent: true });
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(res.body).toMatchObject({
        success: false,
        message: "CareBridge cannot send e-mail just now, so no code was sent. Please try again in a moment.",
      });
      const hi = await api.post("/auth/send-otp", { email: "waiting@example.com" }, undefined, {
        "Accept-Language": "hi",
      });
      expect(hi.status).toBe(503);
      expect(hi.body.message).toContain("ई-मेल नहीं भेज पा रहा");
      await until("the error line", async () => /"mail unavailable/.test(server.output()));
      // The refused code is no row to send later: failed, its code gone from the database.
      const rows = await rowsTo("waiting@example.com");
      expect(rows.length).toBe(2);
      for (const r of rows) expect(r).toMatchObject({ status: "failed", subject: "", text: "", html: "" });
    } finally {
      await smtp.start();
    }
    const res = await api.post("/auth/send-otp", { email: "waiting@example.com", checkUserPresent: true });
    expect(res.status).toBe(200);
    codeFrom(await smtp.waitFor("waiting@example.com", /verification code/));
    expect(smtp.mails.filter((m) => m.to.includes("waiting@example.com")).length).toBe(1);
  });

  it("reset links requested while SMTP is down arrive when it returns, each exactly once, and no body stays stored; an expired one is never sent", async () => {
    const people = Array.from({ length: 8 }, (_, i) => `forgetful${i}@example.com`);
    for (const email of [...people, "late@example.com"]) await signupViaApi(api, smtp, codeFrom, { email });
    await smtp.stop();
    for (const email of [...people, "late@example.com"]) {
      const res = await api.post("/auth/reset-password-token", { email });
      expect(res.status).toBe(200);
    }
    // Tried and kept: queued with an error while nothing listens.
    await until("every reset mail tried at least twice", async () => {
      const rows = await db.all<{ status: string; attempts: number }>(
        `select status, attempts from mail_messages where purpose = 'reset-link'`,
      );
      return rows.length === 9 && rows.every((r) => r.attempts >= 2 && r.status !== "sent");
    });
    // The admins see them waiting (the Service screen and /metrics read the outbox), and the two refused codes.
    expect(await mailGauge()).toEqual({ queued: 9, failed: 2 });
    const [late] = await rowsTo("late@example.com", "reset-link");
    expect(late.text).toContain("update-password/");
    // The late one's link runs out before SMTP returns.
    await db.run(`update mail_messages set expires_at = ? where id = ?`, db.time(Date.now() - 1000), late.id);
    await smtp.start();

    const arrived = await Promise.all(people.map((p) => smtp.waitFor(p, /update-password/, 10_000)));
    const token = resetTokenFrom(arrived[0]);
    expect(token.length).toBeGreaterThan(20);
    await until("every reset row settled", async () => {
      const rows = await db.all<{ status: string }>(
        `select status from mail_messages where purpose = 'reset-link' and status in ('queued', 'sending')`,
      );
      return rows.length === 0;
    });
    for (const p of people) {
      expect(smtp.mails.filter((m) => m.to.includes(p) && /update-password/.test(m.raw)).length, p).toBe(1);
      const rows = await rowsTo(p, "reset-link");
      expect(rows.length).toBe(1);
      expect(rows[0]).toMatchObject({ status: "sent", subject: "", text: "", html: "" });
    }
    const [expired] = await rowsTo("late@example.com", "reset-link");
    expect(expired).toMatchObject({ status: "expired", subject: "", text: "", html: "" });
    expect(
      smtp.mails.filter((m) => m.to.includes("late@example.com") && /update-password/.test(m.raw)),
    ).toEqual([]);
    // No link or code is left in the outbox: every settled row is blank.
    expect(
      await db.all(`select id from mail_messages where text <> '' or html <> '' or subject <> ''`),
    ).toEqual([]);
  });
});
