import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, resetTokenFrom, startSmtp } from "../helpers/smtp";

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "root@clinic.test",
    ADMIN_PASSWORD: "Root-pass-1234",
  });
  api = apiClient(server.url);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("signup does not tell who has an account (e-mail)", () => {
  it("a registered e-mail, in any spelling, gets the same answer as a new one; its owner is told instead of getting a code", async () => {
    await signupViaApi(api, smtp, codeFrom, { email: "owner19@example.com" });
    const fresh = await api.post("/auth/send-otp", {
      email: "newcomer19@example.com",
      checkUserPresent: true,
    });
    expect(fresh.status).toBe(200);
    await smtp.waitFor("newcomer19@example.com", /verification code/);
    for (const spelling of ["owner19@example.com", "Owner19@Example.COM", " OWNER19@example.com "]) {
      const before = smtp.mails.length;
      const taken = await api.post("/auth/send-otp", { email: spelling, checkUserPresent: true });
      expect(taken.status, spelling).toBe(200);
      expect(taken.body).toEqual(fresh.body);
      const notice = await smtp.waitFor("owner19@example.com", /already have/);
      expect(smtp.mails.length).toBe(before + 1);
      expect(notice.subject).toBe("You already have a CareBridge account");
      expect(notice.subject).not.toMatch(/\d{6}/);
      expect(notice.raw).not.toMatch(/verification code/i);
    }
    // A guessed code for the taken e-mail reads exactly like a wrong code for a new one.
    const base = {
      accountType: "Patient" as const,
      firstName: "Guess",
      lastName: "Work",
      contactNumber: "9876543210",
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: "123456",
    };
    const onNew = await api.post("/auth/signup", { ...base, email: "newcomer19@example.com" });
    const onTaken = await api.post("/auth/signup", { ...base, email: "owner19@example.com" });
    expect(onNew.status).toBe(400);
    expect(onTaken.status).toBe(400);
    expect(onTaken.body).toEqual(onNew.body);
  });
});

describe("/api/v1/auth and /profile", () => {
  it("signs up with an e-mailed code, then logs in with a bearer token", async () => {
    const sent = await api.post("/auth/send-otp", { email: "Priya@Example.com", checkUserPresent: true });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ success: true, message: "OTP Sent Successfully" });
    const mail = await smtp.waitFor("priya@example.com", /verification code/);
    const code = codeFrom(mail);
    expect(mail.raw).toContain(code);

    const base = {
      accountType: "Patient" as const,
      firstName: "Priya",
      lastName: "Das",
      email: "priya@example.com",
      contactNumber: "9876543210",
      password: strongPassword,
      confirmPassword: strongPassword,
    };
    const mismatch = await api.post("/auth/signup", { ...base, confirmPassword: "other-pass-1", otp: code });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors.confirmPassword).toEqual(["Password do not matched"]);
    const wrong = await api.post("/auth/signup", { ...base, otp: code === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.success).toBe(false);

    const ok = await api.post("/auth/signup", { ...base, otp: code });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({
      email: "priya@example.com",
      accountType: "Patient" as const,
      firstName: "Priya",
    });
    expect(JSON.stringify(ok.body)).not.toMatch(/password|hash/i);

    // The code was used: signing up again with it is a used code (400), not "already exists".
    const again = await api.post("/auth/signup", { ...base, otp: code });
    expect(again.status).toBe(400);

    const login = await api.post("/auth/login", { email: "PRIYA@example.com", password: strongPassword });
    expect(login.status).toBe(200);
    expect(login.body.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(login.body.user.email).toBe("priya@example.com");
    const me = await api.get("/profile/get-user-details", login.body.token);
    expect(me.status).toBe(200);
    expect(me.body.data._id).toBe(ok.body.data._id);
  });

  it("refuses Admin signups and bad input with the error shape", async () => {
    const r = await api.raw("POST", "/auth/signup", {
      accountType: "Admin",
      firstName: "A",
      lastName: "B",
      email: "x@y.co",
      contactNumber: "123",
      password: "short",
      confirmPassword: "short",
      otp: "12",
    });
    expect(r.status).toBe(400);
    expect(r.body.success).toBe(false);
    expect(Object.keys(r.body.errors)).toEqual(
      expect.arrayContaining(["accountType", "contactNumber", "password", "otp"]),
    );
    const notJson = await api.raw("POST", "/auth/login", "email=a", undefined, {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    expect(notJson.status).toBe(400);
    const broken = await api.raw("POST", "/auth/login", "{not json", undefined, {
      "Content-Type": "application/json",
    });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/JSON/);
    const arr = await api.raw("POST", "/auth/login", "[1,2]", undefined, {
      "Content-Type": "application/json",
    });
    expect(arr.status).toBe(400);
  });

  it("locks a code after 5 wrong tries", async () => {
    await api.post("/auth/send-otp", { email: "lock@example.com" });
    const code = codeFrom(await smtp.waitFor("lock@example.com", /verification code/));
    const wrongCode = code === "123456" ? "654321" : "123456";
    const base = {
      accountType: "Expert" as const,
      firstName: "L",
      lastName: "K",
      email: "lock@example.com",
      contactNumber: "9876543210",
      password: strongPassword,
      confirmPassword: strongPassword,
    };
    for (let i = 0; i < 5; i++)
      expect((await api.post("/auth/signup", { ...base, otp: wrongCode })).status).toBe(400);
    const right = await api.post("/auth/signup", { ...base, otp: code });
    expect(right.status).toBe(400);
    expect(right.body.message).toMatch(/Too many wrong tries/);
  });

  it("answers login failures clearly and never says which part was wrong", async () => {
    const a = await api.post("/auth/login", { email: "nobody@example.com", password: "whatever-123" });
    const b = await api.post("/auth/login", { email: "priya@example.com", password: "wrong-pass-123" });
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(a.body.message).toBe(b.body.message);
  });

  it("validates and updates the profile", async () => {
    const { token } = await signupViaApi(api, smtp, codeFrom, { email: "prof@example.com" });
    const bad = await api.raw(
      "PUT",
      "/profile/update-profile",
      { firstName: "", dateOfBirth: "2999-01-01", gender: "Select", contactNumber: "123", about: "" },
      token,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toMatchObject({
      firstName: ["Please enter Your First Name"],
      dateOfBirth: ["Date of Birth cannot be in future"],
      gender: ["Please select Your Gender"],
      contactNumber: ["Invalid Contact Number"],
      about: ["Please enter your About."],
    });
    const ok = await api.put(
      "/profile/update-profile",
      {
        firstName: "Prof",
        lastName: "",
        dateOfBirth: "1990-05-04",
        gender: "Female",
        contactNumber: "919876543210",
        about: "Teacher",
      },
      token,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("Profile Updated Successfully");
    expect(ok.body.profileDetails.additionalDetails).toMatchObject({
      gender: "Female",
      dateOfBirth: "1990-05-04",
      about: "Teacher",
    });
    expect((await api.get("/profile/get-user-details")).status).toBe(401);
    expect((await api.get("/profile/get-user-details", "x".repeat(43))).status).toBe(401);
  });

  it("changes the password and revokes other tokens", async () => {
    const { token } = await signupViaApi(api, smtp, codeFrom, { email: "chg@example.com" });
    const other = (await api.post("/auth/login", { email: "chg@example.com", password: strongPassword })).body
      .token;
    const wrong = await api.post(
      "/auth/change-password",
      { oldPassword: "nope-nope-1", newPassword: "New-pass-9876", confirmNewPassword: "New-pass-9876" },
      token,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors.oldPassword).toBeTruthy();
    const ok = await api.post(
      "/auth/change-password",
      { oldPassword: strongPassword, newPassword: "New-pass-9876", confirmNewPassword: "New-pass-9876" },
      token,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("Password Changed successfully");
    expect((await api.get("/profile/get-user-details", token)).status).toBe(200);
    expect((await api.get("/profile/get-user-details", other)).status).toBe(401);
    expect(
      (await api.post("/auth/login", { email: "chg@example.com", password: "New-pass-9876" })).status,
    ).toBe(200);
  });

  it("resets a forgotten password with a single-use link and ends every session", async () => {
    const { token } = await signupViaApi(api, smtp, codeFrom, { email: "forgot@example.com" });
    const unknown = await api.post("/auth/reset-password-token", { email: "ghost@example.com" });
    const known = await api.post("/auth/reset-password-token", { email: "forgot@example.com" });
    expect(unknown.status).toBe(200);
    expect(known.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    const resetToken = resetTokenFrom(await smtp.waitFor("forgot@example.com", /Reset/));
    const db = await openTestDb(server.dataDir);
    const stored = await db.all<{ token_hash: string }>("select token_hash from password_reset_tokens");
    await db.close();
    expect(stored.some((r) => r.token_hash === resetToken)).toBe(false);

    const mismatch = await api.post("/auth/reset-password", {
      token: resetToken,
      password: "Brand-new-123",
      confirmPassword: "Other-123456",
    });
    expect(mismatch.status).toBe(400);
    const ok = await api.post("/auth/reset-password", {
      token: resetToken,
      password: "Brand-new-123",
      confirmPassword: "Brand-new-123",
    });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("password reset successfully");
    const reuse = await api.post("/auth/reset-password", {
      token: resetToken,
      password: "Brand-new-456",
      confirmPassword: "Brand-new-456",
    });
    expect(reuse.status).toBe(400);
    expect((await api.get("/profile/get-user-details", token)).status).toBe(401);
    expect(
      (await api.post("/auth/login", { email: "forgot@example.com", password: "Brand-new-123" })).status,
    ).toBe(200);
  });

  it("logs out by revoking the token", async () => {
    const { token } = await signupViaApi(api, smtp, codeFrom, { email: "bye@example.com" });
    expect((await api.post("/auth/logout", {}, token)).status).toBe(200);
    expect((await api.get("/profile/get-user-details", token)).status).toBe(401);
  });

  it("bootstraps the admin from ADMIN_EMAIL / ADMIN_PASSWORD", async () => {
    const r = await api.post("/auth/login", { email: "root@clinic.test", password: "Root-pass-1234" });
    expect(r.status).toBe(200);
    expect(r.body.user.accountType).toBe("Admin");
  });

  it("answers unknown API paths and wrong methods with JSON", async () => {
    const nf = await api.raw("GET", "/no/such/thing");
    expect(nf.status).toBe(404);
    expect(nf.headers.get("content-type")).toMatch(/application\/json/);
    expect(nf.body.success).toBe(false);
    const m = await api.raw("GET", "/auth/login");
    expect(m.status).toBe(405);
    expect(m.headers.get("allow")).toBe("POST");
    expect(m.body.success).toBe(false);
  });
});

describe("rate limits", () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startServer();
  });
  afterAll(async () => {
    await limited?.stop();
  });
  it("answers 429 with Retry-After after too many wrong passwords for one account from one address", async () => {
    const c = apiClient(limited.url);
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 12; i++) {
      last = await c.post("/auth/login", { email: "target@example.com", password: `guess-${i}-xxxx` });
      statuses.push(last.status);
    }
    // 5 free tries, then this address waits a growing delay (other addresses are not held up: ratelimits.test.ts).
    expect(statuses.slice(0, 5).every((s) => s === 401)).toBe(true);
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(last!.body.message).toMatch(/Too many attempts/);
  });
});
