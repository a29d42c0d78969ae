import bcrypt from "bcryptjs";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { onPostgres } from "../helpers/backends";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, freePort, startServer, type TestServer } from "../helpers/server";
import { codeFrom, resetTokenFrom, startSmtp } from "../helpers/smtp";

/**
 * Account hardening: Argon2id (bcrypt hashes migrate on login, bytes after 72 count), common
 * passwords refused, reset links revoked by a password change, the password asked again before
 * deletion, safe redirects after login, private data files. Rate limits and the idle timeout run
 * on a second server; the reset mail's timing and shutdown flush on a third with a slow SMTP server.
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ SMTP_URL: smtp.url, RATE_LIMIT_DISABLED: "1" });
  api = apiClient(server.url);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const COMMON_EN = "This password is too common and easy to guess. Please choose another one.";

const signupBody = (email: string, password: string, otp: string) => ({
  accountType: "Patient" as const,
  firstName: "Asha",
  lastName: "Roy",
  email,
  contactNumber: "9876543210",
  password,
  confirmPassword: password,
  otp,
});

async function signup(email: string, password = strongPassword) {
  await api.post("/auth/send-otp", { email });
  const code = codeFrom(await smtp.waitFor(email, /verification code/));
  const res = await api.post("/auth/signup", signupBody(email, password, code));
  expect(res.status).toBe(201);
  return res.body.data._id as string;
}

async function storedHash(dataDir: string, email: string): Promise<string> {
  const db = await openTestDb(dataDir);
  try {
    return (await db.get<{ h: string }>("SELECT password_hash AS h FROM users WHERE email = ?", email))!.h;
  } finally {
    await db.close();
  }
}

async function loginWeb(base: string, email: string, password = strongPassword) {
  const b = new Browserish(base);
  const res = await b.post("/login", { email, password });
  expect(res.status).toBe(302);
  return b;
}

describe("password hashing", () => {
  it("an account with an old bcrypt hash logs in and its hash becomes Argon2id", async () => {
    const email = "legacy@example.com";
    await signup(email);
    expect(await storedHash(server.dataDir, email)).toMatch(/^\$argon2id\$v=19\$/);
    const db = await openTestDb(server.dataDir, { write: true });
    await db.run(
      "UPDATE users SET password_hash = ? WHERE email = ?",
      bcrypt.hashSync(strongPassword, 4),
      email,
    );
    await db.close();
    expect(await storedHash(server.dataDir, email)).toMatch(/^\$2[ab]\$/);

    expect((await api.post("/auth/login", { email, password: "Wrong-pass-123" })).status).toBe(401);
    expect(await storedHash(server.dataDir, email)).toMatch(/^\$2[ab]\$/);
    expect((await api.post("/auth/login", { email, password: strongPassword })).status).toBe(200);
    expect(await storedHash(server.dataDir, email)).toMatch(/^\$argon2id\$/);
    expect((await api.post("/auth/login", { email, password: strongPassword })).status).toBe(200);
  });

  it("passwords that differ only after byte 72 are different passwords", async () => {
    const email = "long@example.com";
    const head = "Long-pass-".padEnd(72, "x");
    await signup(email, `${head}-one-A1`);
    expect((await api.post("/auth/login", { email, password: `${head}-two-B2` })).status).toBe(401);
    expect((await api.post("/auth/login", { email, password: head })).status).toBe(401);
    expect((await api.post("/auth/login", { email, password: `${head}-one-A1` })).status).toBe(200);
  });
});

describe("common passwords", () => {
  it("12345678 is refused on API and screen signup, password change and reset, in the user's language", async () => {
    await api.post("/auth/send-otp", { email: "common@example.com" });
    const code = codeFrom(await smtp.waitFor("common@example.com", /verification code/));
    const apiSignup = await api.post("/auth/signup", signupBody("common@example.com", "12345678", code));
    expect(apiSignup.status).toBe(400);
    expect(apiSignup.body).toMatchObject({ success: false, message: COMMON_EN });
    expect(apiSignup.body.errors.password).toEqual([COMMON_EN]);
    // The code was not spent: the same code signs up with a better password.
    expect(
      (await api.post("/auth/signup", signupBody("common@example.com", strongPassword, code))).status,
    ).toBe(201);
    // Case does not help.
    const hi = await api.post(
      "/auth/signup",
      signupBody("common2@example.com", "PassWord123", "123456"),
      undefined,
      { "Accept-Language": "hi" },
    );
    expect(hi.status).toBe(400);
    expect(hi.body.errors.password[0]).toMatch(/पासवर्ड/);

    const b = new Browserish(server.url);
    const screen = await b.post("/signup", {
      accountType: "Patient",
      firstName: "Asha",
      lastName: "Roy",
      email: "common-screen@example.com",
      countryCode: "+91",
      contactNumber: "9876543210",
      password: "12345678",
      confirmPassword: "12345678",
    });
    expect(screen.status).toBe(400);
    expect(await screen.text()).toContain(COMMON_EN);
    expect(b.cookies.has("pending_signup")).toBe(false);

    const token = (await api.post("/auth/login", { email: "common@example.com", password: strongPassword }))
      .body.token;
    const change = await api.post(
      "/auth/change-password",
      { oldPassword: strongPassword, newPassword: "12345678", confirmNewPassword: "12345678" },
      token,
    );
    expect(change.status).toBe(400);
    expect(change.body.errors.newPassword).toEqual([COMMON_EN]);

    const web = await loginWeb(server.url, "common@example.com");
    const changeScreen = await web.post("/dashboard/settings", {
      intent: "password",
      oldPassword: strongPassword,
      newPassword: "12345678",
      confirmNewPassword: "12345678",
    });
    expect(changeScreen.status).toBe(400);
    expect(await changeScreen.text()).toContain(COMMON_EN);

    expect((await api.post("/auth/reset-password-token", { email: "common@example.com" })).status).toBe(200);
    const reset = resetTokenFrom(await smtp.waitFor("common@example.com", /reset/i));
    const r = await api.post("/auth/reset-password", {
      token: reset,
      password: "12345678",
      confirmPassword: "12345678",
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.password).toEqual([COMMON_EN]);
    const resetScreen = await new Browserish(server.url).post(`/update-password/${reset}`, {
      password: "12345678",
      confirmPassword: "12345678",
    });
    expect(resetScreen.status).toBe(400);
    expect(await resetScreen.text()).toContain(COMMON_EN);
    // Still the old password, and the link still works for a good one.
    expect(
      (await api.post("/auth/login", { email: "common@example.com", password: strongPassword })).status,
    ).toBe(200);
    const ok = await api.post("/auth/reset-password", {
      token: reset,
      password: "Fresh-pass-123",
      confirmPassword: "Fresh-pass-123",
    });
    expect(ok.status).toBe(200);
  });
});

describe("reset links", () => {
  it("a password change ends outstanding reset links", async () => {
    const email = "revoke@example.com";
    await signup(email);
    expect((await api.post("/auth/reset-password-token", { email })).status).toBe(200);
    const link = resetTokenFrom(await smtp.waitFor(email, /reset/i));
    const web = await loginWeb(server.url, email);
    const changed = await web.post("/dashboard/settings", {
      intent: "password",
      oldPassword: strongPassword,
      newPassword: "New-pass-9876",
      confirmNewPassword: "New-pass-9876",
    });
    expect(changed.status).toBe(302);
    const old = await api.post("/auth/reset-password", {
      token: link,
      password: "Attacker-pass-1",
      confirmPassword: "Attacker-pass-1",
    });
    expect(old.status).toBe(400);
    const page = await new Browserish(server.url).fetch(`/update-password/${link}`);
    expect(await page.text()).toContain("This reset link is invalid or has expired.");
    expect((await api.post("/auth/login", { email, password: "New-pass-9876" })).status).toBe(200);
  });
});

describe("account deletion asks for the password", () => {
  it("screen: no password or a wrong one deletes nothing; the right one deletes", async () => {
    const email = "leaving@example.com";
    await signup(email);
    const web = await loginWeb(server.url, email);
    const none = await web.post("/dashboard/settings", { intent: "delete-confirm" });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain("Please enter your password to delete your account");
    const wrong = await web.post("/dashboard/settings", {
      intent: "delete-confirm",
      password: "Wrong-pass-123",
    });
    expect(wrong.status).toBe(400);
    const html = await wrong.text();
    expect(html).toContain("The password is not right. Your account was not deleted.");
    expect(html).not.toContain("Wrong-pass-123");
    expect(await storedHash(server.dataDir, email)).toBeTruthy();
    expect((await web.fetch("/dashboard/settings")).status).toBe(200);

    const ok = await web.post("/dashboard/settings", {
      intent: "delete-confirm",
      password: strongPassword,
      immediate: "on",
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/");
    const db = await openTestDb(server.dataDir);
    expect(await db.get("SELECT count(*) AS n FROM users WHERE email = ?", email)).toEqual({ n: 0 });
    await db.close();
  });

  it("API: the password is required and must be right (a token alone erases nothing)", async () => {
    const email = "leaving-api@example.com";
    await signup(email);
    const token = (await api.post("/auth/login", { email, password: strongPassword })).body.token;
    const wrong = await api.del("/profile/delete-profile", { password: "Wrong-pass-123" }, token);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({
      success: false,
      message: "The password is not right. Your account was not deleted.",
    });
    const none = await api.del("/profile/delete-profile", undefined, token);
    expect(none.status).toBe(400);
    expect(Object.keys(none.body.errors)).toEqual(["password"]);
    expect((await api.get("/profile/get-user-details", token)).status).toBe(200);
    const ok = await api.del("/profile/delete-profile", { password: strongPassword, immediate: true }, token);
    expect(ok.status).toBe(200);
    expect((await api.get("/profile/get-user-details", token)).status).toBe(401);
  });
});

describe("redirect after login", () => {
  const email = "redirect@example.com";
  beforeAll(() => signup(email));

  const cases: [string, string][] = [
    ["/%09/evil.example", "/dashboard/home"],
    ["/%0a/evil.example", "/dashboard/home"],
    ["/\t/evil.example", "/dashboard/home"],
    ["//evil.example", "/dashboard/home"],
    ["/\\evil.example", "/dashboard/home"],
    ["/%5cevil.example", "/dashboard/home"],
    ["/%5Cevil.example", "/dashboard/home"],
    ["%2f%2fevil.example", "/dashboard/home"],
    ["/%2f/evil.example", "/dashboard/home"],
    ["/%252f/evil.example", "/dashboard/home"],
    ["/.//evil.example", "/dashboard/home"],
    ["https://evil.example", "/dashboard/home"],
    ["javascript:alert(1)", "/dashboard/home"],
    ["\n", "/dashboard/home"],
    ["%0a", "/dashboard/home"],
    ["/dashboard/settings?tab=1", "/dashboard/settings?tab=1"],
    ["/dashboard/upload-report", "/dashboard/upload-report"],
  ];

  it.each(cases)("redirectTo %j → %s", async (redirectTo, expected) => {
    const b = new Browserish(server.url);
    const res = await b.post("/login", { email, password: strongPassword, redirectTo });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(expected);
    expect(b.cookies.has("cb_session")).toBe(true);
  });

  it("a bad redirectTo leaves no session row without a cookie", async () => {
    const count = async () => {
      const d = await openTestDb(server.dataDir);
      const n = (await d.get<{ n: number }>(
        "SELECT count(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ?",
        email,
      ))!.n;
      await d.close();
      return n;
    };
    const before = await count();
    const b = new Browserish(server.url);
    const res = await b.post("/login", { email, password: strongPassword, redirectTo: "/\n/x\u0000" });
    expect(res.status).toBe(302);
    expect(b.cookies.has("cb_session")).toBe(true);
    expect(await count()).toBe(before + 1);
  });
});

describe("private data files", () => {
  const mode = (p: string) => statSync(p).mode & 0o777;

  // On PostgreSQL + S3 there is no database file or uploads folder on this machine; the secrets still are.
  it("data and uploads folders are 0700, database, secrets and uploaded files 0600", async () => {
    expect(mode(server.dataDir)).toBe(0o700);
    if (onPostgres) {
      // The secrets come from the environment (shared by every node); only the backup repository's
      // password is generated here unless BACKUP_PASSWORD_FILE names one (decision 0067).
      const secrets = path.join(server.dataDir, "secrets");
      if (existsSync(secrets)) {
        expect(mode(secrets)).toBe(0o700);
        expect(readdirSync(secrets)).toEqual(["backup-password"]);
        expect(mode(path.join(secrets, "backup-password"))).toBe(0o600);
      }
      return;
    }
    expect(mode(path.join(server.dataDir, "secrets"))).toBe(0o700);
    expect(mode(server.uploadsDir)).toBe(0o700);
    expect(mode(path.join(server.dataDir, "secrets"))).toBe(0o700);
    for (const f of readdirSync(path.join(server.dataDir, "secrets")))
      expect(mode(path.join(server.dataDir, "secrets", f))).toBe(0o600);
    for (const f of ["app.db", "app.db-wal", "app.db-shm"]) {
      const p = path.join(server.dataDir, f);
      if (f === "app.db" || existsSync(p)) expect([f, mode(p)]).toEqual([f, 0o600]);
    }

    const email = "uploader@example.com";
    await signup(email);
    const token = (await api.post("/auth/login", { email, password: strongPassword })).body.token;
    const up = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "Blood Test", phoneNumber: "9876543210", countryCode: "+91" },
        { name: "lab.pdf", data: samplePdf(), type: "application/pdf" },
      ),
      token,
    );
    expect(up.status).toBe(201);
    const files = readdirSync(server.uploadsDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect([f, mode(path.join(server.uploadsDir, f))]).toEqual([f, 0o600]);
    expect(mode(server.uploadsDir)).toBe(0o700);
    for (const f of ["app.db", "app.db-wal", "app.db-shm"]) {
      const p = path.join(server.dataDir, f);
      if (existsSync(p)) expect([f, mode(p)]).toEqual([f, 0o600]);
    }
  });
});

describe("with rate limits on and a short idle timeout", () => {
  let limited: TestServer;
  let lapi: ReturnType<typeof apiClient>;
  const IDLE_MS = 6_000;

  beforeAll(async () => {
    limited = await startServer({
      SMTP_URL: smtp.url,
      SESSION_IDLE_MINUTES_PATIENT: String(IDLE_MS / 60_000),
      SESSION_IDLE_MINUTES_STAFF: String(IDLE_MS / 60_000),
    });
    lapi = apiClient(limited.url);
  });
  afterAll(() => limited?.stop());

  it("wrong current passwords: 5 tries, then 429 with Retry-After and a translated message (API and screen)", async () => {
    const { token } = await signupViaApi(lapi, smtp, codeFrom, { email: "guess@example.com" });
    const wrong = {
      oldPassword: "Wrong-pass-123",
      newPassword: "New-pass-9876",
      confirmNewPassword: "New-pass-9876",
    };
    for (let i = 0; i < 5; i++) {
      const r = await lapi.post("/auth/change-password", wrong, token);
      expect(r.status).toBe(400);
      expect(r.body.errors.oldPassword).toEqual(["The current password is not right"]);
    }
    const blocked = await lapi.post("/auth/change-password", wrong, token, { "Accept-Language": "ta" });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(blocked.body.success).toBe(false);
    expect(blocked.body.message).not.toMatch(/Too many/);
    // Even the right password waits now (the guesser cannot test it).
    const right = await lapi.post("/auth/change-password", { ...wrong, oldPassword: strongPassword }, token);
    expect(right.status).toBe(429);
    expect(right.body.message).toMatch(/^Too many attempts\. Please wait \d+ seconds and try again\.$/);

    // The screen counts the same account's budget.
    const web = new Browserish(limited.url);
    expect((await web.post("/login", { email: "guess@example.com", password: strongPassword })).status).toBe(
      302,
    );
    const screen = await web.post("/dashboard/settings", { intent: "password", ...wrong });
    expect(screen.status).toBe(429);
    expect(Number(screen.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await screen.text()).toContain("Too many attempts.");
    const del = await web.post("/dashboard/settings", { intent: "delete-confirm", password: "x" });
    expect(del.status).toBe(429);
    // And the API's erasure: even the right password waits.
    const apiDel = await lapi.del(
      "/profile/delete-profile",
      { password: strongPassword, immediate: true },
      token,
    );
    expect(apiDel.status).toBe(429);
    expect((await lapi.get("/profile/get-user-details", token)).status).toBe(200);
  });

  it("a right current password does not spend the budget", async () => {
    const { token } = await signupViaApi(lapi, smtp, codeFrom, { email: "changer@example.com" });
    let current = strongPassword;
    for (let i = 0; i < 6; i++) {
      const next = `Changed-pass-${i}x`;
      const r = await lapi.post(
        "/auth/change-password",
        { oldPassword: current, newPassword: next, confirmNewPassword: next },
        token,
      );
      expect(r.status).toBe(200);
      current = next;
    }
  });

  it("a session or token unused for longer than the idle limit ends; one in use stays", async () => {
    const email = "idle@example.com";
    const { token } = await signupViaApi(lapi, smtp, codeFrom, { email });
    const busy = (await lapi.post("/auth/login", { email, password: strongPassword })).body.token;
    // Logged in, then never used again: Settings stops listing it once idle.
    expect((await lapi.post("/auth/login", { email, password: strongPassword })).status).toBe(200);
    const web = new Browserish(limited.url);
    expect((await web.post("/login", { email, password: strongPassword })).status).toBe(302);
    expect((await web.fetch("/dashboard/settings")).status).toBe(200);
    expect((await lapi.get("/profile/get-user-details", token)).status).toBe(200);

    const until = Date.now() + IDLE_MS + 1_500;
    while (Date.now() < until) {
      expect((await lapi.get("/profile/get-user-details", busy)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect((await lapi.get("/profile/get-user-details", token)).status).toBe(401);
    const page = await web.fetch("/dashboard/settings");
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
    expect((await lapi.get("/profile/get-user-details", busy)).status).toBe(200);
    const again = new Browserish(limited.url);
    expect((await again.post("/login", { email, password: strongPassword })).status).toBe(302);
    const listed = await (await again.fetch("/dashboard/settings")).text();
    expect(listed.match(/>API token</g)).toHaveLength(1); // the busy token only
  }, 30_000);
});

describe("reset mails off the request path", () => {
  const DELAY_MS = 400;
  let slow: SMTPServer;
  let received: string[];
  let app: TestServer;
  let sapi: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    received = [];
    // A mail server that takes its time accepting each message.
    slow = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, session, callback) {
        stream.resume();
        stream.on("end", () =>
          setTimeout(() => {
            received.push(...session.envelope.rcptTo.map((r) => r.address));
            callback();
          }, DELAY_MS),
        );
      },
    });
    const port = await freePort();
    await new Promise<void>((r) => slow.listen(port, "127.0.0.1", () => r()));
    app = await startServer({ SMTP_URL: `smtp://127.0.0.1:${port}`, RATE_LIMIT_DISABLED: "1" });
    sapi = apiClient(app.url);
    const db = await openTestDb(app.dataDir, { write: true });
    await db.run(
      "INSERT INTO users (id, email, password_hash, first_name, last_name, account_type, contact_number, created_at, updated_at) VALUES (?, ?, ?, 'K', 'N', 'Patient', '9876543210', ?, ?)",
      "a1b2c3d4e5f6a1b2c3d4e5f6",
      "known@example.com",
      bcrypt.hashSync(strongPassword, 4),
      db.time(Date.now()),
      db.time(Date.now()),
    );
    await db.close();
  });
  afterAll(async () => {
    await app?.stop();
    await new Promise<void>((r) => slow.close(() => r()));
  });

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  async function timed(email: string) {
    const t0 = performance.now();
    const r = await sapi.post("/auth/reset-password-token", { email });
    expect(r.status).toBe(200);
    return performance.now() - t0;
  }

  it("a known e-mail answers as fast as an unknown one", async () => {
    await timed("warm-up@example.com");
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 10; i++) {
      unknown.push(await timed(`nobody${i}@example.com`));
      known.push(await timed("known@example.com"));
    }
    expect(median(known)).toBeLessThan(median(unknown) + DELAY_MS / 2);
    // Every mail still goes out.
    const deadline = Date.now() + 20_000;
    while (received.filter((r) => r === "known@example.com").length < 10 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(received.filter((r) => r === "known@example.com")).toHaveLength(10);
  }, 40_000);

  it("a mail still on its way when the server stops is sent before the process ends", async () => {
    const before = received.length;
    const r = await sapi.post("/auth/reset-password-token", { email: "known@example.com" });
    expect(r.status).toBe(200);
    await app.stop();
    expect(received.length).toBe(before + 1);
  }, 20_000);
});
