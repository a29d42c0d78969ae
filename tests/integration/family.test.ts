import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Family under one phone over HTTP against the built app: the family API and screen (adding a
 * member with the consent their age needs), a manager reaching a member's reports, and taking a
 * profile over — started by the manager or the centre's health worker, completed signed out on the
 * screen (no JavaScript) or the API — with every role the endpoints meet: a stranger, another
 * patient, an expert, an admin, health workers of the centre and of another, an unapproved one,
 * and a manager whose access the person ended. SMS go to the server's outbox (data/sms-outbox).
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const browsers: Record<string, Browserish> = {};
const year = new Date().getUTCFullYear();
const NEW_PASSWORD = "Own-login-2026-x";

/** A unique Indian mobile number (10 digits) and its E.164 form. */
function mobile() {
  const national = `98${String(randomBytes(4).readUInt32BE(0) % 100_000_000).padStart(8, "0")}`;
  return { national, e164: `+91${national}` };
}

const hex24 = () => randomBytes(12).toString("hex");
const sqlTrue = () => (db.kind === "postgres" ? "true" : "1");

/** The take-over SMS the server texted to `e164`, oldest first (its SMS outbox, as without SMS_URL). */
function takeOverSms(e164: string): { text: string }[] {
  const dir = path.join(server.dataDir, "sms-outbox");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((f) => {
      try {
        return JSON.parse(readFileSync(path.join(dir, f), "utf8"));
      } catch {
        return {}; // being written this moment: read on the next look
      }
    })
    .filter((m) => m.to === e164 && m.purpose === "takeover-code");
}

/** The code of the take-over SMS to `e164` after the first `after` ones (waits for the sender). */
async function takeOverCode(e164: string, after = 0, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hits = takeOverSms(e164);
    if (hits.length > after) return /\b(\d{6})\b/.exec(hits[after].text)![1];
    if (Date.now() > deadline) throw new Error(`no take-over SMS to ${e164}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function signUp(role: string, type: "Patient" | "Expert" = "Patient", firstName = "Test") {
  const email = `${role.toLowerCase()}-${hex24().slice(0, 6)}@family.test`;
  const r = await signupViaApi(api, smtp, codeFrom, { email, accountType: type, firstName });
  tok[role] = r.token;
  ids[role] = r.user._id;
  const b = new Browserish(server.url);
  const res = await b.post("/login", { email, password: strongPassword });
  expect(res.status, `login ${role}`).toBe(302);
  browsers[role] = b;
}

/** Turns a signed-up account into a health worker of `centreId` (what the centre signup makes). */
async function makeHealthWorker(role: string, centreId: string, approved: boolean) {
  await signUp(role);
  await db.run(
    `UPDATE users SET account_type = 'HealthWorker', approved = ${approved ? sqlTrue() : db.kind === "postgres" ? "false" : "0"} WHERE id = ?`,
    ids[role],
  );
  await db.run("DELETE FROM patients WHERE id = ?", ids[role]);
  await db.run(
    "INSERT INTO health_workers (user_id, centre_id, role) VALUES (?, ?, 'asha')",
    ids[role],
    centreId,
  );
}

const adult = (over: Record<string, unknown> = {}) => ({
  firstName: "Meena",
  lastName: "Kumari",
  sex: "female" as const,
  birthYear: year - 24,
  relationship: "daughter" as const,
  preferredLanguage: "hi" as const,
  memberConsent: true,
  ...over,
});

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    SMS_URL: "",
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@family.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
  await signUp("father", "Patient", "Ramesh");
  await signUp("other");
  await signUp("expert", "Expert");
  tok.admin = (
    await api.post("/auth/login", { email: "admin@family.test", password: "Admin-pass-123" })
  ).body.token;
  await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin);
  // Two centres, a health worker at each, one not approved yet; a patient registered at the first.
  ids.centre = hex24();
  ids.otherCentre = hex24();
  for (const [id, name] of [
    [ids.centre, "HWC Rampur"],
    [ids.otherCentre, "PHC Sitapur"],
  ])
    await db.run("INSERT INTO centres (id, name, kind) VALUES (?, ?, 'hwc')", id, name);
  await makeHealthWorker("worker", ids.centre, true);
  await makeHealthWorker("otherWorker", ids.otherCentre, true);
  await makeHealthWorker("unapprovedWorker", ids.centre, false);
  ids.centrePatient = hex24();
  await db.run(
    "INSERT INTO patients (id, first_name, last_name, birth_year, centre_id, registered_by, locale) VALUES (?, 'Kamla', 'Devi', ?, ?, ?, 'hi')",
    ids.centrePatient,
    year - 67,
    ids.centre,
    ids.worker,
  );
}, 180_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe("family members (API)", () => {
  it("a patient adds an adult daughter and a child; the list holds their own profile first", async () => {
    const res = await api.post("/family/members", adult(), tok.father);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      firstName: "Meena",
      relationship: "daughter",
      canTakeOver: true,
      self: false,
    });
    expect(res.body.data.shortId).toMatch(/^CB-[0-9A-Z]{4}-[0-9A-Z]{2}$/);
    ids.daughter = res.body.data._id;
    const kid = await api.post(
      "/family/members",
      {
        firstName: "Raju",
        sex: "male",
        age: 9,
        relationship: "son",
        preferredLanguage: "hi",
        guardianConsent: true,
      },
      tok.father,
    );
    expect(kid.status).toBe(201);
    expect(kid.body.data).toMatchObject({ minor: true, canTakeOver: false, birthYearEstimated: true });
    ids.son = kid.body.data._id;
    const list = await api.get("/family/members", tok.father);
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { _id: string }) => m._id)).toEqual([ids.father, ids.daughter, ids.son]);
    const consent = await db.get("SELECT kind, method FROM patient_consents WHERE patient_id = ?", ids.son);
    expect(consent).toMatchObject({ kind: "guardian", method: "online" });
  });

  it("no consent, bad bodies and the wrong accounts are refused", async () => {
    const noConsent = await api.post("/family/members", adult({ memberConsent: false }), tok.father);
    expect(noConsent.status).toBe(400);
    expect(noConsent.body.errors).toHaveProperty("memberConsent");
    const child = await api.raw(
      "POST",
      "/family/members",
      { firstName: "Chhotu", sex: "male", age: 4, relationship: "son", preferredLanguage: "hi" },
      tok.father,
    );
    expect(child.status).toBe(400);
    expect(child.body.errors).toHaveProperty("guardianConsent");
    for (const body of [
      { ...adult(), age: "nine" },
      { ...adult(), memberConsent: "yes" },
      { ...adult(), surprise: 1 },
      "not json",
      "[]",
    ]) {
      const r = await api.raw("POST", "/family/members", body, tok.father);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.success).toBe(false);
    }
    expect((await api.raw("POST", "/family/members", adult())).status).toBe(401);
    expect((await api.raw("GET", "/family/members")).status).toBe(401);
    for (const role of ["expert", "admin", "worker"]) {
      expect((await api.raw("GET", "/family/members", undefined, tok[role])).status, role).toBe(403);
      expect((await api.raw("POST", "/family/members", adult(), tok[role])).status, role).toBe(403);
    }
    expect((await api.raw("PUT", "/family/members", adult(), tok.father)).status).toBe(405);
  });

  it("the manager reaches the member's reports; another patient, an expert and a health worker do not", async () => {
    expect((await api.get(`/report/get-report-by-patientId/${ids.daughter}`, tok.father)).status).toBe(200);
    for (const role of ["other", "expert", "worker"])
      expect((await api.get(`/report/get-report-by-patientId/${ids.daughter}`, tok[role])).status, role).toBe(
        403,
      );
    expect((await api.get(`/report/get-report-by-patientId/${ids.daughter}`, tok.admin)).status).toBe(200);
  });
});

describe("family screen and whose reports (no JavaScript)", () => {
  it("adds a member with a plain form post; a missing consent keeps every field and says why", async () => {
    const b = browsers.father;
    const fields = {
      firstName: "Lakshmi",
      lastName: "Bai",
      sex: "female",
      birthYear: String(year - 70),
      age: "",
      relationship: "mother",
      preferredLanguage: "ta",
    };
    const refused = await b.post("/dashboard/family", fields);
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(pageText(html)).toContain("An adult must agree first");
    expect(html).toContain('value="Lakshmi"');
    const ok = await b.post("/dashboard/family", { ...fields, memberConsent: "on" });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("Location")).toBe("/dashboard/family");
    const page = pageText(await (await b.fetch("/dashboard/family")).text());
    expect(page).toContain("Lakshmi Bai");
    expect(page).toMatch(/CB-[0-9A-Z]{4}-[0-9A-Z]{2}/);
  });

  it("is for patient accounts; the switcher links every profile on the report list", async () => {
    expect((await browsers.expert.fetch("/dashboard/family")).status).toBe(403);
    expect((await browsers.worker.fetch("/dashboard/family")).status).toBe(403);
    const anon = await new Browserish(server.url).fetch("/dashboard/family");
    expect(anon.status).toBe(302);
    expect(anon.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);

    const res = await browsers.father.fetch(`/dashboard/previous-report/${ids.daughter}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('data-testid="whose-reports"');
    for (const id of [ids.father, ids.daughter, ids.son])
      expect(html).toContain(`/dashboard/previous-report/${id}`);
    // Another patient is told it is not theirs.
    expect((await browsers.other.fetch(`/dashboard/previous-report/${ids.daughter}`)).status).toBe(403);
    // The share screen of one of his own reports offers the switcher too.
    const up = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm({ reportType: "ECG", phoneNumber: "9876543210" }, { name: "a.pdf", data: samplePdf() }),
      tok.father,
    );
    expect(up.status).toBe(201);
    const share = await (await browsers.father.fetch(`/dashboard/share/${up.body.data._id}`)).text();
    expect(share).toContain('data-testid="whose-reports"');
    expect(share).toContain(`/dashboard/previous-report/${ids.daughter}`);
    // The data download offers each profile.
    const myData = await (await browsers.father.fetch("/dashboard/my-data")).text();
    expect(myData).toContain(`/dashboard/my-data/download?patientId=${ids.daughter}`);
  });
});

describe("taking a profile over", () => {
  it("starting it: only the manager or the centre's approved health worker; never for a minor or a taken number", async () => {
    const path = `/family/members/${ids.daughter}/take-over` as const;
    const body = { phone: mobile().national };
    expect((await api.raw("POST", path, body)).status).toBe(401);
    for (const role of ["other", "expert", "admin", "worker", "otherWorker", "unapprovedWorker"])
      expect((await api.raw("POST", path, body, tok[role])).status, role).toBe(403);
    expect(
      (await api.raw("POST", `/family/members/${ids.son}/take-over`, body, tok.father)).body,
    ).toMatchObject({
      success: false,
    });
    expect((await api.raw("POST", `/family/members/${ids.son}/take-over`, body, tok.father)).status).toBe(
      400,
    );
    // A number that is already someone's login: refused, and no code goes to it.
    const taken = mobile();
    await db.run("UPDATE users SET phone = ? WHERE id = ?", taken.e164, ids.other);
    const refused = await api.raw("POST", path, { phone: taken.national }, tok.father);
    await db.run("UPDATE users SET phone = NULL WHERE id = ?", ids.other);
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toHaveProperty("phone");
    expect(takeOverSms(taken.e164)).toHaveLength(0);
    for (const bad of [{}, { phone: "12" }, { phone: 9876543210 }, { phone: "9876543210", extra: true }])
      expect((await api.raw("POST", path, bad, tok.father)).status, JSON.stringify(bad)).toBe(400);
    // Unknown profile: the same refusal as someone else's.
    expect((await api.raw("POST", `/family/members/${hex24()}/take-over`, body, tok.father)).status).toBe(
      403,
    );
    // The screen: the manager sees it; a stranger gets the not-found page.
    expect((await browsers.father.fetch(`/dashboard/family/${ids.daughter}/take-over`)).status).toBe(200);
    expect((await browsers.other.fetch(`/dashboard/family/${ids.daughter}/take-over`)).status).toBe(404);
    const minor = pageText(
      await (await browsers.father.fetch(`/dashboard/family/${ids.son}/take-over`)).text(),
    );
    expect(minor).toContain("Only someone 18 or older");
  });

  it("the daughter completes it on the screen without JavaScript and ends her father's access at once", async () => {
    const own = mobile();
    const start = await browsers.father.post(`/dashboard/family/${ids.daughter}/take-over`, {
      phone: own.national,
    });
    expect(start.status).toBe(302);
    expect(start.headers.get("Location")).toMatch(/\/take-over\?sent=/);
    const code = await takeOverCode(own.e164);
    const phone = new Browserish(server.url);
    expect((await phone.fetch("/take-over")).status).toBe(200);
    const form = {
      phone: own.national,
      code: code === "000000" ? "111111" : "000000",
      password: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
      keepAccess: "false",
    };
    const wrong = await phone.post("/take-over", form);
    expect(wrong.status).toBe(400);
    expect(pageText(await wrong.text())).toMatch(/code/i);
    // The code in the six boxes, as a browser without JavaScript sends it.
    const { code: _wrong, ...rest } = form;
    const boxes = Object.fromEntries([...code].map((c, i) => [`d${i + 1}`, c]));
    const done = await phone.post("/take-over", { ...rest, ...boxes });
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/login");

    const login = await api.post("/auth/login", { phone: own.e164, password: NEW_PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body.user._id).toBe(ids.daughter);
    expect((await api.get(`/report/get-report-by-patientId/${ids.daughter}`, login.body.token)).status).toBe(
      200,
    );
    // The father: refused at once, on the API and the screen; she is no longer in his family.
    expect((await api.get(`/report/get-report-by-patientId/${ids.daughter}`, tok.father)).status).toBe(403);
    expect((await browsers.father.fetch(`/dashboard/previous-report/${ids.daughter}`)).status).toBe(403);
    const list = await api.get("/family/members", tok.father);
    expect(list.body.data.map((m: { _id: string }) => m._id)).not.toContain(ids.daughter);
    // A revoked manager cannot start anything for her any more.
    expect(
      (
        await api.raw(
          "POST",
          `/family/members/${ids.daughter}/take-over`,
          { phone: mobile().national },
          tok.father,
        )
      ).status,
    ).toBe(403);
    const row = await db.get("SELECT account_id, taken_over_at FROM patients WHERE id = ?", ids.daughter);
    expect(row?.account_id).toBe(ids.daughter);
    expect(row?.taken_over_at).toBeTruthy();
  });

  it("a centre's patient takes over through the API; wrong, expired and taken are refused; the centre may keep access", async () => {
    // The start screen is the centre's too; a health worker of another centre gets the not-found page.
    expect((await browsers.worker.fetch(`/dashboard/family/${ids.centrePatient}/take-over`)).status).toBe(
      200,
    );
    for (const role of ["otherWorker", "unapprovedWorker"])
      expect(
        (await browsers[role].fetch(`/dashboard/family/${ids.centrePatient}/take-over`)).status,
        role,
      ).toBe(404);
    const own = mobile();
    const start = await api.post(
      `/family/members/${ids.centrePatient}/take-over`,
      { phone: own.e164 },
      tok.worker,
    );
    expect(start.status).toBe(200);
    expect(start.body.data.phone).toMatch(/^\+91\*+\d{4}$/);
    const code = await takeOverCode(own.e164);
    const body = {
      phone: own.e164,
      code,
      password: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
      keepAccess: true,
    };

    for (const bad of [
      { ...body, keepAccess: "yes" },
      { ...body, confirmPassword: "other-pass-2026" },
      { phone: own.e164 },
    ])
      expect((await api.raw("POST", "/take-over", bad)).status).toBe(400);
    const wrong = await api.post("/take-over", { ...body, code: code === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toHaveProperty("code");

    // Expired: the code's ten minutes are over.
    await db.run(
      "UPDATE verification_codes SET expires_at = ? WHERE phone = ? AND purpose = 'takeover'",
      db.time(Date.now() - 1000),
      own.e164,
    );
    expect((await api.post("/take-over", body)).status).toBe(400);

    // A fresh code; then the number gets an account before it is used.
    const other = mobile();
    await api.post(`/family/members/${ids.centrePatient}/take-over`, { phone: other.e164 }, tok.worker);
    const code2 = await takeOverCode(other.e164);
    await db.run("UPDATE users SET phone = ? WHERE id = ?", other.e164, ids.other);
    const taken = await api.post("/take-over", { ...body, phone: other.e164, code: code2 });
    expect(taken.status).toBe(409);
    await db.run("UPDATE users SET phone = NULL WHERE id = ?", ids.other);

    const before = takeOverSms(own.e164).length;
    await api.post(`/family/members/${ids.centrePatient}/take-over`, { phone: own.e164 }, tok.worker);
    const ok = await api.post("/take-over", { ...body, code: await takeOverCode(own.e164, before) });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ _id: ids.centrePatient, phone: own.e164, accountType: "Patient" });
    // She let the centre keep helping her.
    expect((await api.get(`/report/get-report-by-patientId/${ids.centrePatient}`, tok.worker)).status).toBe(
      200,
    );
    expect(
      (await api.get(`/report/get-report-by-patientId/${ids.centrePatient}`, tok.otherWorker)).status,
    ).toBe(403);
    // Taken over once only.
    expect(
      (
        await api.raw(
          "POST",
          `/family/members/${ids.centrePatient}/take-over`,
          { phone: mobile().e164 },
          tok.worker,
        )
      ).status,
    ).toBe(409);
  });
});
