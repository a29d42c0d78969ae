import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, storedKeys, type TestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { startKannel, type DeliveredSms, type Kannel } from "../helpers/kannel";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { TestAuthenticator as AuthApp } from "../helpers/totp-app";
import { onlyWith, requireKannel } from "../helpers/requires";

// Needs Kannel (the SMS tests' real gateway): skipped without it, naming the package, except under CI.
const { afterAll, beforeAll, describe, it } = onlyWith(requireKannel(), vitest);

/*
 * Erasing an account through the API and the screens is one domain function
 * (rights.eraseAccount) — the password again, the second factor when two-step login is on, the
 * notice with its cancel link by default, `immediate` only with that re-authentication — and an
 * erasure leaves nothing of the person behind: every table of the database (listed from the
 * database itself) and the file store are searched for the number, the name, the e-mail and the
 * upload's bytes. Real SMTP, real Kannel, SQLite or PostgreSQL + S3 (TEST_BACKEND=pg-s3).
 */

const ADMIN = { email: "admin@erase.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let kannel: Kannel;
let api: ReturnType<typeof apiClient>;
let db: TestDb;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  smtp = await startSmtp();
  kannel = await startKannel();
  server = await startServer({
    SMTP_URL: smtp.url,
    SMS_URL: kannel.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    MFA_REQUIRED_FOR_ADMINS: "false",
    // The rights job (due erasures, audit and SMS retention) every second.
    RIGHTS_JOB_SECONDS: "1",
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
}, 120_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await kannel?.stop();
  await smtp?.close();
});

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await sleep(100);
  }
}

async function emailPatient(email: string) {
  const r = await signupViaApi(api, smtp, codeFrom, { email, firstName: "Ira", lastName: "Leaving" });
  return { token: r.token as string, id: r.user._id as string };
}

const userCount = async (id: string) =>
  Number((await db.get<{ n: number }>("SELECT count(*) AS n FROM users WHERE id = ?", id))!.n);

describe("DELETE /profile/delete-profile is the erasure", () => {
  it("a bearer token alone erases nothing: the password is required and named", async () => {
    const p = await emailPatient("token-only@erase.test");
    const bare = await api.del("/profile/delete-profile", undefined, p.token);
    expect(bare.status).toBe(400);
    expect(bare.body.success).toBe(false);
    expect(bare.body.errors.password).toEqual(["Please enter your password to delete your account"]);
    const empty = await api.raw("DELETE", "/profile/delete-profile", {}, p.token);
    expect(empty.status).toBe(400);
    expect(Object.keys(empty.body.errors)).toEqual(["password"]);
    const wrong = await api.del(
      "/profile/delete-profile",
      { password: "Wrong-pass-123", immediate: true },
      p.token,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("The password is not right. Your account was not deleted.");
    expect(wrong.body.errors.password).toBeTruthy();
    const badFlag = await api.raw(
      "DELETE",
      "/profile/delete-profile",
      { password: strongPassword, immediate: "yes" },
      p.token,
    );
    expect(badFlag.status).toBe(400);
    expect(Object.keys(badFlag.body.errors)).toEqual(["immediate"]);
    expect(await userCount(p.id)).toBe(1);
    expect((await api.get("/profile/get-user-details", p.token)).status).toBe(200);
    expect(
      await db.get("SELECT id FROM rights_requests WHERE user_id = ? AND type = 'erasure'", p.id),
    ).toBeUndefined();
  });

  it("by default asks for the erasure with the notice and the cancel link; immediate erases now, pseudonymised", async () => {
    const email = "notice@erase.test";
    const p = await emailPatient(email);
    const asked = await api.del("/profile/delete-profile", { password: strongPassword }, p.token);
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ success: true, data: { erased: false } });
    const due = Date.parse(asked.body.data.dueAt);
    expect(Math.abs(due - (Date.now() + 48 * 3_600_000))).toBeLessThan(120_000);
    expect(asked.body.data.request).toMatchObject({ type: "erasure", status: "open" });
    const mail = await smtp.waitFor(email, /will be deleted/);
    expect(mail.raw.replace(/=\r?\n/g, "")).toMatch(/\/my-data\/cancel-erasure\/[A-Za-z0-9_-]{22}/);
    // Nothing is gone yet: the account works, and one erasure is open.
    expect((await api.get("/profile/get-user-details", p.token)).status).toBe(200);
    expect(await userCount(p.id)).toBe(1);
    const again = await api.del("/profile/delete-profile", { password: strongPassword }, p.token);
    expect(again.status).toBe(409);

    const now = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      p.token,
    );
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({
      success: true,
      message: "Profile Deleted Successfully",
      data: { erased: true },
    });
    expect(await userCount(p.id)).toBe(0);
    expect((await api.get("/profile/get-user-details", p.token)).status).toBe(401);
    // The same erasure as the rights centre's: one request, done; the audit trail pseudonymised.
    const reqs = await db.all("SELECT status FROM rights_requests WHERE id = ?", asked.body.data.request._id);
    expect(reqs).toEqual([{ status: "done" }]);
    expect(
      await db.get("SELECT id FROM audit_events WHERE actor_id = ? OR subject_id = ?", p.id, p.id),
    ).toBeUndefined();
    const erasure = await db.get<{ detail: string }>(
      "SELECT detail FROM audit_events WHERE action = 'account.erasure' AND subject_id = ?",
      asked.body.data.request._id,
    );
    expect(JSON.parse(erasure!.detail).person).toMatch(/^erased-[0-9a-f]{24}$/);
    const asker = await db.all<{ actor_id: string; ip: string | null }>(
      "SELECT actor_id, ip FROM audit_events WHERE action = 'account.erasure_request' AND subject_id = ?",
      asked.body.data.request._id,
    );
    expect(asker.length).toBe(2);
    for (const a of asker) expect(a).toEqual({ actor_id: JSON.parse(erasure!.detail).person, ip: null });
  });

  it("with two-step login on, the code is required and checked (DELETE or POST)", async () => {
    const p = await emailPatient("two-step@erase.test");
    const setup = await api.post("/auth/two-factor/setup", { password: strongPassword }, p.token);
    expect(setup.status).toBe(200);
    const app = new AuthApp(setup.body.data.secret);
    expect(
      (
        await api.post(
          "/auth/two-factor/confirm",
          { password: strongPassword, code: await app.next() },
          p.token,
        )
      ).status,
    ).toBe(200);

    const noCode = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      p.token,
    );
    expect(noCode.status).toBe(400);
    expect(noCode.body.errors.code).toEqual(["Enter the 6-digit code from your app"]);
    const wrongCode = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, code: "000000", immediate: true },
      p.token,
    );
    expect(wrongCode.status).toBe(400);
    expect(Object.keys(wrongCode.body.errors)).toEqual(["code"]);
    // A wrong password is refused before the code is looked at (the code is not used up).
    const wrongPassword = await api.del(
      "/profile/delete-profile",
      { password: "Wrong-pass-123", code: await app.next(), immediate: true },
      p.token,
    );
    expect(wrongPassword.status).toBe(400);
    expect(Object.keys(wrongPassword.body.errors)).toEqual(["password"]);
    expect(await userCount(p.id)).toBe(1);

    const ok = await api.post(
      "/profile/delete-profile",
      { password: strongPassword, code: await app.next(), immediate: true },
      p.token,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ erased: true, dueAt: null });
    expect(await userCount(p.id)).toBe(0);
  });

  it("the screen's Delete account is the same erasure: the notice unless asked for now", async () => {
    const email = "screen@erase.test";
    const p = await emailPatient(email);
    const web = new Browserish(server.url);
    expect((await web.post("/login", { email, password: strongPassword })).status).toBe(302);
    const wrong = await web.post("/dashboard/settings", {
      intent: "delete-confirm",
      password: "Wrong-pass-123",
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("The password is not right. Your account was not deleted.");

    const later = await web.post("/dashboard/settings", {
      intent: "delete-confirm",
      password: strongPassword,
    });
    expect(later.status).toBe(302);
    expect(later.headers.get("Location")).toBe("/dashboard/my-data#erasure");
    expect(await userCount(p.id)).toBe(1);
    const open = await db.get<{ due_at: unknown }>(
      "SELECT due_at FROM rights_requests WHERE user_id = ? AND type = 'erasure' AND status = 'open'",
      p.id,
    );
    expect(open).toBeTruthy();
    await smtp.waitFor(email, /will be deleted/);

    const now = await web.post("/dashboard/settings", {
      intent: "delete-confirm",
      password: strongPassword,
      immediate: "on",
    });
    expect(now.status).toBe(302);
    expect(now.headers.get("Location")).toBe("/");
    expect(await userCount(p.id)).toBe(0);
    expect(
      await db.get("SELECT id FROM audit_events WHERE actor_id = ? OR subject_id = ?", p.id, p.id),
    ).toBeUndefined();
  });
});

describe("erasing on the screens with two-step login on", () => {
  it("Settings and My data ask for the code too; a recovery code does", async () => {
    const email = "screen-two-step@erase.test";
    const p = await emailPatient(email);
    const setup = await api.post("/auth/two-factor/setup", { password: strongPassword }, p.token);
    const app = new AuthApp(setup.body.data.secret);
    const confirmed = await api.post(
      "/auth/two-factor/confirm",
      { password: strongPassword, code: await app.next() },
      p.token,
    );
    expect(confirmed.status).toBe(200);
    const codes = confirmed.body.data.recoveryCodes as string[];
    const web = new Browserish(server.url);
    expect((await web.post("/login", { email, password: strongPassword })).headers.get("Location")).toBe(
      "/login-2fa",
    );
    expect((await web.post("/login-2fa", { intent: "recovery", recoveryCode: codes[0] })).status).toBe(302);
    // The confirmation step (without JavaScript) shows the code field and the "now" box.
    const confirm = await (await web.post("/dashboard/settings", { intent: "delete" })).text();
    expect(confirm.includes("Code from your app, or a recovery code")).toBe(true);
    expect(confirm.includes("Delete my account now, without the 48 hours notice")).toBe(true);

    const noCode = await web.post("/dashboard/settings", {
      intent: "delete-confirm",
      password: strongPassword,
      immediate: "on",
    });
    expect(noCode.status).toBe(400);
    expect(await noCode.text()).toContain("Enter the 6-digit code from your app");
    const myDataNoCode = await web.post("/dashboard/my-data", {
      intent: "erasure",
      password: strongPassword,
    });
    expect(myDataNoCode.status).toBe(400);
    expect(await myDataNoCode.text()).toContain("Enter the 6-digit code from your app");
    const wrongRecovery = await web.post("/dashboard/my-data", {
      intent: "erasure",
      password: strongPassword,
      proof: "aaaaa-bbbbb",
    });
    expect(wrongRecovery.status).toBe(400);
    expect(await wrongRecovery.text()).toContain("That recovery code is not right or was already used");
    expect(await userCount(p.id)).toBe(1);
    expect(
      await db.get("SELECT id FROM rights_requests WHERE user_id = ? AND type = 'erasure'", p.id),
    ).toBeUndefined();

    const asked = await web.post("/dashboard/my-data", {
      intent: "erasure",
      password: strongPassword,
      proof: codes[1],
    });
    expect(asked.status).toBe(302);
    expect(
      await db.get(
        "SELECT id FROM rights_requests WHERE user_id = ? AND type = 'erasure' AND status = 'open'",
        p.id,
      ),
    ).toBeTruthy();
    const now = await web.post("/dashboard/settings", {
      intent: "delete-confirm",
      password: strongPassword,
      proof: codes[2],
      immediate: "on",
    });
    expect(now.status).toBe(302);
    expect(now.headers.get("Location")).toBe("/");
    expect(await userCount(p.id)).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Point 7: nothing of the person stays

const MARKER = "ERASE-ME-BYTES-7f3a";

/** A PDF the server accepts, with a marker the store must never keep in the clear (and not at all after). */
function pdfOf(size: number): Buffer {
  const body = randomBytes(size);
  Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1").copy(body, 0);
  body.write(MARKER, 4096, "latin1");
  return body;
}
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

async function smsTo(number: string, match: RegExp, timeoutMs = 20_000): Promise<DeliveredSms> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = kannel
      .delivered()
      .filter((m) => m.receiver.replace(/^00/, "+") === number)
      .find((m) => match.test(m.text));
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no SMS to ${number} matching ${match}`);
    await sleep(50);
  }
}

/** Every text-like column of every table, as the database itself lists them. */
async function textColumns(): Promise<{ table: string; column: string }[]> {
  if (db.kind === "postgres") {
    return db.all(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
       WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')`,
    );
  }
  const tables = await db.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  );
  const out: { table: string; column: string }[] = [];
  for (const { name } of tables) {
    for (const c of await db.all<{ name: string; type: string }>(`PRAGMA table_info("${name}")`)) {
      // SQLite keeps text in any column without a numeric affinity that forbids it; look at all but integers.
      if (!/INT/i.test(c.type)) out.push({ table: name, column: c.name });
    }
  }
  return out;
}

/** Where each needle still appears: "table.column: needle". */
async function findEverywhere(needles: string[]): Promise<string[]> {
  const cols = await textColumns();
  expect(cols.length).toBeGreaterThan(40);
  const found: string[] = [];
  for (const { table, column } of cols) {
    for (const needle of needles) {
      const cast = db.kind === "postgres" ? `CAST("${column}" AS text)` : `CAST("${column}" AS TEXT)`;
      const hit = await db.get<{ n: number }>(
        `SELECT count(*) AS n FROM "${table}" WHERE ${cast} LIKE ?`,
        `%${needle}%`,
      );
      if (Number(hit?.n ?? 0) > 0) found.push(`${table}.${column}: ${needle}`);
    }
  }
  return found;
}

describe("an erasure leaves nothing of the person", () => {
  it("a phone patient with SMS, codes, a contact message, a callback and an unfinished upload: all gone", async () => {
    const national = "9812377441";
    const phone = `+91${national}`;
    const spaced = `${national.slice(0, 5)} ${national.slice(5)}`;
    const firstName = "Vasundhara";
    const lastName = "Erasewell";
    const contactEmail = "vasundhara.erasewell@example.in";

    // Sign-up by SMS through Kannel.
    expect((await api.post("/auth/send-otp", { phone: `+91 ${spaced}` })).status).toBe(200);
    const code = /\b(\d{6})\b/.exec((await smsTo(phone, /code/)).text)![1];
    const signed = await api.post("/auth/signup", {
      accountType: "Patient",
      firstName,
      lastName,
      phone,
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: code,
    });
    expect(signed.status).toBe(201);
    const userId = signed.body.data._id as string;
    const token = (await api.post("/auth/login", { phone, password: strongPassword })).body.token as string;
    // A login code by SMS too (a fresh verification_codes row naming the number).
    expect((await api.post("/auth/send-login-code", { phone })).status).toBe(200);
    await smsTo(phone, /log in|login|code/);

    // A contact message signed in, and a callback request signed out with the number.
    const web = new Browserish(server.url);
    expect((await web.post("/login", { email: phone, password: strongPassword })).status).toBe(302);
    const contact = await web.post("/contact-us", {
      name: `${firstName} ${lastName}`,
      email: contactEmail,
      message: `Please call me on ${spaced}, ${firstName} here.`,
    });
    expect(contact.status).toBe(302);
    const visitor = new Browserish(server.url);
    const callback = await visitor.post("/?index", {
      name: `${firstName} ${lastName}`,
      countryCode: "+91",
      phoneNumber: national,
      message: `Call ${firstName} about the ECG`,
    });
    expect(callback.status).toBe(302);
    // Someone else's callback and contact message stay.
    const stranger = await new Browserish(server.url).post("/?index", {
      name: "Other Person",
      countryCode: "+91",
      phoneNumber: "9812377999",
      message: "Not the erased person",
    });
    expect(stranger.status).toBe(302);
    expect(
      (
        await new Browserish(server.url).post("/contact-us", {
          name: "Other Person",
          email: "other@example.in",
          message: "I stay",
        })
      ).status,
    ).toBe(302);

    // An unfinished resumable upload: half of the file stored as encrypted segments.
    const file = pdfOf(300_000);
    const fields = {
      reportType: "ECG",
      countryCode: "+91",
      phoneNumber: spaced,
      description: `${firstName}'s ECG`,
      consent: "on",
      filename: `${lastName}-ecg.pdf`,
    };
    const created = await fetch(`${server.url}/api/v1/uploads`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token}`,
        "Tus-Resumable": "1.0.0",
        "Upload-Length": String(file.length),
        "Upload-Metadata": Object.entries(fields)
          .map(([k, v]) => `${k} ${b64(v)}`)
          .join(","),
      },
    });
    expect(created.status).toBe(201);
    const location = created.headers.get("location")!;
    const uploadId = location.split("/").pop()!;
    const patched = await fetch(server.url + location, {
      method: "PATCH",
      headers: {
        Authorization: `Bearer ${token}`,
        "Tus-Resumable": "1.0.0",
        "Upload-Offset": "0",
        "Content-Type": "application/offset+octet-stream",
      },
      body: new Uint8Array(file.subarray(0, 150_000)),
    });
    expect(patched.status).toBe(204);
    const segments = (await storedKeys(server)).filter((k) => k.startsWith(uploadId));
    expect(segments.length).toBeGreaterThan(0);

    // The erasure asked first with notice ("will be deleted on …" by SMS), then carried out now.
    const asked = await api.del("/profile/delete-profile", { password: strongPassword }, token);
    expect(asked.status).toBe(202);
    await smsTo(phone, /deleted/);
    const before = await findEverywhere([phone, national]);
    expect(before.some((h) => h.startsWith("sms_messages.to"))).toBe(true);
    expect(before.some((h) => h.startsWith("callback_requests.phone_number"))).toBe(true);

    const erased = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      token,
    );
    expect(erased.status).toBe(200);
    // The last SMS tells the person; once sent, its row goes too.
    await smsTo(phone, /has been deleted/);
    const left = await waitFor(
      () => findEverywhere([phone, national, spaced, firstName, lastName, contactEmail, userId, MARKER]),
      (hits) => hits.length === 0,
      20_000,
    );
    expect(left).toEqual([]);

    // Only pseudonymised audit events remain; the store holds none of the upload's segments.
    expect(
      await db.get("SELECT id FROM audit_events WHERE actor_id = ? OR subject_id = ?", userId, userId),
    ).toBeUndefined();
    const pseudonymous = await db.all("SELECT id FROM audit_events WHERE actor_id LIKE 'erased-%'");
    expect(pseudonymous.length).toBeGreaterThan(0);
    expect((await storedKeys(server)).filter((k) => k.startsWith(uploadId))).toEqual([]);
    expect(await db.get("SELECT id FROM upload_sessions WHERE id = ?", uploadId)).toBeUndefined();
    // Other people's messages stay.
    expect(await db.get("SELECT id FROM callback_requests WHERE phone_number = '9812377999'")).toBeTruthy();
    expect(await db.get("SELECT id FROM contact_messages WHERE email = 'other@example.in'")).toBeTruthy();
  });

  it("an erased expert's name and registration leave the letters they signed; the letter stays genuine on /verify", async () => {
    const firstName = "Hiranmayi";
    const lastName = "Signwell";
    const reg = "ERASE-REG-4411";
    const council = "Zetland Erasure Council";
    const email = "hiranmayi.signwell@erase.test";
    const expert = await signupViaApi(api, smtp, codeFrom, {
      email,
      accountType: "Expert",
      firstName,
      lastName,
      extra: {
        specialties: ["Radiology"],
        registrationNumber: reg,
        registrationCouncil: council,
        yearsOfPractice: 7,
      },
    });
    const expertId = expert.user._id as string;
    const admin = (await api.post("/auth/login", ADMIN)).body.token as string;
    expect((await api.post("/expert/approve-expert", { expertId }, admin)).status).toBe(200);
    const patient = await emailPatient("keeps.letter@erase.test");
    const up = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "X-Ray", phoneNumber: "9876543210", countryCode: "+91" },
        { name: "r.pdf", data: samplePdf(), type: "application/pdf" },
      ),
      patient.token,
    );
    expect(up.status).toBe(201);
    const reportId = up.body.data._id as string;
    expect((await api.post(`/report/claim/${reportId}`, {}, expert.token)).status).toBe(200);
    const signed = await api.post(
      `/report/add-review/${reportId}`,
      { review: "No fracture seen." },
      expert.token,
    );
    expect(signed.status).toBe(200);
    const code = signed.body.data.letter.verifyCode as string;
    const before = await (await fetch(`${server.url}/verify/${code}`)).text();
    expect(before).toContain(reg);
    expect(before).toContain(lastName);
    expect((await findEverywhere([reg, council])).some((h) => h.startsWith("reports.signer_"))).toBe(true);

    const erased = await api.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      expert.token,
    );
    expect(erased.status).toBe(200);
    expect(await userCount(expertId)).toBe(0);
    // The last mail tells the person (decision 0061: through the mail outbox); once sent, its row goes too.
    const left = await waitFor(
      () => findEverywhere([firstName, lastName, reg, council, email, expertId]),
      (hits) => hits.length === 0,
      20_000,
    );
    expect(left).toEqual([]);
    // The patient keeps the letter and its review; /verify: genuine, the signer no longer registered.
    const mine = await api.get(`/report/get-report-by-patientId/${patient.id}?pageSize=100`, patient.token);
    const report = mine.body.data.find((r: { _id: string }) => r._id === reportId);
    expect(report.review).toBe("No fracture seen.");
    expect(report.expert).toBeNull();
    const after = await (await fetch(`${server.url}/verify/${code}`)).text();
    expect(after).toContain("the expert who signed it is no longer registered");
    expect(after).not.toContain(reg);
    expect(after).not.toContain(lastName);
  });

  it("every number of the person goes: a fixed-line contact number, a country not in SMS_COUNTRIES, a number the metadata calls invalid", async () => {
    const people = [
      { key: "landline", countryCode: "+91" as const, contactNumber: "1123456789", e164: "+911123456789" },
      { key: "uk", countryCode: "+44" as const, contactNumber: "7911123456", e164: "+447911123456" },
      { key: "invalid", countryCode: "+91" as const, contactNumber: "1000000000", e164: "+911000000000" },
    ];
    let n = 0;
    for (const p of people) {
      const email = `numbers.${p.key}@erase.test`;
      const r = await signupViaApi(api, smtp, codeFrom, {
        email,
        firstName: "Numbered",
        lastName: `Person${p.key}`,
        extra: { countryCode: p.countryCode, contactNumber: p.contactNumber },
      });
      // An SMS row to the number (sent while it could still get SMS, or under an older check) ...
      await db.run(
        'INSERT INTO sms_messages (id, "to", text, purpose, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)',
        `b1b2c3d4e5f6a7b8c9d0e1f${n++}`,
        p.e164,
        `Text to ${p.key}`,
        "notice",
        "sent",
        db.time(Date.now()),
        db.time(Date.now()),
      );
      // ... and a callback request to it, signed out, with the number as typed (a leading zero).
      const cb = await new Browserish(server.url).post("/?index", {
        name: `Caller ${p.key}`,
        countryCode: p.countryCode,
        phoneNumber: `0${p.contactNumber}`,
        message: "Please call",
      });
      expect(cb.status).toBe(302);
      const digits = p.contactNumber;
      expect(await findEverywhere([digits, p.e164])).not.toEqual([]);
      const erased = await api.del(
        "/profile/delete-profile",
        { password: strongPassword, immediate: true },
        r.token,
      );
      expect(erased.status).toBe(200);
      const left = await waitFor(
        () => findEverywhere([digits, p.e164, email, `Person${p.key}`]),
        (hits) => hits.length === 0,
        20_000,
      );
      expect(left, p.key).toEqual([]);
    }
  });

  it("sent SMS older than SMS_RETENTION_DAYS (30) are pruned by the rights job; newer and queued ones stay", async () => {
    const old = db.time(Date.now() - 31 * 86_400_000);
    const recent = db.time(Date.now() - 29 * 86_400_000);
    const later = db.time(Date.now() + 86_400_000);
    const insert = (id: string, status: string, createdAt: number | Date) =>
      db.run(
        'INSERT INTO sms_messages (id, "to", text, purpose, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)',
        id,
        "+919812300001",
        "old text",
        "notice",
        status,
        status === "queued" ? later : createdAt,
        createdAt,
      );
    await insert("a1b2c3d4e5f6a7b8c9d0e1f2", "sent", old);
    await insert("a1b2c3d4e5f6a7b8c9d0e1f3", "failed", old);
    await insert("a1b2c3d4e5f6a7b8c9d0e1f4", "sent", recent);
    await insert("a1b2c3d4e5f6a7b8c9d0e1f5", "queued", old);
    const ids = () =>
      db.all<{ id: string }>("SELECT id FROM sms_messages WHERE \"to\" = '+919812300001' ORDER BY id");
    const after = await waitFor(ids, (r) => r.length === 2, 10_000);
    expect(after.map((r) => r.id)).toEqual(["a1b2c3d4e5f6a7b8c9d0e1f4", "a1b2c3d4e5f6a7b8c9d0e1f5"]);
  });
});

describe("without SMS_URL: the outbox keeps nothing of an erased person", () => {
  let bare: TestServer;
  let bareDb: TestDb;
  let bareApi: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    bare = await startServer({
      SMS_URL: "", // unset, as the README starts it: messages go to data/sms-outbox
      SMTP_URL: smtp.url,
      RATE_LIMIT_DISABLED: "1",
      RIGHTS_JOB_SECONDS: "1",
    });
    bareApi = apiClient(bare.url);
    bareDb = await openTestDb(bare.dataDir, { write: true });
  }, 120_000);
  afterAll(async () => {
    await bareDb?.close();
    await bare?.stop();
  });

  const outbox = () => path.join(bare.dataDir, "sms-outbox");
  /** The outbox's messages, as the server wrote them. */
  const outboxed = () =>
    existsSync(outbox())
      ? readdirSync(outbox())
          .filter((f) => f.endsWith(".json"))
          .map((f) => ({
            file: f,
            ...(JSON.parse(readFileSync(path.join(outbox(), f), "utf8")) as { to: string; text: string }),
          }))
      : [];
  const anyOutboxFileHas = (needles: string[]) =>
    existsSync(outbox())
      ? readdirSync(outbox()).filter((f) => {
          const text = readFileSync(path.join(outbox(), f), "utf8");
          return needles.some((n) => text.includes(n) || f.includes(n));
        })
      : [];

  it("the erasure deletes the person's outbox files and the last message leaves none; files older than SMS_RETENTION_DAYS are pruned", async () => {
    const national = "9812377552";
    const phone = `+91${national}`;
    expect((await bareApi.post("/auth/send-otp", { phone })).status).toBe(200);
    const codeFile = await waitFor(
      async () => outboxed().find((m) => m.to === phone),
      (m) => !!m,
    );
    const code = /\b(\d{6})\b/.exec(codeFile!.text)![1];
    const signed = await bareApi.post("/auth/signup", {
      accountType: "Patient",
      firstName: "Outboxa",
      lastName: "Keepsnot",
      phone,
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: code,
    });
    expect(signed.status).toBe(201);
    const token = (await bareApi.post("/auth/login", { phone, password: strongPassword })).body
      .token as string;
    expect((await bareApi.post("/auth/send-login-code", { phone })).status).toBe(200);
    await waitFor(
      async () => outboxed().filter((m) => m.to === phone).length,
      (n) => n >= 2,
    );
    // Someone else's message stays.
    expect((await bareApi.post("/auth/send-otp", { phone: "+919812377553" })).status).toBe(200);
    await waitFor(
      async () => outboxed().some((m) => m.to === "+919812377553"),
      (ok) => ok,
    );

    const erased = await bareApi.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      token,
    );
    expect(erased.status).toBe(200);
    // The last message ("your account has been deleted") is taken by the sender and its row forgotten ...
    const rowsLeft = await waitFor(
      async () => (await bareDb.all('SELECT id FROM sms_messages WHERE "to" = ?', phone)).length,
      (n) => n === 0,
    );
    expect(rowsLeft).toBe(0);
    await sleep(500);
    // ... and no file names the person: neither the earlier codes nor the last message.
    expect(anyOutboxFileHas([phone, national, "Outboxa", "Keepsnot"])).toEqual([]);
    expect(outboxed().some((m) => m.to === "+919812377553")).toBe(true);

    // Retention: an outbox file older than 30 days goes with the rights job; a newer one stays.
    const oldFile = path.join(outbox(), "2020-01-01T00-00-00-000Z-c1c2c3d4e5f6a7b8c9d0e1f2.json");
    const newFile = path.join(outbox(), "2020-01-02T00-00-00-000Z-c1c2c3d4e5f6a7b8c9d0e1f3.json");
    for (const f of [oldFile, newFile])
      writeFileSync(f, JSON.stringify({ to: "+919812300009", text: "old", purpose: "notice" }), {
        mode: 0o600,
      });
    const old = new Date(Date.now() - 31 * 86_400_000);
    utimesSync(oldFile, old, old);
    const recent = new Date(Date.now() - 29 * 86_400_000);
    utimesSync(newFile, recent, recent);
    expect(
      await waitFor(
        async () => existsSync(oldFile),
        (e) => !e,
        10_000,
      ),
    ).toBe(false);
    expect(existsSync(newFile)).toBe(true);
  });
});
