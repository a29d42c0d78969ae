import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import type { Actor } from "~/domain/accounts/sessions.server";
import { apiClient } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { startKannel, type DeliveredSms, type Kannel } from "../helpers/kannel";
import { Browserish, freePort, rootBackend, startServer, type TestServer } from "../helpers/server";
import { onlyWith, requireKannel } from "../helpers/requires";
import { spawnScript } from "../helpers/scripts";

// Needs Kannel (the SMS tests' real gateway): skipped without it, naming the package, except under CI.
const { afterAll, beforeAll, describe, it } = onlyWith(requireKannel(), vitest);

/*
 * Outgoing SMS through a real Kannel (bearerbox + smsbox, fakesmsc as the operator). No screen
 * sends SMS yet, so the sending path is tested at the domain level: this process imports the
 * domain with SMS_URL pointing at a port of ours, where Kannel is started only once the retries
 * have been seen. Two more processes (tests/helpers/sms-worker.ts) share the queue. The last part
 * runs the built app without SMS_URL (outbox files) and reads the admin's list over HTTP.
 * Short waits for tests come from `configureSmsSender()` (decision 0014).
 */

type Mods = {
  sms: typeof import("~/domain/messaging/sms.server") &
    typeof import("~/domain/messaging/sms-segments.server") &
    typeof import("~/domain/messaging/sms-admin.server");
  client: typeof import("~/db/client.server");
  schema: typeof import("~/db/schema");
  i18n: typeof import("~/i18n/i18n.server");
  orm: typeof import("drizzle-orm");
};
let m: Mods;
let root: string;
let appEnv: Record<string, string>;
let sendsmsPort: number;
let kannel: Kannel | undefined;
const username = "carebridge";
const password = `pw-${randomBytes(6).toString("hex")}`;
/** Kannel refuses these numbers (black-list-regex): a gateway that answers "no". */
const REFUSED_PREFIX = "+99999";

const actor = (accountType: Actor["accountType"]): Actor => ({
  id: `x${accountType}`,
  email: `${accountType.toLowerCase()}@example.test`,
  firstName: accountType,
  lastName: "Tester",
  accountType,
  approved: true,
  image: null,
  locale: "en",
  sessionId: "test",
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

async function rowsTo(numbers: string[]) {
  const { smsMessages } = m.schema;
  return m.client
    .db()
    .select()
    .from(smsMessages)
    .where(m.orm.inArray(smsMessages.to, numbers))
    .orderBy(smsMessages.to);
}

/** Kannel on the port SMS_URL names (the first test starts it late, on purpose; `-t` may skip that). */
async function gateway(): Promise<Kannel> {
  kannel ??= await startKannel({
    sendsmsPort,
    username,
    password,
    refuseNumbers: `^[+]${REFUSED_PREFIX.slice(1)}`,
  });
  return kannel;
}

const deliveredTo = (to: string) => (kannel?.delivered() ?? []).filter((d) => d.receiver === to);

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), "cb-sms-"));
  sendsmsPort = await freePort(); // nothing listens here until Kannel is started on it
  appEnv = {
    DATA_DIR: path.join(root, "data"),
    UPLOADS_DIR: path.join(root, "uploads"),
    LOG_LEVEL: "silent",
    SMS_URL: `http://${username}:${password}@127.0.0.1:${sendsmsPort}/cgi-bin/sendsms?from=CareBridge`,
    ...(await rootBackend(root)), // TEST_BACKEND=pg-s3: a PostgreSQL database of its own
  };
  for (const k of ["DATABASE_URL", "STORAGE_URL", "SMTP_URL", "ENCRYPTION_KEY", "SESSION_SECRET"])
    delete process.env[k];
  Object.assign(process.env, appEnv);
  m = {
    sms: {
      ...(await import("~/domain/messaging/sms.server")),
      ...(await import("~/domain/messaging/sms-segments.server")),
      ...(await import("~/domain/messaging/sms-admin.server")),
    },
    client: await import("~/db/client.server"),
    schema: await import("~/db/schema"),
    i18n: await import("~/i18n/i18n.server"),
    orm: await import("drizzle-orm"),
  };
  await m.client.migrateDatabase();
  m.sms.configureSmsSender({
    pollMs: 100,
    backoffMs: [300, 600, 1_200, 2_400, 4_800, 9_600, 19_200, 38_400],
  });
  m.sms.startSmsSender();
});

afterAll(async () => {
  await m?.sms.stopSmsSender();
  await m?.client.closeDatabase();
  await kannel?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("SMS through Kannel", () => {
  it("keeps messages queued with growing waits while the gateway is down, then delivers each once", async () => {
    const en = { to: "+919876500001", text: "Your CareBridge code is 481516. It is valid for 10 minutes." };
    const hi = { to: "+919876500002", text: "आपका CareBridge सत्यापन कोड 234234 है।" };
    await m.sms.queueSms({ ...en, purpose: "signup-code" });
    await m.sms.queueSms({ ...hi, purpose: "login-code" });

    // Attempts 1, 2, 3 fail (nothing listens): still queued, each next attempt further out.
    const seen = new Map<string, Map<number, number>>(); // row → attempts → next_attempt_at
    await until("three failed attempts each", async () => {
      const rows = await rowsTo([en.to, hi.to]);
      for (const r of rows) {
        expect(["queued", "sending"]).toContain(r.status);
        if (r.status !== "queued" || r.attempts === 0) continue;
        const mine = seen.get(r.id) ?? new Map<number, number>();
        mine.set(r.attempts, r.nextAttemptAt.getTime());
        seen.set(r.id, mine);
      }
      return rows.every((r) => r.attempts >= 3 && r.status === "queued") && rows;
    });
    const rows = await rowsTo([en.to, hi.to]);
    for (const r of rows) {
      expect(r.lastError).toBe("gateway unreachable: connection refused");
      expect(r.sentAt).toBeNull();
      expect(r.lockedUntil).toBeNull();
      // Each wait is longer than the one before: 300 ms, 600 ms, 1.2 s here.
      const next = seen.get(r.id)!;
      expect(next.get(2)! - next.get(1)!).toBeGreaterThanOrEqual(600);
      expect(next.get(3)! - next.get(2)!).toBeGreaterThanOrEqual(1_200);
    }
    expect(JSON.stringify(rows.map((r) => r.lastError))).not.toContain(password);

    // The gateway comes up on the configured port: both go out, each exactly once.
    await (await gateway()).waitForDelivered(2, 20_000);
    await until("both rows sent", async () =>
      (await rowsTo([en.to, hi.to])).every((r) => r.status === "sent"),
    );
    expect(deliveredTo(en.to)).toEqual([
      { sender: "CareBridge", receiver: en.to, coding: "text", text: en.text, parts: 1, complete: true },
    ]);
    expect(deliveredTo(hi.to)).toEqual([
      { sender: "CareBridge", receiver: hi.to, coding: "ucs-2", text: hi.text, parts: 1, complete: true },
    ]);
    for (const r of await rowsTo([en.to, hi.to])) {
      expect(r.sentAt).toBeInstanceOf(Date);
      expect(r.attempts).toBeGreaterThanOrEqual(4);
    }
  });

  it("sends the app's code text in English, Hindi, Bengali and Tamil within a second of queueing, UCS-2 for the Indic ones", async () => {
    await gateway();
    // A long poll: only the kick of queueSms can send within a second.
    m.sms.configureSmsSender({ pollMs: 60_000 });
    // The e-mail's code sentence as an SMS: what it costs in each language (Tamil needs two SMS).
    const expected = {
      en: { to: "+919876500011", coding: "text", encoding: "gsm", units: 72, segments: 1 },
      hi: { to: "+919876500012", coding: "ucs-2", encoding: "ucs2", units: 62, segments: 1 },
      bn: { to: "+919876500013", coding: "ucs-2", encoding: "ucs2", units: 66, segments: 1 },
      ta: { to: "+919876500014", coding: "ucs-2", encoding: "ucs2", units: 89, segments: 2 },
    } as const;
    for (const [lang, want] of Object.entries(expected)) {
      const t = await m.i18n.getT(lang as keyof typeof expected);
      const text = t("authMail.codeBody", { product: "CareBridge", code: "135790", minutes: 10 });
      expect({ lang, ...m.sms.smsSegments(text) }).toEqual({
        lang,
        encoding: want.encoding,
        units: want.units,
        segments: want.segments,
      });
      const queuedAt = Date.now();
      await m.sms.queueSms({ to: want.to, text, purpose: "signup-code" });
      const [got] = await until(
        `the ${lang} message`,
        async () => deliveredTo(want.to).length > 0 && deliveredTo(want.to),
      );
      expect(Date.now() - queuedAt).toBeLessThan(1_000);
      expect(got).toMatchObject({ sender: "CareBridge", coding: want.coding, text, parts: want.segments });
    }
    await sleep(300);
    for (const want of Object.values(expected)) expect(deliveredTo(want.to)).toHaveLength(1);
    m.sms.configureSmsSender({ pollMs: 100 });
  });

  it("marks a message failed with the gateway's reason after the last attempt; admins see it, nobody else", async () => {
    await gateway();
    m.sms.configureSmsSender({ pollMs: 100, backoffMs: [50, 50, 50] });
    const to = `${REFUSED_PREFIX}0000001`;
    await m.sms.queueSms({ to, text: "Your CareBridge code is 999111.", purpose: "reset-code" });
    const [row] = await until("the refused message to fail", async () => {
      const rows = await rowsTo([to]);
      return rows[0]?.status === "failed" && rows;
    });
    expect(row.attempts).toBe(4);
    expect(row.lastError).toMatch(/^gateway answered HTTP 400: Number\(s\) has\/have been denied/);
    expect(row.sentAt).toBeNull();
    expect(deliveredTo(to)).toEqual([]);

    const list = await m.sms.listSmsMessages(actor("Admin"), { page: 1, pageSize: 20, status: "failed" });
    expect(list.total).toBe(1);
    expect(list.items).toEqual([
      {
        _id: row.id,
        to: m.sms.maskPhone(to),
        purpose: "reset-code",
        status: "failed",
        attempts: 4,
        lastError: row.lastError,
        createdAt: row.createdAt.toISOString(),
        sentAt: null,
      },
    ]);
    const everything = await m.sms.listSmsMessages(actor("Admin"), { page: 1, pageSize: 100 });
    expect(everything.total).toBeGreaterThanOrEqual(7);
    expect(JSON.stringify(everything)).not.toMatch(/999111|481516|135790|text/);
    expect(everything.items.find((i) => i.to.endsWith("0001") && i.status === "sent")?.to).toBe(
      "+91******0001",
    );
    expect(await m.sms.countSmsByStatus(actor("Admin"))).toMatchObject({ failed: 1, queued: 0, sending: 0 });
    for (const who of ["Patient", "Expert"] as const) {
      await expect(m.sms.listSmsMessages(actor(who), { page: 1, pageSize: 20 })).rejects.toMatchObject({
        code: "forbidden",
      });
      await expect(m.sms.countSmsByStatus(actor(who))).rejects.toMatchObject({ code: "forbidden" });
    }
  });

  it("does not send a code that expired while it waited", async () => {
    await gateway();
    const { smsMessages, jobs } = m.schema;
    const to = "+919876500021";
    const id = randomBytes(12).toString("hex");
    await m.client
      .db()
      .insert(smsMessages)
      .values({
        id,
        to,
        text: "Your CareBridge code is 777000.",
        purpose: "login-code",
        status: "queued",
        nextAttemptAt: new Date(),
        createdAt: new Date(Date.now() - 20 * 60_000),
      });
    // Its job, as queueSms asks the runner for it (decision 0113).
    await m.client
      .db()
      .insert(jobs)
      .values({
        id: randomBytes(12).toString("hex"),
        kind: "sms",
        key: id,
        payload: JSON.stringify({ id }),
        runAt: new Date(),
      });
    m.sms.kickSmsSender();
    const [row] = await until("the stale code to fail", async () => {
      const rows = await rowsTo([to]);
      return rows[0]?.status === "failed" && rows;
    });
    expect(row.lastError).toBe("code expired before it could be sent");
    expect(deliveredTo(to)).toEqual([]);
  });

  it("two processes sending one queue deliver every message exactly once", async () => {
    await gateway();
    await m.sms.stopSmsSender(); // only the two workers send now
    m.sms.configureSmsSender();
    const langs = [
      "Your CareBridge opinion is ready.",
      "आपकी राय तैयार है।",
      "আপনার মতামত তৈরি।",
      "உங்கள் கருத்து தயார்.",
    ];
    const batch = Array.from({ length: 30 }, (_, i) => ({
      to: `+9198765100${String(i).padStart(2, "0")}`,
      text: `${langs[i % 4]} #${i}`,
      purpose: "opinion-ready" as const,
    }));
    for (const msg of batch) await m.sms.queueSms(msg);
    expect((await rowsTo(batch.map((b) => b.to))).every((r) => r.status === "queued")).toBe(true);

    type Round = { sent: number; retrying: number; failed: number };
    const spawnWorker = async () => {
      const child = await spawnScript("tests/helpers/sms-worker.ts", [], {
        cwd: path.resolve("."),
        env: { ...process.env, ...appEnv },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stderr!.on("data", (d) => (err += d));
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout!.on("data", (d) => {
          out += d;
          if (out.startsWith("ready\n")) resolve();
        });
        child.once("exit", (code) =>
          reject(new Error(`sms worker exited ${code} before it was ready: ${err}`)),
        );
      });
      const done = new Promise<Round>((resolve, reject) =>
        child.once("exit", (code) =>
          code === 0
            ? resolve(JSON.parse(out.slice("ready\n".length)) as Round)
            : reject(new Error(`sms worker exited ${code}: ${err}`)),
        ),
      );
      return { child, ready, done };
    };
    const workers = await Promise.all([spawnWorker(), spawnWorker()]);
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.child.stdin!.end("go\n"); // both start at once
    const [a, b] = await Promise.all(workers.map((w) => w.done));
    expect(a.sent + b.sent).toBe(30);
    expect(a.retrying + b.retrying + a.failed + b.failed).toBe(0);
    expect(a.sent, "both processes took part").toBeGreaterThan(0);
    expect(b.sent, "both processes took part").toBeGreaterThan(0);

    await sleep(500); // anything sent twice would have arrived by now
    const got: DeliveredSms[] = kannel!.delivered().filter((d) => batch.some((x) => x.to === d.receiver));
    expect(got).toHaveLength(30);
    for (const msg of batch) {
      const mine = got.filter((d) => d.receiver === msg.to);
      expect(mine.map((d) => d.text)).toEqual([msg.text]);
      expect(mine[0].coding).toBe(msg.text.startsWith("Your") ? "text" : "ucs-2");
    }
    const rows = await rowsTo(batch.map((x) => x.to));
    expect(rows.every((r) => r.status === "sent" && r.attempts === 1 && r.sentAt)).toBe(true);
  });
});

describe("without SMS_URL, and the admin's list over HTTP (built app)", () => {
  let server: TestServer;
  const admin = { email: "admin@sms.test", password: "Admin-pass-123" };

  beforeAll(async () => {
    server = await startServer({
      SMS_URL: "", // empty = unset: messages go to data/sms-outbox
      LOG_LEVEL: "info",
      RATE_LIMIT_DISABLED: "1",
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("writes a queued message to the outbox (0600 in a 0700 folder) and logs one line without the text", async () => {
    const db = await openTestDb(server.dataDir, { write: true });
    const now = Date.now();
    const insert = (values: {
      id: string;
      to: string;
      text: string;
      purpose: string;
      status: string;
      attempts: number;
      next: number;
      lastError: string | null;
      created: number;
      sent: number | null;
    }) =>
      db.run(
        `INSERT INTO sms_messages (id, "to", text, purpose, status, attempts, next_attempt_at, locked_until, last_error, created_at, sent_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
        values.id,
        values.to,
        values.text,
        values.purpose,
        values.status,
        values.attempts,
        db.time(values.next),
        values.lastError,
        db.time(values.created),
        values.sent === null ? null : db.time(values.sent),
      );
    try {
      await insert({
        id: "a".repeat(24),
        to: "+919876543210",
        text: "Your CareBridge code is 246810.",
        purpose: "signup-code",
        status: "failed",
        attempts: 9,
        next: now - 60_000,
        lastError: "gateway answered HTTP 403: Authorization failed for sendsms",
        created: now - 3_600_000,
        sent: null,
      });
      await insert({
        id: "b".repeat(24),
        to: "+447700900123",
        text: "Your CareBridge opinion is ready.",
        purpose: "opinion-ready",
        status: "sent",
        attempts: 1,
        next: now - 120_000,
        lastError: null,
        created: now - 120_000,
        sent: now - 119_000,
      });
      // Due now: the server's own sender (every few seconds) takes it.
      await insert({
        id: "c".repeat(24),
        to: "+919123456789",
        text: "Your CareBridge code is 112233.",
        purpose: "login-code",
        status: "queued",
        attempts: 0,
        next: now - 1_000,
        lastError: null,
        created: now - 1_000,
        sent: null,
      });
      // Its job, as queueSms asks the runner for it (decision 0113).
      await db.run(
        `INSERT INTO jobs (id, kind, key, payload, state, attempts, failures, run_at, created_at)
         VALUES (?, 'sms', ?, ?, 'queued', 0, 0, ?, ?)`,
        "j".repeat(24),
        "c".repeat(24),
        JSON.stringify({ id: "c".repeat(24) }),
        db.time(now - 1_000),
        db.time(now - 1_000),
      );
      const outbox = path.join(server.dataDir, "sms-outbox");
      const file = await until(
        "the outbox file",
        async () =>
          existsSync(outbox) && readdirSync(outbox).find((f) => f.endsWith(`${"c".repeat(24)}.json`)),
      );
      expect(statSync(outbox).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(outbox, file)).mode & 0o777).toBe(0o600);
      const body = JSON.parse(readFileSync(path.join(outbox, file), "utf8"));
      expect(body).toMatchObject({
        to: "+919123456789",
        purpose: "login-code",
        text: "Your CareBridge code is 112233.",
      });
      expect(typeof body.createdAt).toBe("string");
      const row = await until("the row marked sent", async () => {
        const r = await db.get<{ status: string; attempts: number }>(
          "SELECT status, attempts FROM sms_messages WHERE id = ?",
          "c".repeat(24),
        );
        return r?.status === "sent" && r;
      });
      expect(row.attempts).toBe(1);
      await until("the log line", async () => server.output().includes("sms written to outbox"));
      const lines = server
        .output()
        .split("\n")
        .filter((l) => l.includes("sms written to outbox"));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0])).toMatchObject({ to: "+91******6789", purpose: "login-code" });
      expect(server.output()).not.toMatch(/112233|9123456789|246810/);
    } finally {
      await db.close();
    }
  });

  it("lists SMS for admins over the API (masked, never the text, ?status=failed) and refuses others", async () => {
    const api = apiClient(server.url);
    const login = await api.post("/auth/login", admin);
    expect(login.status).toBe(200);
    const token = login.body.token as string;

    const all = await api.get("/admin/get-sms-messages", token);
    expect(all.status).toBe(200);
    expect(all.body.pagination).toMatchObject({ page: 1, total: 3 });
    expect(all.body.data.map((i: { _id: string }) => i._id)).toEqual([
      "c".repeat(24),
      "b".repeat(24),
      "a".repeat(24),
    ]);
    expect(all.body.data[1]).toEqual({
      _id: "b".repeat(24),
      to: "+44******0123",
      purpose: "opinion-ready",
      status: "sent",
      attempts: 1,
      lastError: null,
      createdAt: expect.any(String),
      sentAt: expect.any(String),
    });
    expect(JSON.stringify(all.body)).not.toMatch(/112233|246810|opinion is ready|"text"|9876543210/);

    const failed = await api.get("/admin/get-sms-messages?status=failed", token);
    expect(failed.status).toBe(200);
    expect(failed.body.data).toEqual([
      expect.objectContaining({
        to: "+91******3210",
        status: "failed",
        attempts: 9,
        lastError: "gateway answered HTTP 403: Authorization failed for sendsms",
      }),
    ]);
    const paged = await api.get("/admin/get-sms-messages?pageSize=1&page=2", token);
    expect(paged.body.data.map((i: { _id: string }) => i._id)).toEqual(["b".repeat(24)]);
    expect((await api.get("/admin/get-sms-messages?status=lost", token)).status).toBe(400);
    expect((await api.get("/admin/get-sms-messages")).status).toBe(401);
  });

  it("shows admins the SMS tab with a status filter, failed first", async () => {
    const b = new Browserish(server.url);
    expect((await b.post("/login", admin)).status).toBe(302);
    const res = await b.fetch("/dashboard/messages?kind=sms");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('href="/dashboard/messages?kind=sms&amp;status=failed"');
    expect(html).toMatch(/Failed \(<!-- -->1<!-- -->\)|Failed \(1\)/);
    expect(html).toContain("+91******3210");
    expect(html).toContain("+44******0123");
    expect(html).not.toMatch(/112233|246810|opinion is ready|9876543210/);

    const onlyFailed = await (await b.fetch("/dashboard/messages?kind=sms&status=failed")).text();
    expect(onlyFailed).toContain("+91******3210");
    expect(onlyFailed).toContain("gateway answered HTTP 403: Authorization failed for sendsms");
    expect(onlyFailed).not.toContain("+44******0123");

    const anon = await new Browserish(server.url).fetch("/dashboard/messages?kind=sms");
    expect(anon.status).toBe(302);
  });

  it("names the last message to an erased person in the SMS tab (in each language) and in OpenAPI", async () => {
    const db = await openTestDb(server.dataDir, { write: true });
    try {
      // Queued for tomorrow, so the sender leaves it in the list.
      await db.run(
        `INSERT INTO sms_messages (id, "to", text, purpose, status, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
        "d".repeat(24),
        "+919812344321",
        "Your CareBridge account has been deleted.",
        "erased",
        "queued",
        db.time(Date.now() + 86_400_000),
        db.time(Date.now()),
      );
    } finally {
      await db.close();
    }
    const b = new Browserish(server.url);
    expect((await b.post("/login", admin)).status).toBe(302);
    const labels: Record<string, string> = {
      en: "Account deleted",
      hi: "खाता हटाया गया",
      bn: "অ্যাকাউন্ট মুছে ফেলা হয়েছে",
      ta: "கணக்கு நீக்கப்பட்டது",
    };
    for (const [lng, label] of Object.entries(labels)) {
      b.cookies.set("lng", encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64")));
      const html = await (
        await b.fetch(`/dashboard/messages?kind=sms&status=queued&lng=${lng}`, {
          headers: { "Accept-Language": lng },
        })
      ).text();
      expect(html, lng).toContain("+91******4321");
      expect(html, lng).toContain(label);
      expect(html, lng).not.toMatch(/<dd>erased<\/dd>/);
    }
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const purpose = JSON.stringify(doc).match(/"description":"[^"]*signup-code[^"]*"/)?.[0] ?? "";
    expect(purpose).toContain("erased");
  });
});
