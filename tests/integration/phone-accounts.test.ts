import * as vitest from "vitest";
import { expect } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { startKannel, type DeliveredSms, type Kannel } from "../helpers/kannel";
import { raw } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { withoutPageStrings } from "../helpers/html";
import { onlyWith, requireKannel } from "../helpers/requires";

// Needs Kannel (the SMS tests' real gateway): skipped without it, naming the package, except under CI.
const { afterAll, beforeAll, describe, it } = onlyWith(requireKannel(), vitest);

/*
 * Phone-first patients over HTTP against the built app, with SMS delivered through a
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
      accountType: "Patient" as const,
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
    // The code was used: refused as a used code, not as "already exists" (see "signup does not tell who has an account" below).
    expect((await api.post("/auth/signup", { ...base, otp: code })).status).toBe(400);

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
    const r = await api.raw("POST", "/auth/send-otp", { phone: 9876543210 });
    expect(r.status).toBe(400);

    // Two clients finish a signup for the same number at once: one account, one 409.
    const number = newNumber();
    await api.post("/auth/send-otp", { phone: number });
    const code = codeIn(await smsTo(e164(number)));
    const body = {
      accountType: "Patient" as const,
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

/** A JSON POST to a server's /api/v1 from a chosen source address (several clients in 127.0.0.0/8). */
function postFrom(base: string, ip: string) {
  return async (p: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await raw(`${base}/api/v1${p}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      localAddress: ip,
    });
    return { status: r.status, headers: r.headers, body: JSON.parse(r.body.toString()) };
  };
}

/** A fresh valid Indian mobile number in a block of 1,000 numbers of its own (the signup range budget). */
let nextBlock = 9_700_100_000;
const blockNumber = () => String((nextBlock += 1000));

/** Waits until `n` SMS have reached a number (the queue sends in the background). */
async function untilCount(number: string, n: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (smsCount(number) < n) {
    if (Date.now() > deadline) throw new Error(`only ${smsCount(number)} of ${n} SMS to ${number}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A phone patient on `base`, signed up and logged in from `ip` (a session from that address). */
async function phonePatientOn(base: string, ip: string) {
  const post = postFrom(base, ip);
  const national = blockNumber();
  const phone = e164(national);
  const seen = smsCount(phone);
  expect((await post("/auth/send-otp", { phone })).status).toBe(200);
  const code = codeIn(await smsTo(phone, /code/, seen));
  const body = {
    accountType: "Patient",
    firstName: "Asha",
    lastName: "Rani",
    phone,
    password: strongPassword,
    confirmPassword: strongPassword,
    otp: code,
  };
  expect((await post("/auth/signup", body)).status).toBe(201);
  const login = await post("/auth/login", { phone, password: strongPassword });
  expect(login.status).toBe(200);
  await untilCount(phone, seen + 1);
  // The "known device" mark the login set: what draws on the owner's SMS reserve.
  const device = deviceCookieOf(login.headers["set-cookie"]);
  return { phone, national, post, device };
}

/** The `cb_device=…` pair of a response's Set-Cookie headers (throws when there is none). */
function deviceCookieOf(setCookie: string | string[] | undefined): string {
  const all = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const hit = all.find((c) => c.startsWith("cb_device="));
  if (!hit) throw new Error(`no cb_device cookie in ${JSON.stringify(all)}`);
  return hit.split(";")[0];
}

describe("SMS pumping, ceilings and strangers (limits on)", () => {
  let pump: TestServer;
  beforeAll(async () => {
    pump = await startServer({ SMS_URL: kannel.url, SMS_COUNTRIES: "IN,GB,US,DE" });
  }, 60_000);
  afterAll(async () => pump?.stop());

  const NOT_MOBILE =
    "This number cannot receive our SMS codes (it is not a mobile number). Please give a mobile number.";
  const NOT_SERVED =
    "We send SMS codes only to mobile numbers of the countries in the country code list. Please choose one of them, or sign up with an e-mail address.";

  it("only mobile numbers of the countries in SMS_COUNTRIES get an SMS: no premium rate, toll free, fixed line or other country", async () => {
    const post = postFrom(pump.url, "127.0.40.1");
    const refused: [string, string][] = [
      ["+449066112345", NOT_MOBILE], // UK premium rate
      ["+4490661 12346", NOT_MOBILE],
      ["+18005550199", NOT_MOBILE], // US toll free
      ["+4930123456", NOT_MOBILE], // German fixed line
      ["+37491123456", NOT_SERVED], // an Armenian mobile: Armenia is not in SMS_COUNTRIES
      ["+8801712345678", NOT_SERVED], // Bangladesh
    ];
    for (const [phone, message] of refused) {
      for (const path of ["/auth/send-otp", "/auth/send-login-code", "/auth/reset-password-token"]) {
        const r = await post(path, { phone });
        expect(r.status, `${path} ${phone}`).toBe(400);
        expect(r.body.errors.phone, `${path} ${phone}`).toEqual([message]);
      }
    }
    // Mobile numbers pass, and US numbers whose plan cannot tell mobile from fixed line.
    for (const phone of ["+4915123456789", "+12015550123", e164(blockNumber())]) {
      expect((await post("/auth/send-otp", { phone })).status, phone).toBe(200);
      expect(codeIn(await smsTo(phone, /code/))).toMatch(/^\d{6}$/);
    }
    await new Promise((r) => setTimeout(r, 1000));
    const digits = refused.map(([p]) => p.replace(/\D/g, ""));
    expect(
      kannel.delivered().filter((m) => digits.includes(m.receiver.replace(/\D/g, "").replace(/^00/, ""))),
    ).toEqual([]);
  });

  it("the dial codes on signup and SMS login follow SMS_COUNTRIES; another country is refused on the number's field", async () => {
    const b = new Browserish(pump.url);
    for (const page of ["/signup", "/login-code"]) {
      const html = await (await b.fetch(page)).text();
      for (const code of ["+91", "+44", "+49", "+1"])
        expect(html, `${page} ${code}`).toContain(`<option value="${code}"`);
      expect(html, page).not.toContain('<option value="+374"');
      expect(html, page).not.toContain('<option value="+880"');
      expect((html.match(/<option value="\+/g) ?? []).length, page).toBeLessThan(10);
    }
    const res = await b.post("/signup", {
      accountType: "Patient",
      signupWith: "phone",
      firstName: "Anahit",
      lastName: "K",
      mobileCountryCode: "+374",
      mobileNumber: "91 123456",
      password: strongPassword,
      confirmPassword: strongPassword,
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(NOT_SERVED);
    const login = await b.post("/login-code", {
      intent: "send",
      mobileCountryCode: "+44",
      mobileNumber: "906 611 2345",
    });
    expect(login.status).toBe(400);
    expect(await login.text()).toContain("This number cannot receive our SMS codes");
  });

  it("signup codes per block of numbers: pumping a range from several addresses stops at 10 an hour", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const post = postFrom(pump.url, `127.0.41.${(i % 8) + 1}`);
      statuses.push(
        (await post("/auth/send-otp", { phone: `+9197770000${String(i).padStart(2, "0")}` })).status,
      );
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
    // Another block is not affected.
    expect(
      (await postFrom(pump.url, "127.0.41.9")("/auth/send-otp", { phone: e164(blockNumber()) })).status,
    ).toBe(200);
  });

  it("one address asking for one number is limited per number+address; another address is not", async () => {
    const phone = e164(blockNumber());
    const mine = postFrom(pump.url, "127.0.42.1");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await mine("/auth/send-login-code", { phone })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await postFrom(pump.url, "127.0.42.2")("/auth/send-login-code", { phone })).status).toBe(200);
  });

  it("strangers from many addresses cannot block the owner's login codes or code checks", async () => {
    const victim = await phonePatientOn(pump.url, "127.0.43.1");
    const start = smsCount(victim.phone);
    // Nine strangers, nine addresses: each asks for a login code to the victim's number.
    for (let i = 0; i < 9; i++) {
      const r = await postFrom(pump.url, `127.0.44.${i + 1}`)("/auth/send-login-code", {
        phone: victim.phone,
      });
      expect(r.status, `stranger ${i}`).toBe(200);
    }
    // The number's budget (10 an hour, the signup code included) is spent for strangers — known or unknown number alike.
    expect(
      (await postFrom(pump.url, "127.0.44.50")("/auth/send-login-code", { phone: victim.phone })).status,
    ).toBe(429);
    await untilCount(victim.phone, start + 9);
    // 25 wrong code checks from 25 addresses (the old per-number budget of checks was 20).
    for (let i = 0; i < 25; i++) {
      const r = await postFrom(pump.url, `127.0.45.${i + 1}`)("/auth/login", {
        phone: victim.phone,
        otp: "000000",
      });
      expect(r.status, `check ${i}`).toBe(400);
    }
    // The owner, on the device they logged in on (its mark), still gets a code (the reserve) and logs in with it.
    const seen = smsCount(victim.phone);
    const own = await victim.post(
      "/auth/send-login-code",
      { phone: victim.phone },
      { Cookie: victim.device },
    );
    expect(own.status).toBe(200);
    const code = codeIn(await smsTo(victim.phone, /code/, seen));
    const login = await victim.post("/auth/login", { phone: victim.phone, otp: code });
    expect(login.status).toBe(200);
    expect(login.body.token).toBeTruthy();
  });

  it("the owner's reserve follows the device they logged in on: after logout, from any address; strangers, forged and other accounts' marks get nothing", async () => {
    const victim = await phonePatientOn(pump.url, "127.0.46.1");
    // The owner logs in on the screens (a browser), which keeps the mark, then logs out.
    const owner = new Browserish(pump.url);
    const signedIn = await owner.post("/login", { email: victim.phone, password: strongPassword });
    expect(signedIn.status).toBe(302);
    const setCookie = signedIn.headers.getSetCookie().find((c) => c.startsWith("cb_device="))!;
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Lax/i);
    expect(setCookie).toMatch(/; Max-Age=31536000/);
    expect(setCookie).toMatch(/; Path=\//);
    // The mark names no one: neither the account's id nor its number is in it, decoded or not.
    const value = decodeURIComponent(setCookie.split(";")[0].slice("cb_device=".length));
    const decoded = Buffer.from(value, "base64").toString();
    for (const secret of [victim.phone, victim.national, "Asha"]) {
      expect(value).not.toContain(secret);
      expect(decoded).not.toContain(secret);
    }
    const me = await victim.post("/auth/login", { phone: victim.phone, password: strongPassword });
    const userId = String(me.body.user._id);
    expect(value).not.toContain(userId);
    expect(decoded).not.toContain(userId);
    // The same mark as the API login's: one per account, whatever the client.
    expect(`cb_device=${owner.cookies.get("cb_device")}`).toBe(victim.device);
    expect((await owner.post("/logout", {})).status).toBe(302);
    expect(owner.cookies.has("cb_session")).toBe(false);
    expect(owner.cookies.has("cb_device")).toBe(true); // logging out keeps the device known
    // Another patient's device, and a forged mark.
    const other = await phonePatientOn(pump.url, "127.0.46.2");
    const otherBrowser = new Browserish(pump.url);
    otherBrowser.cookies.set("cb_device", other.device.slice("cb_device=".length));
    const forged = new Browserish(pump.url);
    forged.cookies.set("cb_device", owner.cookies.get("cb_device")!.replace(/^.{4}/, "AAAA"));

    // Strangers from several addresses spend the number's budget (10 an hour, the signup code included).
    const start = smsCount(victim.phone);
    for (let i = 0; i < 9; i++) {
      const path = i % 2 ? "/auth/send-login-code" : "/auth/reset-password-token";
      expect((await postFrom(pump.url, `127.0.47.${i + 1}`)(path, { phone: victim.phone })).status).toBe(200);
    }
    await untilCount(victim.phone, start + 9);
    const stranger = postFrom(pump.url, "127.0.47.50");
    expect((await stranger("/auth/send-login-code", { phone: victim.phone })).status).toBe(429);
    // The owner's browser, logged out since, still gets a login code and a reset code on the screens.
    let seen = smsCount(victim.phone);
    const send = await owner.post("/login-code", {
      intent: "send",
      mobileCountryCode: "+91",
      mobileNumber: victim.national,
    });
    expect(send.status).toBe(200);
    await smsTo(victim.phone, /code/, seen);
    seen = smsCount(victim.phone);
    const reset = await owner.post("/forgot-password", { email: victim.phone });
    expect(reset.status).toBe(302);
    expect(reset.headers.get("Location")).toBe(`/reset-code?phone=${encodeURIComponent(victim.phone)}`);
    await smsTo(victim.phone, /code/, seen);
    // Without the mark, from a new address: 429; with another account's mark or a forged one: 429 too.
    expect((await stranger("/auth/reset-password-token", { phone: victim.phone })).status).toBe(429);
    expect(
      (
        await postFrom(pump.url, "127.0.47.51")(
          "/auth/send-login-code",
          { phone: victim.phone },
          { Cookie: other.device },
        )
      ).status,
    ).toBe(429);
    for (const b of [otherBrowser, forged]) {
      const r = await b.post("/login-code", {
        intent: "send",
        mobileCountryCode: "+91",
        mobileNumber: victim.national,
      });
      expect(r.status).toBe(429);
    }
    // The API client that kept the mark from its login gets a code from any address (the reserve's third).
    seen = smsCount(victim.phone);
    expect(
      (
        await postFrom(pump.url, "127.0.47.52")(
          "/auth/send-login-code",
          { phone: victim.phone },
          { Cookie: victim.device },
        )
      ).status,
    ).toBe(200);
    await smsTo(victim.phone, /code/, seen);
    await new Promise((r) => setTimeout(r, 500));
    expect(smsCount(victim.phone)).toBe(start + 12);
  });

  describe("a small SMS_PER_HOUR", () => {
    let ceil: TestServer;
    beforeAll(async () => {
      ceil = await startServer({ SMS_URL: kannel.url, SMS_PER_HOUR: "3" });
    }, 60_000);
    afterAll(async () => ceil?.stop());

    it("asking for numbers without an account spends no ceiling; signup codes cannot starve login and reset codes", async () => {
      const owner = await phonePatientOn(ceil.url, "127.0.50.1"); // signup codes: 1 of 3
      const nobody: string[] = [];
      for (let i = 0; i < 8; i++) {
        const phone = e164(blockNumber());
        nobody.push(phone);
        const post = postFrom(ceil.url, `127.0.51.${i + 1}`);
        expect((await post("/auth/send-login-code", { phone })).status).toBe(200);
        expect((await post("/auth/reset-password-token", { phone })).status).toBe(200);
      }
      // The owner's login and reset codes still go out.
      let seen = smsCount(owner.phone);
      expect((await owner.post("/auth/send-login-code", { phone: owner.phone })).status).toBe(200);
      await smsTo(owner.phone, /code/, seen);
      seen = smsCount(owner.phone);
      expect((await owner.post("/auth/reset-password-token", { phone: owner.phone })).status).toBe(200);
      await smsTo(owner.phone, /code/, seen);
      // Signup codes fill their own ceiling (2 more of 3) ...
      const signups: number[] = [];
      for (let i = 0; i < 3; i++)
        signups.push(
          (await postFrom(ceil.url, `127.0.52.${i + 1}`)("/auth/send-otp", { phone: e164(blockNumber()) }))
            .status,
        );
      expect(signups).toEqual([200, 200, 429]);
      // ... and the owner's next login code still goes out (3 of the 3 login and reset codes) ...
      seen = smsCount(owner.phone);
      expect((await owner.post("/auth/send-login-code", { phone: owner.phone })).status).toBe(200);
      await smsTo(owner.phone, /code/, seen);
      // ... after which that ceiling holds too.
      expect((await owner.post("/auth/send-login-code", { phone: owner.phone })).status).toBe(429);
      await new Promise((r) => setTimeout(r, 1000));
      for (const phone of nobody) expect(smsCount(phone), phone).toBe(0);
    });
  });
});

describe("the full phone-number metadata and older accounts", () => {
  it("an account whose stored number the full metadata calls invalid still logs in with its password", async () => {
    const p = await phonePatient();
    const odd = "+915012345678"; // valid by libphonenumber-js's smaller "min" metadata (used before), not by the full one
    const db = await openTestDb(server.dataDir, { write: true });
    try {
      expect(await db.run("UPDATE users SET phone = ? WHERE phone = ?", odd, p.phone)).toBe(1);
    } finally {
      await db.close();
    }
    const login = await api.post("/auth/login", { phone: odd, password: strongPassword });
    expect(login.status).toBe(200);
    expect(login.body.user._id).toBe(p.user._id);
    // No SMS goes to it, though: it is not a number the full metadata knows.
    expect((await api.post("/auth/send-login-code", { phone: odd })).status).toBe(400);
  });
});

describe("signup does not tell who has an account (phone)", () => {
  it("a registered number, in any spelling, gets the same answer; its owner gets 'you already have an account' in their language, no code", async () => {
    const p = await phonePatient("hi");
    const fresh = await api.post("/auth/send-otp", { phone: newNumber() });
    expect(fresh.status).toBe(200);
    const spellings = [`0${p.national}`, `0091 ${p.national.slice(0, 5)} ${p.national.slice(5)}`, p.phone];
    for (const phone of spellings) {
      const seen = smsCount(p.phone);
      const r = await api.post("/auth/send-otp", { phone }, undefined, { "Accept-Language": "en" });
      expect(r.status, phone).toBe(200);
      expect(r.body).toEqual(fresh.body);
      const sms = await smsTo(p.phone, /./, seen);
      expect(sms.text).toMatch(/[\u0900-\u097F]/); // the owner's language, not the asker's
      expect(sms.text).toContain("/login");
      expect(sms.text).not.toMatch(/\b\d{6}\b/);
      expect(sms.parts).toBeLessThanOrEqual(2);
    }
    // A guessed code for the taken number reads exactly like a wrong code for a new one.
    const other = newNumber();
    expect((await api.post("/auth/send-otp", { phone: other })).status).toBe(200);
    const base = {
      accountType: "Patient" as const,
      firstName: "Guess",
      lastName: "Work",
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: "123456",
    };
    const onNew = await api.post("/auth/signup", { ...base, phone: other });
    const onTaken = await api.post("/auth/signup", { ...base, phone: p.phone });
    expect(onNew.status).toBe(400);
    expect(onTaken.status).toBe(400);
    expect(onTaken.body).toEqual(onNew.body);
    // The signup screen too: the same next step as for a new number.
    const b = new Browserish(server.url);
    const res = await b.post("/signup", {
      accountType: "Patient",
      signupWith: "phone",
      firstName: "Meena",
      lastName: "K",
      mobileCountryCode: "+91",
      mobileNumber: p.national,
      password: strongPassword,
      confirmPassword: strongPassword,
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/verify-email");
  });
});

describe("the screens", () => {
  it("signs a patient up with a mobile number (no e-mail), then logs in with it and a password", async () => {
    const b = new Browserish(server.url);
    const page = await (await b.fetch("/signup")).text();
    expect(page).toContain('name="signupWith"');
    expect(page).toContain('name="mobileNumber"');
    // The dial codes follow SMS_COUNTRIES (default IN), not every country's.
    expect(page).toMatch(/<option value="\+91"[^>]*>/);
    expect(page).not.toMatch(/<option value="\+880"[^>]*>/);
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
    expect(withoutPageStrings(html)).not.toContain("Please enter your mobile number");
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
    expect(
      (await api.raw("PUT", "/profile/update-notifications", { notify: "pigeon" }, expert.token)).status,
    ).toBe(400);

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
