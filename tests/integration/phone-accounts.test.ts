import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { startKannel, type DeliveredSms, type Kannel } from "../helpers/kannel";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Phone-first patients (issue 13) over HTTP against the built app, with SMS delivered through a
 * real Kannel (fakesmsc as the operator) and mail through a real SMTP server: sign-up, password
 * and SMS-code login and password reset by mobile number on the API and the screens, the
 * limits, and notifications by SMS (patients; experts who chose SMS) with their short links.
 */

const ADMIN = { email: "admin@phone.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let kannel: Kannel;
let api: ReturnType<typeof apiClient>;

/** Test numbers: valid Indian mobile numbers, one per test so the per-number limits do not mix. */
let nextNumber = 9_812_340_000;
const newNumber = () => String(nextNumber++);
const e164 = (national: string) => `+91${national}`;

/**
 * Waits for an SMS to a number (delivered by Kannel to fakesmsc): the first one after the
 * `after`-th message to it (see smsCount) that matches, so an older code is never taken by mistake.
 */
async function smsTo(number: string, match?: RegExp, after = 0, timeoutMs = 15_000): Promise<DeliveredSms> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = kannel
      .delivered()
      .filter((m) => m.receiver.replace(/^00/, "+") === number)
      .slice(after)
      .find((m) => !match || match.test(m.text));
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no SMS to ${number} matching ${match} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const smsCount = (number: string) =>
  kannel.delivered().filter((m) => m.receiver.replace(/^00/, "+") === number).length;
const codeIn = (sms: DeliveredSms) => /\b(\d{6})\b/.exec(sms.text)![1];

/** Signs a patient up with a mobile number through the API; returns the number, token and user. */
async function phonePatient(locale = "en") {
  const national = newNumber();
  const phone = e164(national);
  const sent = await api.post("/auth/send-otp", { phone: national }, undefined, {
    "Accept-Language": locale,
  });
  expect(sent.status).toBe(200);
  const code = codeIn(await smsTo(phone));
  const res = await api.post(
    "/auth/signup",
    {
      accountType: "Patient",
      firstName: "Lakshmi",
      lastName: "Devi",
      phone,
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: code,
    },
    undefined,
    { "Accept-Language": locale },
  );
  expect(res.status).toBe(201);
  const login = await api.post("/auth/login", { phone, password: strongPassword });
  expect(login.status).toBe(200);
  return { phone, national, token: login.body.token as string, user: res.body.data };
}

beforeAll(async () => {
  smtp = await startSmtp();
  kannel = await startKannel();
  server = await startServer({
    SMTP_URL: smtp.url,
    SMS_URL: kannel.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await kannel?.stop();
  await smtp?.close();
});

describe("a mobile number as an identity (API)", () => {
  it("signs up with an SMS code, without e-mail, and logs in with the number and password", async () => {
    const national = newNumber();
    const phone = e164(national);
    const sent = await api.post("/auth/send-otp", {
      phone: `+91 ${national.slice(0, 5)} ${national.slice(5)}`,
    });
    expect(sent.status).toBe(200);
    const sms = await smsTo(phone);
    expect(sms.text).toMatch(/^\d{6} is your CareBridge code/);
    expect(sms.parts).toBe(1);
    const code = codeIn(sms);
    const base = {
      accountType: "Patient",
      firstName: "Ravi",
      lastName: "Kumar",
      phone: national, // digits only: +91 assumed
      password: strongPassword,
      confirmPassword: strongPassword,
    };
    const wrong = await api.post("/auth/signup", { ...base, otp: code === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    const ok = await api.post("/auth/signup", { ...base, otp: code });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ email: "", phone, accountType: "Patient", notify: "email" });
    expect((await api.post("/auth/signup", { ...base, otp: code })).status).toBe(409);
    const taken = await api.post("/auth/send-otp", { phone });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe("An account with this mobile number already exists");

    for (const who of [{ phone }, { phone: national }, { email: national }, { email: `0${national}` }]) {
      const login = await api.post("/auth/login", { ...who, password: strongPassword });
      expect(login.status, JSON.stringify(who)).toBe(200);
      expect(login.body.user).toMatchObject({ _id: ok.body.data._id, phone });
    }
    const bad = await api.post("/auth/login", { phone, password: "Wrong-pass-2026" });
    expect(bad.status).toBe(401);
  });

  it("logs in with an SMS login code; the same answer and no SMS for an unknown number", async () => {
    const p = await phonePatient();
    const seen = smsCount(p.phone);
    const asked = await api.post("/auth/send-login-code", { phone: p.phone });
    expect(asked.status).toBe(200);
    const code = codeIn(await smsTo(p.phone, /code/, seen));
    // A signup or reset code cannot be used to log in, nor a code for another number.
    const other = await phonePatient();
    expect((await api.post("/auth/login", { phone: other.phone, otp: code })).status).toBe(400);
    const login = await api.post("/auth/login", { phone: p.phone, otp: code });
    expect(login.status).toBe(200);
    expect(login.body.user._id).toBe(p.user._id);
    expect((await api.post("/auth/login", { phone: p.phone, otp: code })).status).toBe(400); // single use

    const nobody = e164(newNumber());
    const unknown = await api.post("/auth/send-login-code", { phone: nobody });
    expect(unknown.status).toBe(200);
    expect(unknown.body.message).toBe(asked.body.message);
    await new Promise((r) => setTimeout(r, 1500));
    expect(smsCount(nobody)).toBe(0);
  });

  it("locks an SMS login code after five wrong tries", async () => {
    const p = await phonePatient();
    const seen = smsCount(p.phone);
    await api.post("/auth/send-login-code", { phone: p.phone });
    const code = codeIn(await smsTo(p.phone, /code/, seen));
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++)
      expect((await api.post("/auth/login", { phone: p.phone, otp: wrong })).status).toBe(400);
    const late = await api.post("/auth/login", { phone: p.phone, otp: code });
    expect(late.status).toBe(400);
    expect(late.body.message).toMatch(/Too many wrong tries|expired/);
  });

  it("resets the password of a phone account with an SMS code; other sessions end", async () => {
    const p = await phonePatient();
    const before = smsCount(p.phone);
    const asked = await api.post("/auth/reset-password-token", { phone: p.phone });
    expect(asked.status).toBe(200);
    const sms = await smsTo(p.phone, /code/, before);
    await new Promise((r) => setTimeout(r, 500));
    expect(smsCount(p.phone)).toBe(before + 1);
    const next = "Fresh-pass-2027";
    const mismatch = await api.post("/auth/reset-password", {
      phone: p.phone,
      otp: codeIn(sms),
      password: next,
      confirmPassword: "Other-pass-2027",
    });
    expect(mismatch.status).toBe(400);
    const done = await api.post("/auth/reset-password", {
      phone: p.phone,
      otp: codeIn(sms),
      password: next,
      confirmPassword: next,
    });
    expect(done.status).toBe(200);
    expect((await api.get("/profile/get-user-details", p.token)).status).toBe(401);
    expect((await api.post("/auth/login", { phone: p.phone, password: strongPassword })).status).toBe(401);
    expect((await api.post("/auth/login", { phone: p.phone, password: next })).status).toBe(200);
    // Without a token or a number and code, nothing is reset.
    expect((await api.post("/auth/reset-password", { password: next, confirmPassword: next })).status).toBe(
      400,
    );
  });

  it("refuses experts by mobile number, bad numbers, and two signups racing for one number", async () => {
    const national = newNumber();
    const expert = await api.post("/auth/signup", {
      accountType: "Expert",
      firstName: "Dr",
      lastName: "Who",
      phone: national,
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: "123456",
    });
    expect(expert.status).toBe(400);
    expect(expert.body.errors.phone).toEqual([
      "Only patients can sign up with a mobile number. Experts sign up with an e-mail address.",
    ]);
    for (const phone of ["12345", "+91 00000 00000", "abcdefghij", "+999999999999", "9".repeat(40)]) {
      const r = await api.post("/auth/send-otp", { phone });
      expect(r.status, phone).toBe(400);
    }
    const r = await api.post("/auth/send-otp", { phone: 9876543210 });
    expect(r.status).toBe(400);

    // Two clients finish a signup for the same number at once: one account, one 409.
    const number = newNumber();
    await api.post("/auth/send-otp", { phone: number });
    const code = codeIn(await smsTo(e164(number)));
    const body = {
      accountType: "Patient",
      firstName: "Twin",
      lastName: "Race",
      phone: number,
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: code,
    };
    const both = await Promise.all([api.post("/auth/signup", body), api.post("/auth/signup", body)]);
    const statuses = both.map((b) => b.status).sort();
    expect(statuses[0]).toBe(201);
    expect([400, 409]).toContain(statuses[1]);
    const db = await openTestDb(server.dataDir);
    try {
      const row = await db.get<{ n: number }>(
        "SELECT count(*) AS n FROM users WHERE phone = ?",
        e164(number),
      );
      expect(Number(row!.n)).toBe(1);
    } finally {
      await db.close();
    }
  });

  it("sends codes in the patient's language as UCS-2, in at most two SMS", async () => {
    const national = newNumber();
    await api.post("/auth/send-otp", { phone: national }, undefined, { "Accept-Language": "hi" });
    const sms = await smsTo(e164(national));
    expect(sms.coding).toBe("ucs-2");
    expect(sms.text).toMatch(/[\u0900-\u097F]/);
    expect(sms.parts).toBeLessThanOrEqual(2);
  });
});

describe("limits on SMS (they cost money)", () => {
  let limited: TestServer;
  let lapi: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    limited = await startServer({ SMS_URL: kannel.url, SMS_PER_HOUR: "12" });
    lapi = apiClient(limited.url);
  }, 60_000);
  afterAll(async () => limited?.stop());

  it("per number (5 an hour), then the hourly ceiling for the whole service", async () => {
    const number = newNumber();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await lapi.post("/auth/send-otp", { phone: number })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const sixth = await lapi.post("/auth/send-otp", { phone: number });
    expect(Number(sixth.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Login and reset codes count against the same number's budget.
    expect((await lapi.post("/auth/send-login-code", { phone: number })).status).toBe(429);
    // 5 sent so far; 7 more numbers fill the ceiling of 12; then nobody gets a code this hour.
    const more: number[] = [];
    for (let i = 0; i < 8; i++) more.push((await lapi.post("/auth/send-otp", { phone: newNumber() })).status);
    expect(more.slice(0, 7)).toEqual(Array(7).fill(200));
    expect(more[7]).toBe(429);
  });
});

describe("the screens", () => {
  it("signs a patient up with a mobile number (no e-mail), then logs in with it and a password", async () => {
    const b = new Browserish(server.url);
    const page = await (await b.fetch("/signup")).text();
    expect(page).toContain('name="signupWith"');
    expect(page).toContain('name="mobileNumber"');
    expect(page).toMatch(/<option value="\+880"[^>]*>/); // ~200 dial codes, Bangladesh among them
    const national = newNumber();
    const fields = {
      accountType: "Patient",
      signupWith: "phone",
      firstName: "Meena",
      lastName: "Kumari",
      mobileCountryCode: "+91",
      mobileNumber: `${national.slice(0, 5)} ${national.slice(5)}`,
      password: strongPassword,
      confirmPassword: strongPassword,
    };
    const bad = await b.post("/signup", { ...fields, mobileNumber: "12345" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("This is not a valid mobile number");
    const res = await b.post("/signup", fields);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/verify-email");
    const verify = await (await b.fetch("/verify-email")).text();
    expect(verify).toContain("Verify your mobile number");
    expect(verify).toContain(national.slice(-4));
    expect(verify).not.toContain(national); // masked
    const code = codeIn(await smsTo(e164(national)));
    const digits = Object.fromEntries(code.split("").map((d, i) => [`d${i + 1}`, d]));
    const done = await b.post("/verify-email", { intent: "verify", ...digits });
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/login");

    const login = await b.post("/login", { email: `+91${national}`, password: strongPassword });
    expect(login.status).toBe(302);
    expect(login.headers.get("Location")).toBe("/dashboard/home");
  });

  it("an expert who picks 'mobile number' still signs up by e-mail", async () => {
    const b = new Browserish(server.url);
    const res = await b.post("/signup", {
      accountType: "Expert",
      signupWith: "phone",
      firstName: "Dr",
      lastName: "Mail",
      mobileNumber: "",
      password: strongPassword,
      confirmPassword: strongPassword,
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("Please enter your email"); // the e-mail is what is missing
    expect(html).not.toContain("Please enter your mobile number");
  });

  it("logs in with an SMS code in two steps, honouring where the person was going", async () => {
    const p = await phonePatient();
    const seen = smsCount(p.phone);
    const b = new Browserish(server.url);
    const first = await b.post("/login-code?redirectTo=%2Fm%2Fo", {
      intent: "send",
      redirectTo: "/m/o",
      mobileCountryCode: "+91",
      mobileNumber: p.national,
    });
    expect(first.status).toBe(200);
    const step2 = await first.text();
    expect(step2).toContain(`value="${p.phone}"`);
    expect(step2).toContain(p.national.slice(-4));
    const code = codeIn(await smsTo(p.phone, /code/, seen));
    const wrong = await b.post("/login-code", {
      intent: "verify",
      phone: p.phone,
      code: code === "000000" ? "111111" : "000000",
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toMatch(/That code is not right/);
    const ok = await b.post("/login-code", { intent: "verify", phone: p.phone, code, redirectTo: "/m/o" });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/m/o");
    const mine = await b.fetch("/m/o");
    expect(mine.headers.get("Location")).toBe(`/dashboard/previous-report/${p.user._id}`);
    // An open redirect is refused.
    const again = new Browserish(server.url);
    const seen2 = smsCount(p.phone);
    await again.post("/login-code", { intent: "send", mobileNumber: p.national });
    const code2 = codeIn(await smsTo(p.phone, /code/, seen2));
    const evil = await again.post("/login-code", {
      intent: "verify",
      phone: p.phone,
      code: code2,
      redirectTo: "//evil.test",
    });
    expect(evil.headers.get("Location")).toBe("/dashboard/home");
  });

  it("resets a phone account's password from 'Forgot password' with the SMS code", async () => {
    const p = await phonePatient();
    const seen = smsCount(p.phone);
    const b = new Browserish(server.url);
    const asked = await b.post("/forgot-password", { email: p.national });
    expect(asked.status).toBe(302);
    expect(asked.headers.get("Location")).toBe(`/reset-code?phone=${encodeURIComponent(p.phone)}`);
    const page = await (await b.fetch(asked.headers.get("Location")!)).text();
    expect(page).toContain(p.national.slice(-4));
    const code = codeIn(await smsTo(p.phone, /code/, seen));
    const next = "Brand-new-pass-9";
    const short = await b.post(`/reset-code?phone=${encodeURIComponent(p.phone)}`, {
      intent: "reset",
      code,
      password: "short",
      confirmPassword: "short",
    });
    expect(short.status).toBe(400);
    const ok = await b.post(`/reset-code?phone=${encodeURIComponent(p.phone)}`, {
      intent: "reset",
      code,
      password: next,
      confirmPassword: next,
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/login");
    expect((await api.post("/auth/login", { phone: p.phone, password: next })).status).toBe(200);
    // No number, or a bad one: back to "Forgot password".
    expect((await b.fetch("/reset-code")).headers.get("Location")).toBe("/forgot-password");
    expect((await b.fetch("/reset-code?phone=abc")).headers.get("Location")).toBe("/forgot-password");
  });
});

describe("notifications by SMS", () => {
  it("a phone patient hears by SMS when the opinion is ready and when a follow-up is answered (no medical content)", async () => {
    const admin = (await api.post("/auth/login", ADMIN)).body.token as string;
    const expert = await signupViaApi(api, smtp, codeFrom, {
      email: "sms-expert@phone.test",
      accountType: "Expert",
      extra: {
        specialties: ["General Medicine"],
        registrationNumber: "KMC-9001",
        registrationCouncil: "Karnataka Medical Council",
        yearsOfPractice: 9,
      },
    });
    expect((await api.post("/expert/approve-expert", { expertId: expert.user._id }, admin)).status).toBe(200);
    // The expert chooses SMS for notifications (to the contact number given at signup).
    const chosen = await api.put("/profile/update-notifications", { notify: "sms" }, expert.token);
    expect(chosen.status).toBe(200);
    expect(chosen.body.data.notify).toBe("sms");
    expect((await api.put("/profile/update-notifications", { notify: "pigeon" }, expert.token)).status).toBe(
      400,
    );

    const p = await phonePatient("hi");
    const mailsBefore = smtp.mails.length;
    const up = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "Blood Test", phoneNumber: p.national, countryCode: "+91" },
        { name: "r.pdf", data: samplePdf(), type: "application/pdf" },
      ),
      p.token,
    );
    expect(up.status).toBe(201);
    const expertSms = await smsTo("+919876543210", /review/);
    expect(expertSms.text).toContain("/m/p");
    await new Promise((r) => setTimeout(r, 500));
    const expertMails = smtp.mails.slice(mailsBefore).filter((m) => m.to.includes("sms-expert@phone.test"));
    expect(expertMails.filter((m) => /waiting for review/.test(m.subject))).toHaveLength(0);

    const id = up.body.data._id;
    expect((await api.post(`/report/claim/${id}`, {}, expert.token)).status).toBe(200);
    const beforeReview = smsCount(p.phone);
    const review = await api.post(
      `/report/add-review/${id}`,
      {
        review: "Haemoglobin is low; iron supplements advised.",
        findings: "Hb 9.1 g/dL",
        seeDoctorSoon: true,
      },
      expert.token,
    );
    expect(review.status).toBe(200);
    const ready = await smsTo(p.phone, /\/m\/o/, beforeReview);
    expect(ready.coding).toBe("ucs-2");
    expect(ready.parts).toBeLessThanOrEqual(2);
    expect(ready.text).toContain("CareBridge");
    expect(ready.text).not.toMatch(/Haemoglobin|Hb|iron|Blood/i);

    const q = await api.post(`/report/follow-up/${id}`, { question: "Should I eat more spinach?" }, p.token);
    expect(q.status).toBe(201);
    const before = smsCount(p.phone);
    const a = await api.post(
      `/report/follow-up-answer/${q.body.data._id}`,
      { answer: "Yes, and lentils." },
      expert.token,
    );
    expect(a.status).toBe(200);
    const answered = await smsTo(p.phone, /\/m\/o/, before);
    await new Promise((r) => setTimeout(r, 500));
    expect(smsCount(p.phone)).toBe(before + 1);
    expect(answered.text).not.toMatch(/spinach|lentils/i);
  });

  it("patients cannot choose a channel; an expert without a mobile number cannot choose SMS", async () => {
    const p = await phonePatient();
    const r = await api.put("/profile/update-notifications", { notify: "sms" }, p.token);
    expect(r.status).toBe(403);
    expect((await api.put("/profile/update-notifications", { notify: "sms" })).status).toBe(401);
  });

  it("short links need a session and hold no ids", async () => {
    const b = new Browserish(server.url);
    const res = await b.fetch("/m/o");
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=%2Fm%2Fo/);
    const p = await phonePatient();
    const signedIn = new Browserish(server.url);
    await signedIn.post("/login", { email: p.phone, password: strongPassword });
    expect((await signedIn.fetch("/m/zz")).headers.get("Location")).toBe("/dashboard/home");
    expect((await signedIn.fetch("/m/f")).headers.get("Location")).toBe("/dashboard/follow-ups");
  });
});
