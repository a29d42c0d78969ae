import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * Rate limits as a stranger sees them, over HTTP, against our server with 2 worker processes:
 * several clients (source addresses in 127.0.0.0/8), spoofed X-Forwarded-For, screens and API.
 * Counts are exact although requests land on either worker: the budget lives in the database.
 */
const ADMIN = { email: "admin@limits.test", password: "Admin-pass-123" };

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    WEB_CONCURRENCY: "2",
    // The default mail budget per address is a coarse 200 an hour; these tests count 30.
    RATE_LIMITS: JSON.stringify({ mail: { address: { points: 30, duration: 3600 } } }),
  });
}, 150_000);
afterAll(async () => {
  await server?.stop();
});

const json = (r: { body: Buffer }) => JSON.parse(r.body.toString());

function sendOtp(email: string, localAddress: string, headers: Record<string, string> = {}) {
  return raw(`${server.url}/api/v1/auth/send-otp`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email, checkUserPresent: true }),
    localAddress,
  });
}

function apiLogin(password: string, localAddress: string) {
  return raw(`${server.url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: ADMIN.email, password }),
    localAddress,
  });
}

const randomIp = () => Array.from({ length: 4 }, () => 1 + Math.floor(Math.random() * 250)).join(".");

describe("rate limits over HTTP, 2 workers", () => {
  it("one address's mail budget is counted across both workers; a spoofed X-Forwarded-For does not lift it; other addresses are untouched", async () => {
    for (let i = 0; i < 30; i++) {
      const r = await sendOtp(`spam${i}@example.test`, "127.0.0.41", { "x-forwarded-for": randomIp() });
      expect(r.status).toBe(200);
    }
    const refused = await sendOtp("spam30@example.test", "127.0.0.41", { "x-forwarded-for": randomIp() });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(json(refused)).toMatchObject({ success: false });
    // A clinic next door (another address) signs up as usual.
    expect((await sendOtp("neighbour@example.test", "127.0.0.42")).status).toBe(200);
  });

  it("an account's mail budget holds whichever address asks (no mail bombing of one inbox)", async () => {
    for (let i = 0; i < 5; i++)
      expect((await sendOtp("victim@example.test", `127.0.1.${i + 1}`)).status).toBe(200);
    expect((await sendOtp("victim@example.test", "127.0.1.99")).status).toBe(429);
  });

  it("wrong passwords slow down the guessing address, never the owner arriving from elsewhere", async () => {
    const guesses: number[] = [];
    const guess = async () => {
      guesses.push((await apiLogin(`wrong-guess-${guesses.length}`, "127.0.2.1")).status);
      return guesses.at(-1);
    };
    for (let i = 0; i < 5; i++) await guess();
    expect(guesses).toEqual([401, 401, 401, 401, 401]);
    // Past the free failures each wrong guess taken starts a longer wait (1 s, 2 s, 4 s…), and a try
    // during a wait is refused. Guessing goes on until one was refused and then one taken again: that
    // one started a wait of 2 s or more, in which the right password is refused too (however slowly
    // a loaded machine checks each guess).
    let refused = false;
    for (let i = 0; i < 60; i++) {
      const status = await guess();
      if (status === 429) refused = true;
      else if (refused) break;
      if (status === 429) await new Promise((r) => setTimeout(r, 200));
    }
    expect(guesses).toContain(429);
    expect(guesses.at(-1)).toBe(401);
    const late = await apiLogin(ADMIN.password, "127.0.2.1");
    expect(late.status).toBe(429); // even the right password waits on the guessing address
    expect(Number(late.headers["retry-after"])).toBeGreaterThan(0);
    // The admin, from their own address, gets in at once.
    const owner = await apiLogin(ADMIN.password, "127.0.2.2");
    expect(owner.status).toBe(200);
    expect(json(owner).token).toBeTruthy();
  });

  it("a screen answers 429 with Retry-After and the translated message", async () => {
    const post = (localAddress: string, lang = "en", email = "someone@example.test") =>
      raw(`${server.url}/forgot-password`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: server.url,
          cookie: `lng=${lang}`,
          "accept-language": lang,
        },
        body: "email=" + encodeURIComponent(email),
        localAddress,
      });
    let last = await post("127.0.3.1");
    for (let i = 0; i < 40 && last.status !== 429; i++) last = await post("127.0.3.1");
    expect(last.status).toBe(429);
    expect(Number(last.headers["retry-after"])).toBeGreaterThan(0);
    expect(last.body.toString()).toMatch(/Too many attempts\. Please wait \d+ seconds and try again\./);
    const hindi = await post("127.0.3.1", "hi");
    expect(hindi.status).toBe(429);
    expect(hindi.body.toString()).not.toMatch(/Too many attempts/);
    // Another address asking for another account is not affected.
    expect((await post("127.0.3.2", "en", "other@example.test")).status).toBe(200);
  });
});

describe("many people behind one address; RATE_LIMITS", () => {
  it("a bad RATE_LIMITS stops the server with a message naming it", async () => {
    for (const bad of ['{"upload":', '{"uplaod":{"address":{"points":600,"duration":3600}}}']) {
      const err = await startServer({ RATE_LIMITS: bad }).then(
        async (s) => {
          await s.stop();
          return "";
        },
        (e: Error) => e.message,
      );
      expect(err, bad).toMatch(/RATE_LIMITS/);
    }
  });

  it("40 accounts sign up and upload from one address (a health camp); one account is still limited, as RATE_LIMITS says", async () => {
    const smtp = await startSmtp();
    const camp = await startServer({
      SMTP_URL: smtp.url,
      RATE_LIMITS: JSON.stringify({ upload: { account: { points: 3, duration: 3600 } } }),
    });
    try {
      const api = apiClient(camp.url);
      const upload = (token: string) =>
        api.call(
          "POST",
          "/report/upload-report",
          uploadForm(
            { reportType: "Blood Test", phoneNumber: "9876543210", countryCode: "+91" },
            { name: "r.pdf", data: samplePdf(), type: "application/pdf" },
          ),
          token,
        );
      // Every request comes from 127.0.0.1: signups (mail codes, code checks, logins) and uploads.
      const tokens: string[] = [];
      for (let i = 0; i < 40; i++) {
        const { token } = await signupViaApi(api, smtp, codeFrom, { email: `camp${i}@clinic.test` });
        tokens.push(token);
      }
      for (const [i, token] of tokens.entries())
        expect((await upload(token)).status, `patient ${i}`).toBe(201);
      // The per-account budget, set to 3 an hour by RATE_LIMITS (default 30), still holds.
      expect((await upload(tokens[0])).status).toBe(201);
      expect((await upload(tokens[0])).status).toBe(201);
      const over = await upload(tokens[0]);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect((await upload(tokens[1])).status).toBe(201);
    } finally {
      await camp.stop();
      await smtp.close();
    }
  }, 180_000);

  it("a health worker at a camp: registrations have their own budget (refused answers do not count), apart from uploads", async () => {
    const smtp = await startSmtp();
    const camp = await startServer({
      SMTP_URL: smtp.url,
      RATE_LIMITS: JSON.stringify({
        upload: { account: { points: 2, duration: 3600 } },
        registration: { account: { points: 3, duration: 86400 } },
      }),
    });
    const db = await openTestDb(camp.dataDir, { write: true });
    try {
      const api = apiClient(camp.url);
      const { token, user } = await signupViaApi(api, smtp, codeFrom, { email: "cho@camp.test" });
      const now = db.time(Date.now());
      await db.run(
        "INSERT INTO centres (id, name, kind, district, state, pin_code, created_at, updated_at) VALUES ('c00000000000000000000c4p', 'Camp', 'hwc', 'Sitapur', 'Uttar Pradesh', '261001', ?, ?)",
        now,
        now,
      );
      await db.run("DELETE FROM patients WHERE id = ?", user._id);
      await db.run(
        `UPDATE users SET account_type = 'HealthWorker', approved = ${db.kind === "sqlite" ? 1 : true} WHERE id = ?`,
        user._id,
      );
      await db.run(
        "INSERT INTO health_workers (user_id, centre_id, role, worker_id, updated_at) VALUES (?, 'c00000000000000000000c4p', 'cho', 'CHO-1', ?)",
        user._id,
        now,
      );
      const person = {
        firstName: "Kamla",
        lastName: "Devi",
        sex: "female",
        age: "72",
        locality: "Rampur",
        preferredLanguage: "hi",
      };
      const register = (fields: Record<string, string>) =>
        api.call(
          "POST",
          "/centre/patients",
          uploadForm({ ...person, phoneOwner: "none", consentMethod: "verbal", ...fields }) as never,
          token,
        );
      const upload = (patientId: string) =>
        api.call(
          "POST",
          "/report/upload-report",
          uploadForm(
            {
              reportType: "Blood Test",
              phoneNumber: "9876543210",
              countryCode: "+91",
              consent: "on",
              patientId,
            },
            { name: "r.pdf", data: samplePdf(), type: "application/pdf" },
          ),
          token,
        );
      // Refusals (a patient who said no, answers that fail their checks) cost the worker nothing.
      for (let i = 0; i < 4; i++) {
        expect((await register({ consent: "refused" })).status).toBe(400);
        expect((await register({ consent: "granted", age: "abc" })).status).toBe(400);
      }
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await register({ consent: "granted" });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        ids.push(r.body.data._id);
      }
      const over = await register({ consent: "granted" });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
      // Registering spent nothing of the upload budget, and uploading spends nothing of registration's.
      expect((await upload(ids[0])).status).toBe(201);
      expect((await upload(ids[1])).status).toBe(201);
      expect((await upload(ids[2])).status).toBe(429);
    } finally {
      await db.close();
      await camp.stop();
      await smtp.close();
    }
  }, 120_000);
});
