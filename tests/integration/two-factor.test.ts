import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { TestAuthenticator as AuthApp } from "../helpers/totp-app";

/**
 * Two-step login against the built server, over HTTP, with rate limits on and
 * MFA_REQUIRED_FOR_ADMINS on: the API, the screens without JavaScript, the admin's reset.
 * Codes are computed here from the secret the server shows, as an authenticator app would.
 */

const ADMIN = { email: "chief@mfa.test", password: "Chief-pass-2026" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    MFA_REQUIRED_FOR_ADMINS: "true",
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
});
afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

async function signup(email: string, accountType: "Patient" | "Expert" = "Expert") {
  return signupViaApi(api, smtp, codeFrom, { email, accountType });
}

/** Turns two-step login on through the API; the app and the recovery codes. */
async function enable(token: string) {
  const setup = await api.post("/auth/two-factor/setup", { password: strongPassword }, token);
  expect(setup.status).toBe(200);
  const app = new AuthApp(setup.body.data.secret);
  const confirmed = await api.post(
    "/auth/two-factor/confirm",
    { password: strongPassword, code: await app.next() },
    token,
  );
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return { app, recoveryCodes: confirmed.body.data.recoveryCodes as string[] };
}

async function challenge(email: string, password = strongPassword) {
  const res = await api.post("/auth/login", { email, password });
  expect(res.status).toBe(200);
  expect(res.body.mfaRequired, JSON.stringify(res.body)).toBe(true);
  return res.body.mfaToken as string;
}

const count = async (sql: string, ...params: unknown[]) =>
  Number((await db.get<{ n: number }>(sql, ...params))?.n ?? 0);
const sessionsOf = (userId: string) => count("SELECT count(*) AS n FROM sessions WHERE user_id = ?", userId);
const auditOf = (action: string, subjectId: string) =>
  db.all(
    "SELECT actor_id, subject_type FROM audit_events WHERE action = ? AND subject_id = ?",
    action,
    subjectId,
  );

const USER_KEYS = [
  "_id",
  "accountType",
  "additionalDetails",
  "approved",
  "contactNumber",
  "countryCode",
  "createdAt",
  "email",
  "firstName",
  "image",
  "lastName",
  "notify",
  "phone",
  "updatedAt",
];

let adminToken = "";
let adminId = "";
let adminApp: AuthApp;

describe("two-step login through /api/v1", () => {
  it("leaves the login answer of an account without it exactly as it was", async () => {
    const { user } = await signup("plain@mfa.test", "Patient");
    const res = await api.post("/auth/login", { email: "plain@mfa.test", password: strongPassword });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["message", "success", "token", "user"]);
    expect(res.body).toMatchObject({ success: true, message: "Login Successful" });
    expect(Object.keys(res.body.user).sort()).toEqual(USER_KEYS);
    expect(res.body.user._id).toBe(user._id);
    const me = await api.get("/profile/get-user-details", res.body.token);
    expect(me.body.data.twoFactor).toBe(false);
    const status = await api.get("/auth/two-factor/status", res.body.token);
    expect(status.body.data).toEqual({
      enabled: false,
      pending: false,
      enabledAt: null,
      recoveryCodesLeft: 0,
      required: false,
    });
  });

  let e1: { id: string; token: string; app: AuthApp; codes: string[] };

  it("an expert turns it on: QR code and key, first code, 10 recovery codes; secrets never stored in clear", async () => {
    const { token, user } = await signup("e1@mfa.test");
    expect(
      (await api.post("/auth/two-factor/confirm", { password: strongPassword, code: "123456" }, token))
        .status,
    ).toBe(409);
    const setup = await api.post("/auth/two-factor/setup", { password: strongPassword }, token);
    expect(setup.status).toBe(200);
    const { secret, otpauthUrl, qrCode } = setup.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/CareBridge:e1%40mfa\.test\?/);
    expect(otpauthUrl).toContain(`secret=${secret}`);
    expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(qrCode.split(",")[1], "base64").toString()).toContain("<svg");
    expect((await api.get("/auth/two-factor/status", token)).body.data).toMatchObject({
      enabled: false,
      pending: true,
    });

    const app = new AuthApp(secret);
    const wrong = await api.post(
      "/auth/two-factor/confirm",
      { password: strongPassword, code: app.wrong() },
      token,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors.code[0]).toMatch(/not right/);
    const shape = await api.post(
      "/auth/two-factor/confirm",
      { password: strongPassword, code: "12ab56" },
      token,
    );
    expect(shape.status).toBe(400);
    expect(shape.body.errors.code).toEqual(["The code has 6 digits"]);

    const ok = await api.post(
      "/auth/two-factor/confirm",
      { password: strongPassword, code: await app.next() },
      token,
    );
    expect(ok.status).toBe(200);
    const codes: string[] = ok.body.data.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(
      (await api.post("/auth/two-factor/confirm", { password: strongPassword, code: app.peek() }, token))
        .status,
    ).toBe(409);
    expect((await api.post("/auth/two-factor/setup", { password: strongPassword }, token)).status).toBe(409);
    expect((await api.get("/auth/two-factor/status", token)).body.data).toMatchObject({
      enabled: true,
      pending: false,
      recoveryCodesLeft: 10,
      required: false,
    });
    expect((await api.get("/profile/get-user-details", token)).body.data.twoFactor).toBe(true);

    const row = await db.get("SELECT secret_enc, confirmed_at FROM totp_factors WHERE user_id = ?", user._id);
    expect(row!.secret_enc).toMatch(/^v1\./);
    expect(row!.secret_enc).not.toContain(secret);
    expect(row!.confirmed_at).toBeTruthy();
    const hashes = await db.all<{ code_hash: string }>(
      "SELECT code_hash FROM recovery_codes WHERE user_id = ?",
      user._id,
    );
    expect(hashes).toHaveLength(10);
    const stored = JSON.stringify(hashes);
    for (const c of codes) expect(stored).not.toContain(c.replace("-", ""));
    expect(await auditOf("account.2fa_enable", user._id)).toHaveLength(1);
    await smtp.waitFor("e1@mfa.test", /Two-step login is now on/);
    e1 = { id: user._id, token, app, codes };
  });

  it("a login gets no token until a right, fresh code reaches /auth/login-2fa", async () => {
    const before = await sessionsOf(e1.id);
    const res = await api.post("/auth/login", { email: "e1@mfa.test", password: strongPassword });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "message",
      "mfaExpiresAt",
      "mfaRequired",
      "mfaToken",
      "success",
    ]);
    expect(res.body).toMatchObject({ success: true, mfaRequired: true });
    expect(res.body.mfaToken).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(new Date(res.body.mfaExpiresAt).getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(await sessionsOf(e1.id)).toBe(before);
    const mfaToken = res.body.mfaToken;

    const wrong = await api.post("/auth/login-2fa", { mfaToken, code: e1.app.wrong() });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/4 tries left/);
    const reused = await api.post("/auth/login-2fa", { mfaToken, code: e1.app.lastCode() });
    expect(reused.status).toBe(400);
    expect(reused.body.message).toMatch(/already used/);
    const nothing = await api.post("/auth/login-2fa", { mfaToken });
    expect(nothing.status).toBe(400);
    expect(nothing.body.errors.code).toEqual(["Enter a code from your app or a recovery code"]);
    expect(await sessionsOf(e1.id)).toBe(before);

    const ok = await api.post("/auth/login-2fa", { mfaToken, code: await e1.app.next() });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(Object.keys(ok.body).sort()).toEqual(["message", "success", "token", "user"]);
    expect(ok.body.message).toBe("Login Successful");
    expect(ok.body.user._id).toBe(e1.id);
    expect((await api.get("/profile/get-user-details", ok.body.token)).status).toBe(200);
    expect(await sessionsOf(e1.id)).toBe(before + 1);
    // Single use: the challenge is gone.
    const again = await api.post("/auth/login-2fa", { mfaToken, code: e1.app.wrong() });
    expect(again.status).toBe(401);
    expect(again.body.message).toMatch(/log in again/);
  });

  it("a recovery code works once; its use is recorded and the owner is told", async () => {
    const typed = `  ${e1.codes[0].toUpperCase().replace("-", " - ")} `;
    const ok = await api.post("/auth/login-2fa", {
      mfaToken: await challenge("e1@mfa.test"),
      recoveryCode: typed,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.token).toBeTruthy();
    const again = await api.post("/auth/login-2fa", {
      mfaToken: await challenge("e1@mfa.test"),
      recoveryCode: e1.codes[0],
    });
    expect(again.status).toBe(400);
    expect(again.body.errors.recoveryCode).toEqual(["That recovery code is not right or was already used"]);
    expect((await api.get("/auth/two-factor/status", e1.token)).body.data.recoveryCodesLeft).toBe(9);
    expect(await auditOf("account.2fa_recovery_login", e1.id)).toHaveLength(1);
    await smtp.waitFor("e1@mfa.test", /recovery code was used/);
  });

  it("refuses unknown, expired and spent challenges, and a challenge takes 5 tries", async () => {
    const { token, user } = await signup("e2@mfa.test");
    const { app } = await enable(token);
    const unknown = await api.post("/auth/login-2fa", { mfaToken: "x".repeat(43), code: app.peek() });
    expect(unknown.status).toBe(401);
    expect((await api.post("/auth/login-2fa", { mfaToken: "x".repeat(300), code: "123456" })).status).toBe(
      400,
    );
    expect((await api.raw("POST", "/auth/login-2fa", { code: "123456" })).status).toBe(400);

    const late = await challenge("e2@mfa.test");
    await db.run(
      "UPDATE mfa_challenges SET expires_at = ? WHERE user_id = ?",
      db.time(Date.now() - 1000),
      user._id,
    );
    const expired = await api.post("/auth/login-2fa", { mfaToken: late, code: app.peek() });
    expect(expired.status).toBe(401);

    const mfaToken = await challenge("e2@mfa.test");
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await api.post("/auth/login-2fa", { mfaToken, code: app.wrong() })).status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 401]);
    // Spent: even the right code is refused now, and it was not used up by the refusal.
    const right = app.peek();
    const spent = await api.post("/auth/login-2fa", { mfaToken, code: right });
    expect(spent.status).toBe(401);
    expect(spent.body.message).toMatch(/log in again/);
    const fresh = await api.post("/auth/login-2fa", {
      mfaToken: await challenge("e2@mfa.test"),
      code: await app.next(),
    });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    // No live challenge is left behind (the expired one waits for the hourly pruning).
    const live = "SELECT count(*) AS n FROM mfa_challenges WHERE user_id = ? AND expires_at > ?";
    expect(await count(live, user._id, db.time(Date.now()))).toBe(0);
  });

  it("counts wrong codes per account across logins: over the budget it is 429 with Retry-After", async () => {
    const { token } = await signup("e3@mfa.test");
    const { app } = await enable(token);
    for (let round = 0; round < 2; round++) {
      const mfaToken = await challenge("e3@mfa.test");
      for (let i = 0; i < 5; i++) await api.post("/auth/login-2fa", { mfaToken, code: app.wrong() });
    }
    const mfaToken = await challenge("e3@mfa.test");
    const limited = await api.post("/auth/login-2fa", { mfaToken, code: app.wrong() });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await api.post("/auth/login-2fa", { mfaToken, code: app.peek() })).status).toBe(429);
  });

  it("two simultaneous submissions of one code open exactly one session", async () => {
    const { token, user } = await signup("e4@mfa.test");
    const { app } = await enable(token);
    const before = await sessionsOf(user._id);
    // Two logins (two challenges), the same code at the same moment.
    const [a, b] = [await challenge("e4@mfa.test"), await challenge("e4@mfa.test")];
    const code = await app.next();
    const results = await Promise.all([
      api.post("/auth/login-2fa", { mfaToken: a, code }),
      api.post("/auth/login-2fa", { mfaToken: b, code }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(await sessionsOf(user._id)).toBe(before + 1);
    // One challenge, one code, sent twice at once.
    const c = await challenge("e4@mfa.test");
    const code2 = await app.next();
    const twice = await Promise.all([
      api.post("/auth/login-2fa", { mfaToken: c, code: code2 }),
      api.post("/auth/login-2fa", { mfaToken: c, code: code2 }),
    ]);
    expect(twice.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await sessionsOf(user._id)).toBe(before + 2);
  });

  it("turning it off takes the password and a code; then the password alone logs in", async () => {
    const { token, user } = await signup("e5@mfa.test");
    const { app } = await enable(token);
    const code = await app.next();
    const badPassword = await api.post(
      "/auth/two-factor/disable",
      { password: "Wrong-pass-123", code },
      token,
    );
    expect(badPassword.status).toBe(400);
    expect(badPassword.body.errors.password).toBeTruthy();
    const noCode = await api.post("/auth/two-factor/disable", { password: strongPassword }, token);
    expect(noCode.status).toBe(400);
    const badCode = await api.post(
      "/auth/two-factor/disable",
      { password: strongPassword, code: app.wrong() },
      token,
    );
    expect(badCode.status).toBe(400);
    expect((await api.get("/auth/two-factor/status", token)).body.data.enabled).toBe(true);
    // The code was not spent by the wrong password: it still works.
    const off = await api.post("/auth/two-factor/disable", { password: strongPassword, code }, token);
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect((await api.get("/auth/two-factor/status", token)).body.data).toMatchObject({ enabled: false });
    const login = await api.post("/auth/login", { email: "e5@mfa.test", password: strongPassword });
    expect(Object.keys(login.body).sort()).toEqual(["message", "success", "token", "user"]);
    expect(await auditOf("account.2fa_disable", user._id)).toHaveLength(1);
    await smtp.waitFor("e5@mfa.test", /turned off/);
    expect(await count("SELECT count(*) AS n FROM recovery_codes WHERE user_id = ?", user._id)).toBe(0);
  });

  it("new recovery codes need a code; the old ones stop working", async () => {
    const { token } = await signup("e6@mfa.test");
    const { recoveryCodes: old } = await enable(token);
    expect((await api.post("/auth/two-factor/recovery-codes", {}, token)).status).toBe(400);
    const made = await api.post("/auth/two-factor/recovery-codes", { recoveryCode: old[0] }, token);
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const fresh: string[] = made.body.data.recoveryCodes;
    expect(fresh).toHaveLength(10);
    const stale = await api.post("/auth/login-2fa", {
      mfaToken: await challenge("e6@mfa.test"),
      recoveryCode: old[1],
    });
    expect(stale.status).toBe(400);
    const ok = await api.post("/auth/login-2fa", {
      mfaToken: await challenge("e6@mfa.test"),
      recoveryCode: fresh[1],
    });
    expect(ok.status).toBe(200);
  });

  it("an admin must set it up before getting a token (MFA_REQUIRED_FOR_ADMINS on)", async () => {
    const res = await api.post("/auth/login", ADMIN);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, mfaRequired: true, mfaSetupRequired: true });
    expect(res.body.token).toBeUndefined();
    expect(res.body.message).toMatch(/login-2fa-setup/);
    const mfaToken = res.body.mfaToken;
    const early = await api.post("/auth/login-2fa", { mfaToken, code: "123456" });
    expect(early.status).toBe(400);
    expect(early.body.message).toMatch(/Set up the authenticator first/);

    const setup = await api.post("/auth/login-2fa-setup", { mfaToken });
    expect(setup.status).toBe(200);
    const again = await api.post("/auth/login-2fa-setup", { mfaToken });
    expect(again.body.data.secret).toBe(setup.body.data.secret);
    expect((await api.post("/auth/login-2fa-setup", { mfaToken: "nope".repeat(11) })).status).toBe(401);

    const app = new AuthApp(setup.body.data.secret);
    const done = await api.post("/auth/login-2fa", { mfaToken, code: await app.next() });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.user.accountType).toBe("Admin");
    expect(done.body.recoveryCodes).toHaveLength(10);
    adminToken = done.body.token;
    adminId = done.body.user._id;
    adminApp = app;
    expect((await api.get("/auth/two-factor/status", adminToken)).body.data).toMatchObject({
      enabled: true,
      required: true,
    });
    const off = await api.post(
      "/auth/two-factor/disable",
      { password: ADMIN.password, code: app.peek() },
      adminToken,
    );
    expect(off.status).toBe(403);
    expect(off.body.message).toMatch(/required for admins/);

    const next = await api.post("/auth/login", ADMIN);
    expect(next.body.mfaRequired).toBe(true);
    expect(next.body.mfaSetupRequired).toBeUndefined();
    expect((await api.post("/auth/login-2fa-setup", { mfaToken: next.body.mfaToken })).status).toBe(409);
  });

  it("an admin resets another account's second factor: audited, the owner is told, the password alone works", async () => {
    const signedUp = await signup("e7@mfa.test");
    const target = { ...signedUp, ...(await enable(signedUp.token)) };
    const patient = await signup("p7@mfa.test", "Patient");
    const expert = await signup("e8@mfa.test");
    const waiting = await challenge("e7@mfa.test");
    const body = { userId: target.user._id };
    expect((await api.post("/admin/reset-2fa", body)).status).toBe(401);
    expect((await api.post("/admin/reset-2fa", body, patient.token)).status).toBe(403);
    expect((await api.post("/admin/reset-2fa", body, expert.token)).status).toBe(403);
    expect((await api.post("/admin/reset-2fa", body, target.token)).status).toBe(403);
    const self = await api.post("/admin/reset-2fa", { userId: adminId }, adminToken);
    expect(self.status).toBe(400);
    expect((await api.post("/admin/reset-2fa", { userId: "a".repeat(24) }, adminToken)).status).toBe(404);
    expect((await api.post("/admin/reset-2fa", { userId: "../x" }, adminToken)).status).toBe(404);
    expect((await api.raw("POST", "/admin/reset-2fa", {}, adminToken)).status).toBe(400);
    expect((await api.post("/admin/reset-2fa", { userId: patient.user._id }, adminToken)).status).toBe(409);

    const b = new Browserish(server.url);
    await b.post("/login", { email: "e7@mfa.test", password: strongPassword });
    await b.post("/login-2fa", { intent: "code", ...digits(await target.app.next()) });
    expect((await b.fetch("/dashboard/home")).status).toBe(200);
    expect((await api.get("/profile/get-user-details", target.token)).status).toBe(200);

    const reset = await api.post("/admin/reset-2fa", body, adminToken);
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body.data._id).toBe(target.user._id);
    // Every session and token of the account ends with its second factor.
    expect((await api.get("/profile/get-user-details", target.token)).status).toBe(401);
    expect((await b.fetch("/dashboard/home")).status).toBe(302);
    expect(await sessionsOf(target.user._id)).toBe(0);
    const events = await auditOf("account.2fa_reset", target.user._id);
    expect(events).toEqual([{ actor_id: adminId, subject_type: "user" }]);
    await smtp.waitFor("e7@mfa.test", /reset your two-step login/);
    // A login that was waiting for a code is over; a new one needs the password only.
    expect((await api.post("/auth/login-2fa", { mfaToken: waiting, code: "123456" })).status).toBe(401);
    const login = await api.post("/auth/login", { email: "e7@mfa.test", password: strongPassword });
    expect(login.body.token).toBeTruthy();
    expect((await api.post("/admin/reset-2fa", body, adminToken)).status).toBe(409);
  });

  it("setting it up asks for the password: a token alone can neither start nor confirm", async () => {
    const { token, user } = await signup("e9@mfa.test");
    const none = await api.raw("POST", "/auth/two-factor/setup", {}, token);
    expect(none.status).toBe(400);
    expect(none.body.errors.password).toBeTruthy();
    const wrong = await api.post("/auth/two-factor/setup", { password: "Not-my-pass-1" }, token);
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors.password[0]).toMatch(/not right/);
    expect((await api.get("/auth/two-factor/status", token)).body.data.pending).toBe(false);
    const setup = await api.post("/auth/two-factor/setup", { password: strongPassword }, token);
    expect(setup.status).toBe(200);
    const app = new AuthApp(setup.body.data.secret);
    const noPassword = await api.raw("POST", "/auth/two-factor/confirm", { code: app.peek() }, token);
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.errors.password).toBeTruthy();
    const badPassword = await api.post(
      "/auth/two-factor/confirm",
      { password: "Not-my-pass-1", code: app.peek() },
      token,
    );
    expect(badPassword.status).toBe(400);
    expect(badPassword.body.errors.password[0]).toMatch(/not right/);
    expect((await api.get("/auth/two-factor/status", token)).body.data.enabled).toBe(false);
    expect(await count("SELECT count(*) AS n FROM recovery_codes WHERE user_id = ?", user._id)).toBe(0);
  });

  it("turning it on ends the account's other sessions and tokens; the one that did it stays", async () => {
    const { token, user } = await signup("e10@mfa.test");
    const other = (await api.post("/auth/login", { email: "e10@mfa.test", password: strongPassword })).body
      .token;
    const b = new Browserish(server.url);
    await b.post("/login", { email: "e10@mfa.test", password: strongPassword });
    expect((await b.fetch("/dashboard/home")).status).toBe(200);
    expect(await sessionsOf(user._id)).toBe(3);
    await enable(token);
    expect((await api.get("/profile/get-user-details", token)).status).toBe(200);
    expect((await api.get("/profile/get-user-details", other)).status).toBe(401);
    expect((await b.fetch("/dashboard/home")).status).toBe(302);
    expect(await sessionsOf(user._id)).toBe(1);
  });

  it("resetting another admin's second factor asks for the acting admin's password and code first", async () => {
    const other = await signup("admin3@mfa.test");
    await enable(other.token);
    await db.run("UPDATE users SET account_type = 'Admin' WHERE id = ?", other.user._id);
    const factorOn = () =>
      count(
        "SELECT count(*) AS n FROM totp_factors WHERE user_id = ? AND confirmed_at IS NOT NULL",
        other.user._id,
      );
    const body = { userId: other.user._id };
    const bare = await api.post("/admin/reset-2fa", body, adminToken);
    expect(bare.status).toBe(400);
    expect(bare.body.errors.password).toBeTruthy();
    const wrong = await api.post(
      "/admin/reset-2fa",
      { ...body, password: "Not-my-pass-1", code: adminApp.peek() },
      adminToken,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors.password[0]).toMatch(/not right/);
    const noCode = await api.post("/admin/reset-2fa", { ...body, password: ADMIN.password }, adminToken);
    expect(noCode.status).toBe(400);
    const badCode = await api.post(
      "/admin/reset-2fa",
      { ...body, password: ADMIN.password, code: adminApp.wrong() },
      adminToken,
    );
    expect(badCode.status).toBe(400);
    expect(await factorOn()).toBe(1);
    expect(await auditOf("account.2fa_reset", other.user._id)).toEqual([]);
    const ok = await api.post(
      "/admin/reset-2fa",
      { ...body, password: ADMIN.password, code: await adminApp.next() },
      adminToken,
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await factorOn()).toBe(0);
    expect((await api.get("/profile/get-user-details", other.token)).status).toBe(401);
  });

  it("a login with an SMS code asks for the second step too", async () => {
    const phone = "+919812345670";
    const smsCode = async (purpose: string) => {
      for (let i = 0; i < 50; i++) {
        const row = await db.get<{ text: string }>(
          `SELECT text FROM sms_messages WHERE "to" = ? AND purpose = ? ORDER BY created_at DESC`,
          phone,
          purpose,
        );
        const m = row && /\b(\d{6})\b/.exec(row.text);
        if (m) return m[1];
        await sleep(100);
      }
      throw new Error("no SMS");
    };
    expect((await api.post("/auth/send-otp", { phone, checkUserPresent: true })).status).toBe(200);
    const created = await api.post("/auth/signup", {
      accountType: "Patient",
      firstName: "Mobile",
      lastName: "Only",
      phone,
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: await smsCode("signup-code"),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = (await api.post("/auth/login", { phone, password: strongPassword })).body.token;
    const { app } = await enable(token);
    expect((await api.post("/auth/send-login-code", { phone })).status).toBe(200);
    const res = await api.post("/auth/login", { phone, otp: await smsCode("login-code") });
    expect(res.status).toBe(200);
    expect(res.body.mfaRequired).toBe(true);
    expect(res.body.token).toBeUndefined();
    const ok = await api.post("/auth/login-2fa", { mfaToken: res.body.mfaToken, code: await app.next() });
    expect(ok.status).toBe(200);
    expect(ok.body.user.phone).toBe(phone);
  });
});

/** The HTML of a response, with the few entities React writes decoded. */
const html = async (res: Response) =>
  (await res.text())
    .replace(/&amp;/g, "&")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"');
const digits = (code: string) => Object.fromEntries([...code].map((d, i) => [`d${i + 1}`, d]));
const secretIn = (page: string) =>
  /data-testid="mfa-secret"[^>]*>([A-Z2-7 ]+)</.exec(page)?.[1].replace(/ /g, "");
const codesIn = (page: string) => [...page.matchAll(/>([a-z2-9]{5}-[a-z2-9]{5})</g)].map((m) => m[1]);

describe("two-step login on the screens, without JavaScript", () => {
  let s1: { app: AuthApp; codes: string[] };
  const s1Email = "s1@mfa.test";

  it("an expert sets it up in Settings, then logs in with the password and a code", async () => {
    await signup(s1Email);
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: s1Email, password: strongPassword })).status).toBe(302);
    const settings = await html(await b.fetch("/dashboard/settings"));
    expect(settings).toContain("Two-step login");
    expect(settings).toContain('href="/dashboard/two-step"');

    const start = await b.post("/dashboard/two-step", { intent: "start", password: strongPassword });
    expect(start.status).toBe(302);
    expect(start.headers.get("Location")).toBe("/dashboard/two-step");
    const setupRes = await b.fetch("/dashboard/two-step");
    expect(setupRes.headers.get("Cache-Control")).toContain("no-store");
    const page = await html(setupRes);
    expect(page).toContain('src="data:image/svg+xml;base64,');
    const secret = secretIn(page);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const app = new AuthApp(secret!);

    const wrong = await b.post("/dashboard/two-step", {
      intent: "confirm",
      password: strongPassword,
      ...digits(app.wrong()),
    });
    expect(wrong.status).toBe(400);
    expect(await html(wrong)).toContain("That code is not right");
    const done = await b.post("/dashboard/two-step", {
      intent: "confirm",
      password: strongPassword,
      ...digits(await app.next()),
    });
    expect(done.status).toBe(200);
    const donePage = await html(done);
    const codes = codesIn(donePage);
    expect(codes).toHaveLength(10);
    expect(donePage).toContain("they will not be shown again");
    const after = await html(await b.fetch("/dashboard/settings"));
    expect(after).toContain("Two-step login is on");
    expect(after).toContain("Recovery codes left: 10");
    s1 = { app, codes };

    // A new browser: the password leads to the second step, not to a session.
    const b2 = new Browserish(server.url);
    const login = await b2.post("/login", { email: s1Email, password: strongPassword });
    expect(login.status).toBe(302);
    expect(login.headers.get("Location")).toBe("/login-2fa");
    expect(b2.cookies.has("cb_mfa")).toBe(true);
    expect(b2.cookies.has("cb_session")).toBe(false);
    expect((await b2.fetch("/dashboard/home")).status).toBe(302);
    const step = await b2.fetch("/login-2fa");
    expect(step.status).toBe(200);
    expect(step.headers.get("Cache-Control")).toContain("no-store");
    const stepPage = await html(step);
    expect(stepPage).toContain('name="d1"');
    expect(stepPage).toContain('name="recoveryCode"');

    const bad = await b2.post("/login-2fa", { intent: "code", ...digits(app.wrong()) });
    expect(bad.status).toBe(400);
    expect(await html(bad)).toContain("4 tries left");
    const ok = await b2.post("/login-2fa", { intent: "code", ...digits(await app.next()) });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/dashboard/home");
    expect(b2.cookies.has("cb_session")).toBe(true);
    expect(b2.cookies.has("cb_mfa")).toBe(false);
    expect((await b2.fetch("/dashboard/home")).status).toBe(200);
  });

  it("keeps where to go, takes a recovery code, and says when the login is over", async () => {
    const b = new Browserish(server.url);
    const login = await b.post("/login", {
      email: s1Email,
      password: strongPassword,
      redirectTo: "/dashboard/my-profile",
    });
    expect(login.headers.get("Location")).toBe("/login-2fa?redirectTo=%2Fdashboard%2Fmy-profile");
    const wrongRecovery = await b.post("/login-2fa", { intent: "recovery", recoveryCode: "aaaaa-bbbbb" });
    expect(wrongRecovery.status).toBe(400);
    expect(await html(wrongRecovery)).toContain("That recovery code is not right");
    const ok = await b.post("/login-2fa", {
      intent: "recovery",
      recoveryCode: s1.codes[0],
      redirectTo: "/dashboard/my-profile",
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/dashboard/my-profile");

    const nobody = new Browserish(server.url);
    const gone = await nobody.fetch("/login-2fa");
    expect(gone.status).toBe(200);
    expect(await html(gone)).toContain("timed out or was already finished");
    const post = await nobody.post("/login-2fa", { intent: "code", ...digits("123456") });
    expect(post.status).toBe(401);
    // Cross-site posts are refused like every other form.
    const cross = await nobody.fetch("/login-2fa", {
      method: "POST",
      body: new URLSearchParams({ intent: "code", d1: "1" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site" },
    });
    expect(cross.status).toBe(403);
  });

  it("makes new recovery codes and turns it off from the screen", async () => {
    const b = new Browserish(server.url);
    await b.post("/login", { email: s1Email, password: strongPassword });
    expect((await b.post("/login-2fa", { intent: "recovery", recoveryCode: s1.codes[1] })).status).toBe(302);
    const manage = await html(await b.fetch("/dashboard/two-step"));
    expect(manage).toContain("Make new recovery codes");
    expect(manage).toContain("Turn off two-step login");
    expect(manage).toContain("Recovery codes left: 8");

    const badProof = await b.post("/dashboard/two-step", { intent: "regenerate", proof: "zzzzz-zzzzz" });
    expect(badProof.status).toBe(400);
    const fresh = await b.post("/dashboard/two-step", { intent: "regenerate", proof: s1.codes[2] });
    expect(fresh.status).toBe(200);
    const newCodes = codesIn(await html(fresh));
    expect(newCodes).toHaveLength(10);

    const badPassword = await b.post("/dashboard/two-step", {
      intent: "disable",
      password: "Not-my-pass-1",
      proof: newCodes[0],
    });
    expect(badPassword.status).toBe(400);
    expect(await html(badPassword)).toContain("The current password is not right");
    const off = await b.post("/dashboard/two-step", {
      intent: "disable",
      password: strongPassword,
      proof: newCodes[0],
    });
    expect(off.status).toBe(302);
    expect(off.headers.get("Location")).toBe("/dashboard/settings");
    expect(await html(await b.fetch("/dashboard/settings"))).toContain("Set up two-step login");
    const plain = new Browserish(server.url);
    const login = await plain.post("/login", { email: s1Email, password: strongPassword });
    expect(login.headers.get("Location")).toBe("/dashboard/home");
  });

  let admin2: Browserish;
  let admin2App: AuthApp;

  it("an admin without it sets it up at login, sees the recovery codes once, and is signed in", async () => {
    const { user } = await signup("admin2@mfa.test", "Patient");
    await db.run("UPDATE users SET account_type = 'Admin' WHERE id = ?", user._id);

    // Someone else with the password starts a login and gets a secret: it is replaced for the next login.
    const other = new Browserish(server.url);
    await other.post("/login", { email: "admin2@mfa.test", password: strongPassword });
    const theirs = secretIn(await html(await other.fetch("/login-2fa")));
    expect(theirs).toMatch(/^[A-Z2-7]{32}$/);

    const b = new Browserish(server.url);
    const login = await b.post("/login", { email: "admin2@mfa.test", password: strongPassword });
    expect(login.headers.get("Location")).toBe("/login-2fa");
    expect(b.cookies.has("cb_session")).toBe(false);
    const page = await html(await b.fetch("/login-2fa"));
    expect(page).toContain("Admin accounts must use two-step login");
    const secret = secretIn(page)!;
    expect(secret).not.toBe(theirs);
    expect(secretIn(await html(await b.fetch("/login-2fa")))).toBe(secret);
    // The older login is over: it can neither see the new secret nor confirm anything.
    const stale = await other.post("/login-2fa", { intent: "enrol", ...digits(new AuthApp(theirs!).peek()) });
    expect(stale.status).toBe(401);
    expect(await html(await other.fetch("/login-2fa"))).not.toContain(secret);

    const app = new AuthApp(secret);
    const wrong = await b.post("/login-2fa", { intent: "enrol", ...digits(app.wrong()) });
    expect(wrong.status).toBe(400);
    const done = await b.post("/login-2fa", { intent: "enrol", ...digits(await app.next()) });
    expect(done.status).toBe(200);
    expect(b.cookies.has("cb_session")).toBe(true);
    const donePage = await html(done);
    expect(codesIn(donePage)).toHaveLength(10);
    expect(donePage).toContain('href="/dashboard/home"');
    expect((await b.fetch("/dashboard/home")).status).toBe(200);
    expect(await auditOf("account.2fa_enable", user._id)).toHaveLength(1);
    admin2 = b;
    admin2App = app;
  });

  it("the admin users screen resets a user's two-step login after a confirm step", async () => {
    const target = await signup("s2@mfa.test");
    await enable(target.token);
    const list = await html(await admin2.fetch("/dashboard/users"));
    expect(list).toContain(`/dashboard/users?reset=${target.user._id}`);
    expect(list).toContain("Reset two-step login");
    // A page number that is not one shows the first page (not a 500).
    expect((await admin2.fetch("/dashboard/users?page=abc")).status).toBe(200);
    const confirm = await html(await admin2.fetch(`/dashboard/users?reset=${target.user._id}`));
    expect(confirm).toContain("Yes, reset two-step login");
    const res = await admin2.post("/dashboard/users", {
      intent: "reset-2fa",
      userId: target.user._id,
      redirectTo: "/dashboard/users",
    });
    expect(res.status).toBe(302);
    expect(await auditOf("account.2fa_reset", target.user._id)).toHaveLength(1);
    const login = await api.post("/auth/login", { email: "s2@mfa.test", password: strongPassword });
    expect(login.body.token).toBeTruthy();

    // Not for experts: the screen is not theirs.
    const expert = new Browserish(server.url);
    await expert.post("/login", { email: "e8@mfa.test", password: strongPassword });
    const refused = await expert.post("/dashboard/users", { intent: "reset-2fa", userId: target.user._id });
    expect(refused.status).toBe(404);
  });
  it("the users screen asks for the acting admin's password and code before resetting another admin", async () => {
    const other = await signup("admin4@mfa.test");
    await enable(other.token);
    await db.run("UPDATE users SET account_type = 'Admin' WHERE id = ?", other.user._id);
    const factorOn = () =>
      count(
        "SELECT count(*) AS n FROM totp_factors WHERE user_id = ? AND confirmed_at IS NOT NULL",
        other.user._id,
      );
    const confirm = await html(await admin2.fetch(`/dashboard/users?reset=${other.user._id}`));
    expect(confirm).toContain("enter your own password and a code");
    expect(confirm).toContain('name="password"');
    expect(confirm).toContain('name="proof"');
    const fields = { intent: "reset-2fa", userId: other.user._id, redirectTo: "/dashboard/users" };
    const bare = await admin2.post("/dashboard/users", fields);
    expect(bare.status).toBe(302);
    // Back to the open confirmation, with the reason.
    expect(bare.headers.get("Location")).toBe(`/dashboard/users?reset=${other.user._id}`);
    const wrong = await admin2.post("/dashboard/users", {
      ...fields,
      password: "Not-my-pass-1",
      proof: admin2App.peek(),
    });
    expect(wrong.headers.get("Location")).toBe(`/dashboard/users?reset=${other.user._id}`);
    expect(await factorOn()).toBe(1);
    const ok = await admin2.post("/dashboard/users", {
      ...fields,
      password: strongPassword,
      proof: await admin2App.next(),
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/dashboard/users");
    expect(await factorOn()).toBe(0);
    expect(await auditOf("account.2fa_reset", other.user._id)).toHaveLength(1);
  });
});
