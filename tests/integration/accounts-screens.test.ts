import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, resetTokenFrom, startSmtp } from "../helpers/smtp";

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ SMTP_URL: smtp.url, RATE_LIMIT_DISABLED: "1" });
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const signupFields = (email: string, accountType = "Patient") => ({
  accountType,
  firstName: "Kavya",
  lastName: "Rao",
  email,
  countryCode: "+91",
  contactNumber: "9876543210",
  password: strongPassword,
  confirmPassword: strongPassword,
});

describe("account screens without JavaScript", () => {
  it("signup validates with the spec's messages and stores nothing", async () => {
    const b = new Browserish(server.url);
    const res = await b.post("/signup", {
      ...signupFields("bad@example.com"),
      contactNumber: "12345",
      confirmPassword: "Different-123",
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("Password do not matched");
    expect(html).toContain("Phone number must be exactly 10 digits");
    expect(html).not.toContain(strongPassword);
    expect(b.cookies.has("pending_signup")).toBe(false);
  });

  it("signup → code by mail → verify → login → dashboard, pending data kept server-side", async () => {
    const b = new Browserish(server.url);
    expect((await b.fetch("/verify-email")).headers.get("Location")).toBe("/signup");
    // An expert says who they are: without the details the screen refuses, saying what is missing.
    const bare = await b.post("/signup", signupFields("kavya@example.com", "Expert"));
    expect(bare.status).toBe(400);
    const bareHtml = await bare.text();
    expect(bareHtml).toContain("Please choose at least one specialty");
    expect(bareHtml).toContain("Please enter your medical registration number");
    expect(bareHtml).toContain("Please enter the council that issued your registration");
    expect(bareHtml).toContain("Please enter your years of practice");
    const res = await b.post("/signup", {
      ...signupFields("kavya@example.com", "Expert"),
      specialties: "Radiology",
      registrationNumber: "KMC-45821",
      registrationCouncil: "Karnataka Medical Council",
      yearsOfPractice: "9",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/verify-email");
    const cookie = decodeURIComponent(b.cookies.get("pending_signup") ?? "");
    expect(cookie).not.toContain("kavya");
    expect(cookie).not.toContain(strongPassword);
    const page = await b.follow(res);
    const html = await page.text();
    expect(html).toContain("OTP Sent Successfully");
    expect(html).toContain("kavya@example.com");
    expect(html).toContain("Spam/Junk");
    const confirmation = await b.fetch("/confirmation");
    expect(confirmation.status).toBe(200);

    const code = codeFrom(await smtp.waitFor("kavya@example.com", /verification code/));
    const wrong = await b.post("/verify-email", {
      intent: "verify",
      ...Object.fromEntries(
        (code === "000000" ? "111111" : "000000").split("").map((d, i) => [`d${i + 1}`, d]),
      ),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("That code is not right");

    const ok = await b.post("/verify-email", {
      intent: "verify",
      ...Object.fromEntries(code.split("").map((d, i) => [`d${i + 1}`, d])),
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/login");
    expect(await (await b.follow(ok)).text()).toContain("Signup Successful, Please Login");

    const db = await openTestDb(server.dataDir);
    const row = (await db.get(
      "select account_type, approved, password_hash from users where email = ?",
      "kavya@example.com",
    ))!;
    await db.close();
    expect(row.account_type).toBe("Expert");
    expect(Boolean(row.approved)).toBe(false);
    const details = await openTestDb(server.dataDir);
    expect(
      await details.get(
        "select p.registration_number, p.registration_council, p.years_of_practice, s.specialty from expert_profiles p join users u on u.id = p.user_id join expert_specialties s on s.user_id = u.id where u.email = ?",
        "kavya@example.com",
      ),
    ).toEqual({
      registration_number: "KMC-45821",
      registration_council: "Karnataka Medical Council",
      years_of_practice: 9,
      specialty: "Radiology",
    });
    await details.close();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);

    const bad = await b.post("/login", { email: "kavya@example.com", password: "wrong-password" });
    expect(bad.status).toBe(401);
    expect(await bad.text()).toContain("Incorrect email or password");
    const login = await b.post("/login", {
      email: "kavya@example.com",
      password: strongPassword,
      redirectTo: "/dashboard/my-profile",
    });
    expect(login.status).toBe(302);
    expect(login.headers.get("Location")).toBe("/dashboard/my-profile");
    const setCookie = login.headers.getSetCookie().find((c) => c.startsWith("cb_session="))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    // Signed-in visitors are sent to the dashboard from the account screens.
    for (const p of ["/login", "/signup", "/forgot-password", "/verify-email", "/update-password/abc"]) {
      const r = await b.fetch(p);
      expect(r.status, p).toBe(302);
      expect(r.headers.get("Location"), p).toBe("/dashboard/home");
    }
  });

  it("resend issues a new code and the old one stops working", async () => {
    const b = new Browserish(server.url);
    await b.post("/signup", signupFields("resend@example.com"));
    const first = codeFrom(await smtp.waitFor("resend@example.com", /verification code/));
    const before = smtp.mails.length;
    const r = await b.post("/verify-email", { intent: "resend" });
    expect(r.status).toBe(302);
    const deadline = Date.now() + 5000;
    while (smtp.mails.length === before && Date.now() < deadline) await new Promise((x) => setTimeout(x, 50));
    const second = codeFrom(await smtp.waitFor("resend@example.com", /verification code/));
    if (first !== second) {
      const old = await b.post("/verify-email", { intent: "verify", code: first });
      expect(old.status).toBe(400);
    }
    const ok = await b.post("/verify-email", { intent: "verify", code: second });
    expect(ok.headers.get("Location")).toBe("/login");
  });

  it("forgot password shows the check-your-email state and the reset link works once", async () => {
    const b = new Browserish(server.url);
    await b.post("/signup", signupFields("reset-screen@example.com"));
    const code = codeFrom(await smtp.waitFor("reset-screen@example.com", /verification code/));
    await b.post("/verify-email", { intent: "verify", code });
    const sent = await b.post("/forgot-password", { email: "reset-screen@example.com" });
    expect(sent.status).toBe(200);
    const html = await sent.text();
    expect(html).toContain("Check Your Email");
    expect(html).toContain("We have sent the reset email reset-screen@example.com");
    expect(html).toContain("Resend Email");
    const token = resetTokenFrom(await smtp.waitFor("reset-screen@example.com", /Reset/));
    const page = await b.fetch(`/update-password/${token}`);
    expect(await page.text()).toContain("Reset Password");
    const mismatch = await b.post(`/update-password/${token}`, {
      password: "Fresh-pass-123",
      confirmPassword: "Other-pass-123",
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain("Password do not matched");
    const ok = await b.post(`/update-password/${token}`, {
      password: "Fresh-pass-123",
      confirmPassword: "Fresh-pass-123",
    });
    expect(ok.headers.get("Location")).toBe("/login");
    expect(await (await b.follow(ok)).text()).toContain("password reset successfully");
    const again = await b.fetch(`/update-password/${token}`);
    expect(await again.text()).toContain("Unable to reset password");
  });
});
