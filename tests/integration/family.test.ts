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

/** The SMS of `purpose` the server texted to `e164`, oldest first (its SMS outbox, as without SMS_URL). */
function smsTo(e164: string, purpose = "takeover-code"): { text: string }[] {
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
    .filter((m) => m.to === e164 && m.purpose === purpose);
}
const takeOverSms = (e164: string) => smsTo(e164);

/** The "this was not me" link's token in the notice SMS to `e164` (waits for the sender). */
async function notMeToken(e164: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = smsTo(e164, "notice").find((m) => /\/take-over\/not-me\//.test(m.text));
    if (hit) return /\/take-over\/not-me\/([A-Za-z0-9_-]+)/.exec(hit.text)![1];
    if (Date.now() > deadline) throw new Error(`no take-over notice to ${e164}`);
    await new Promise((r) => setTimeout(r, 50));
  }
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

const emails: Record<string, string> = {};

async function signUp(role: string, type: "Patient" | "Expert" = "Patient", firstName = "Test") {
  const email = `${role.toLowerCase()}-${hex24().slice(0, 6)}@family.test`;
  emails[role] = email;
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
  await db.run("UPDATE patients SET short_id = 'CB-KAM7-A2' WHERE id = ?", ids.centrePatient);
}, 180_000);

/** What only the person holds (decision 0055): the slip's short ID and the year of birth. */
const proof: Record<string, { shortId: string; birthYear: number }> = {};

/** A centre's patient's proof (decision 0073): the take-over code on a slip printed by `by`. */
async function slipOf(patientId: string, by = "worker"): Promise<string> {
  const res = await api.raw("POST", `/centre/patients/${patientId}/slip`, undefined, tok[by]);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.slipCode as string;
}

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
    proof.daughter = { shortId: res.body.data.shortId, birthYear: year - 24 };
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
    const body = { phone: mobile().national, ...proof.daughter };
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
    const refused = await api.raw("POST", path, { phone: taken.national, ...proof.daughter }, tok.father);
    await db.run("UPDATE users SET phone = NULL WHERE id = ?", ids.other);
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toHaveProperty("phone");
    expect(takeOverSms(taken.e164)).toHaveLength(0);
    for (const bad of [
      {},
      { ...proof.daughter, phone: "12" },
      { ...proof.daughter, phone: 9876543210 },
      { ...proof.daughter, phone: "9876543210", extra: true },
    ])
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
    // Before: her father uploaded a report for her (review consent given by him, for her).
    const up = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "ECG", phoneNumber: "9876543210", patientId: ids.daughter },
        { name: "d.pdf", data: samplePdf() },
      ),
      tok.father,
    );
    expect(up.status).toBe(201);
    const start = await browsers.father.post(`/dashboard/family/${ids.daughter}/take-over`, {
      phone: own.national,
      shortId: proof.daughter.shortId,
      birthYear: String(proof.daughter.birthYear),
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
    // The code's field error says how many tries are left: no placeholder reaches her (decision 0059).
    const wrongText = pageText(await wrong.text());
    expect(wrongText).toMatch(/code/i);
    expect(wrongText).toContain("4 tries left");
    expect(wrongText).not.toMatch(/\{\{\s*\w+\s*\}\}/);
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

    // Her father heard at once, with a "this was not me" link (decision 0055).
    const notice = await smtp.waitFor(emails.father, /not-me/);
    expect(notice.raw).toMatch(/\/take-over\/not-me\/[A-Za-z0-9_-]{16,}/);

    // My data says who gave review consent for the report he uploaded, and when (decision 0055).
    const her = new Browserish(server.url);
    expect((await her.post("/login", { email: own.e164, password: NEW_PASSWORD })).status).toBe(302);
    const myData = pageText(await (await her.fetch("/dashboard/my-data")).text());
    // (Her language is Hindi: "given … (by Ramesh User, who uploaded a report for you)".)
    expect(myData).toContain("(Ramesh User द्वारा, जिन्होंने आपके लिए रिपोर्ट अपलोड की)");

    // For 72 hours she deletes nothing, on the API and the screen: a clear 403, the report kept.
    const reportId = up.body.data._id as string;
    const del = await api.raw("DELETE", "/report/delete-report", { reportId }, login.body.token);
    expect(del.status).toBe(403);
    expect(del.body.message).toMatch(/taken over recently.*\d+ hours/);
    const screenDel = await her.post(`/dashboard/previous-report/${ids.daughter}`, {
      intent: "delete",
      reportId,
    });
    expect(screenDel.status).toBeLessThan(500);
    // (In her language: "This profile was taken over recently: reports can be deleted in 72 hours …".)
    expect(pageText(await (await her.fetch(`/dashboard/previous-report/${ids.daughter}`)).text())).toContain(
      "यह प्रोफ़ाइल हाल ही में ली गई है: रिपोर्ट 72 घंटे बाद",
    );
    // Nor by withdrawing review consent (which deletes waiting reports).
    const withdraw = await api.raw(
      "POST",
      "/rights/consents",
      { purpose: "review", granted: false },
      login.body.token,
    );
    expect(withdraw.status).toBe(403);
    expect(await db.get("SELECT id FROM reports WHERE id = ?", reportId)).toBeTruthy();
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
    const slip = { slipCode: (await slipOf(ids.centrePatient)).toLowerCase() };
    const start = await api.post(
      `/family/members/${ids.centrePatient}/take-over`,
      { phone: own.e164, ...slip },
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
    expect(wrong.body.errors.code[0]).toMatch(/\d tries left/);
    expect(JSON.stringify(wrong.body)).not.toMatch(/\{\{\s*\w+\s*\}\}/);

    // Expired: the code's ten minutes are over.
    await db.run(
      "UPDATE verification_codes SET expires_at = ? WHERE phone = ? AND purpose = 'takeover'",
      db.time(Date.now() - 1000),
      own.e164,
    );
    expect((await api.post("/take-over", body)).status).toBe(400);

    // A fresh code; then the number gets an account before it is used.
    const other = mobile();
    await api.post(
      `/family/members/${ids.centrePatient}/take-over`,
      { phone: other.e164, ...slip },
      tok.worker,
    );
    const code2 = await takeOverCode(other.e164);
    await db.run("UPDATE users SET phone = ? WHERE id = ?", other.e164, ids.other);
    const taken = await api.post("/take-over", { ...body, phone: other.e164, code: code2 });
    expect(taken.status).toBe(409);
    await db.run("UPDATE users SET phone = NULL WHERE id = ?", ids.other);

    const before = takeOverSms(own.e164).length;
    await api.post(
      `/family/members/${ids.centrePatient}/take-over`,
      { phone: own.e164, ...slip },
      tok.worker,
    );
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
          { phone: mobile().e164, ...slip },
          tok.worker,
        )
      ).status,
    ).toBe(409);
  });
});

describe("a take-over proves the person is the patient (decision 0055)", () => {
  /** A centre patient inserted as registration makes one: a slip ID, a year of birth, maybe a phone. */
  async function centrePatient(
    shortId: string,
    phone: { e164: string; owner: "self" | "family" } | null = null,
  ): Promise<string> {
    const id = hex24();
    await db.run(
      "INSERT INTO patients (id, first_name, last_name, birth_year, centre_id, registered_by, locale, short_id, phone, phone_owner) VALUES (?, 'Sita', 'Bai', ?, ?, ?, 'en', ?, ?, ?)",
      id,
      year - 40,
      ids.centre,
      ids.worker,
      shortId,
      phone?.e164 ?? null,
      phone?.owner ?? "none",
    );
    return id;
  }
  const completeBody = (phone: string, code: string, keepAccess = false) => ({
    phone,
    code,
    password: NEW_PASSWORD,
    confirmPassword: NEW_PASSWORD,
    keepAccess,
  });
  /** A report of the profile (as a centre upload leaves it), for the deletion checks. */
  async function reportOf(patientId: string): Promise<string> {
    const id = hex24();
    await db.run(
      "INSERT INTO reports (id, patient_id, report_type, phone_number, file_key, file_name, mime_type, size, consent_at, centre_id) VALUES (?, ?, 'ECG', '9876543210', ?, 'x.pdf', 'application/pdf', 10, ?, ?)",
      id,
      patientId,
      `missing/${id}`,
      db.time(Date.now()),
      ids.centre,
    );
    return id;
  }

  it("a worker cannot send the code to their own number when the patient has hers: it goes only to her phone", async () => {
    const hers = mobile();
    const workerPhone = mobile();
    const id = await centrePatient("CB-SEQ1-F2", { e164: hers.e164, owner: "self" });
    const path = `/family/members/${id}/take-over`;
    const hijack = await api.raw("POST", path, { phone: workerPhone.national }, tok.worker);
    expect(hijack.status).toBe(400);
    expect(hijack.body.errors.phone[0]).toMatch(/own number/);
    expect(takeOverSms(workerPhone.e164)).toHaveLength(0);
    // The screen offers no number field: it says where the code goes.
    const screen = await (await browsers.worker.fetch(`/dashboard/family/${id}/take-over`)).text();
    expect(screen).toContain('data-testid="take-over-own-number"');
    expect(screen).not.toContain('name="phone"');
    // Without a number, the code goes to hers.
    const ok = await api.raw("POST", path, {}, tok.worker);
    expect(ok.status).toBe(200);
    expect(ok.body.data.toOwnNumber).toBe(true);
    expect(await takeOverCode(hers.e164)).toMatch(/^\d{6}$/);
  });

  it("without her own number: no code without the slip's take-over code; wrong ones are limited", async () => {
    const id = await centrePatient("CB-S71P-Q2");
    const path = `/family/members/${id}/take-over`;
    const workerPhone = mobile();
    // No slip printed yet: nothing proves her, so nothing starts.
    const noSlip = await api.raw(
      "POST",
      path,
      { phone: workerPhone.e164, slipCode: "7K4M-2QXA-BC" },
      tok.worker,
    );
    expect(noSlip.status).toBe(400);
    expect(noSlip.body.errors.slipCode[0]).toMatch(/No slip/);
    const slipCode = await slipOf(id);
    const none = await api.raw("POST", path, { phone: workerPhone.e164 }, tok.worker);
    expect(none.status).toBe(400);
    expect(Object.keys(none.body.errors)).toEqual(["slipCode"]);
    // The slip's ID and her year of birth, which every worker of the centre can read, prove nothing now.
    const idAndYear = await api.raw(
      "POST",
      path,
      { phone: workerPhone.e164, shortId: "CB-S71P-Q2", birthYear: year - 40 },
      tok.worker,
    );
    expect(idAndYear.status).toBe(400);
    expect(Object.keys(idAndYear.body.errors)).toEqual(["slipCode"]);
    const wrong = await api.raw(
      "POST",
      path,
      { phone: workerPhone.e164, slipCode: "0000-0000-00" },
      tok.worker,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/does not match/);
    // The screen says the same, on its field.
    const onScreen = await browsers.worker.post(`/dashboard/family/${id}/take-over`, {
      phone: workerPhone.national,
      slipCode: "0000-0000-01",
    });
    expect(onScreen.status).toBe(400);
    expect(pageText(await onScreen.text())).toContain("does not match this person's latest slip");
    for (let i = 0; i < 3; i++)
      expect(
        (await api.raw("POST", path, { phone: workerPhone.e164, slipCode: `0000-0000-1${i}` }, tok.worker))
          .status,
      ).toBe(400);
    // Five wrong tries a day: then even the right code waits (429), and no code was ever sent.
    const locked = await api.raw("POST", path, { phone: workerPhone.e164, slipCode }, tok.worker);
    expect(locked.status).toBe(429);
    expect(takeOverSms(workerPhone.e164)).toHaveLength(0);
  });

  it("a colleague who read the patient over the API cannot take her over; the slip's holder can; a new slip ends the old code", async () => {
    await makeHealthWorker("reader", ids.centre, true);
    // Registered over the API as the centre's desk does it: the answer carries no take-over code.
    const reg = await api.raw(
      "POST",
      "/centre/patients",
      uploadForm({
        firstName: "Gita",
        lastName: "Ram",
        sex: "female",
        birthYear: String(year - 50),
        locality: "Rampur",
        preferredLanguage: "hi",
        phoneOwner: "none",
        consent: "granted",
        consentMethod: "verbal",
      }),
      tok.worker,
    );
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const id = reg.body.data._id as string;
    const slipCode = await slipOf(id);
    const read = await api.get(`/centre/patients/${id}`, tok.reader);
    expect(read.status).toBe(200);
    const bare = (c: string) => c.replace(/-/g, "");
    for (const answer of [reg.body, read.body]) expect(JSON.stringify(answer)).not.toContain(bare(slipCode));
    expect(JSON.stringify(read.body)).not.toContain(slipCode);
    // The colleague tries with everything those answers gave her: refused, no code sent.
    const path = `/family/members/${id}/take-over`;
    const hers = mobile();
    const { shortId, birthYear } = read.body.data;
    for (const body of [
      { phone: hers.e164, shortId, birthYear },
      { phone: hers.e164, shortId, birthYear, slipCode: shortId },
      { phone: hers.e164, slipCode: read.body.data._id },
    ])
      expect((await api.raw("POST", path, body, tok.reader)).status).toBe(400);
    expect(takeOverSms(hers.e164)).toHaveLength(0);

    // A new slip printed: the old slip's code fails, for anyone; the printer cannot use the new one.
    const newCode = await slipOf(id, "reader");
    const old = await api.raw("POST", path, { phone: hers.e164, slipCode }, tok.worker);
    expect(old.status).toBe(400);
    expect(old.body.errors.slipCode[0]).toMatch(/does not match/);
    const own = await api.raw("POST", path, { phone: hers.e164, slipCode: newCode }, tok.reader);
    expect(own.status).toBe(403);
    expect(own.body.errors.slipCode[0]).toMatch(/You printed this slip/);
    expect(takeOverSms(hers.e164)).toHaveLength(0);
    // The slip page says when and by whom, never the code; the patient's trail lists both prints.
    const page = await (await browsers.worker.fetch(`/dashboard/centre/patients/${id}/slip`)).text();
    expect(page).not.toContain(bare(newCode).slice(0, 4) + "-" + bare(newCode).slice(4, 8));
    expect(pageText(page)).toContain("was printed on");

    // The holder of the new slip: another worker starts it with the code on it; she completes it.
    const started = await api.raw("POST", path, { phone: hers.e164, slipCode: newCode }, tok.worker);
    expect(started.status).toBe(200);
    const done = await api.raw("POST", "/take-over", completeBody(hers.e164, await takeOverCode(hers.e164)));
    expect(done.status).toBe(201);
    const trail = await api.get(
      "/profile/access-trail",
      (await api.post("/auth/login", { phone: hers.e164, password: NEW_PASSWORD })).body.token,
    );
    const texts = trail.body.data.map((e: { text: string }) => e.text).join("\n");
    expect(texts).toMatch(/Slip with a take-over code printed by/);
    expect(texts).toMatch(/New slip printed by/);
    // Its code did its one job: the profile keeps no code now.
    expect((await db.get("SELECT slip_code_hash FROM patients WHERE id = ?", id))?.slip_code_hash).toBeNull();
  });

  it("a code started by a worker who is then suspended no longer completes", async () => {
    await makeHealthWorker("worker2", ids.centre, true);
    const id = await centrePatient("CB-SXS1-P2");
    const taker = mobile();
    const start = await api.raw(
      "POST",
      `/family/members/${id}/take-over`,
      { phone: taker.e164, slipCode: await slipOf(id) },
      tok.worker2,
    );
    expect(start.status).toBe(200);
    const code = await takeOverCode(taker.e164);
    const suspend = await api.raw("PATCH", `/health-workers/${ids.worker2}`, { suspended: true }, tok.admin);
    expect(suspend.status).toBe(200);
    const done = await api.raw("POST", "/take-over", completeBody(taker.e164, code));
    expect(done.status).toBe(400);
    expect((await db.get("SELECT account_id FROM patients WHERE id = ?", id))?.account_id).toBeNull();
    // Suspended from the users list instead (no take-over hook there): the completion re-checks the starter.
    await makeHealthWorker("worker3", ids.centre, true);
    const id2 = await centrePatient("CB-SXS2-P2");
    const taker2 = mobile();
    await api.post(
      `/family/members/${id2}/take-over`,
      { phone: taker2.e164, slipCode: await slipOf(id2) },
      tok.worker3,
    );
    const code2 = await takeOverCode(taker2.e164);
    await db.run("UPDATE users SET suspended_at = ? WHERE id = ?", db.time(Date.now()), ids.worker3);
    const done2 = await api.raw("POST", "/take-over", completeBody(taker2.e164, code2));
    expect(done2.status).toBe(400);
    expect(done2.body.errors.code[0]).toMatch(/cancelled/);
  });

  it("a completed take-over is announced with a 'this was not me' link; reported, an admin undoes it within 7 days", async () => {
    const family = mobile();
    const id = await centrePatient("CB-ANN1-P2", { e164: family.e164, owner: "family" });
    const reportId = await reportOf(id);
    const taker = mobile();
    await api.post(
      `/family/members/${id}/take-over`,
      { phone: taker.e164, slipCode: await slipOf(id) },
      tok.worker,
    );
    const done = await api.post("/take-over", completeBody(taker.e164, await takeOverCode(taker.e164)));
    expect(done.status).toBe(201);
    // The number the profile had hears at once, with the link; the centre's worker too.
    const token = await notMeToken(family.e164);
    await smtp.waitFor(emails.worker, /not-me/);
    const takerToken = (await api.post("/auth/login", { phone: taker.e164, password: NEW_PASSWORD })).body
      .token as string;
    expect((await api.get(`/report/get-report-by-patientId/${id}`, tok.worker)).status).toBe(403);

    // "This was not me", on the API and the page (no sign-in); an unknown link is a 404.
    expect((await api.raw("GET", `/take-over/not-me/${"x".repeat(24)}`)).status).toBe(404);
    expect((await api.raw("GET", `/take-over/not-me/${token}`)).body.data).toMatchObject({ reported: false });
    const page = new Browserish(server.url);
    expect((await page.fetch(`/take-over/not-me/${token}`)).status).toBe(200);
    expect((await page.post(`/take-over/not-me/${token}`, {})).status).toBe(302);
    expect((await api.raw("POST", `/take-over/not-me/${token}`)).body.data).toMatchObject({ reported: true });
    // Reported: the account deletes nothing, whatever the hour.
    const del = await api.raw("DELETE", "/report/delete-report", { reportId }, takerToken);
    expect(del.status).toBe(403);
    expect(del.body.message).toMatch(/reported/);

    // The admins' list: only admins; the reported one is there.
    for (const role of ["worker", "father"])
      expect((await api.raw("GET", "/admin/take-overs", undefined, tok[role])).status, role).toBe(403);
    const list = await api.get("/admin/take-overs", tok.admin);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const row = list.body.data.find((t: { patient: { _id: string } }) => t.patient._id === id);
    expect(row).toMatchObject({ flag: "reported", canUndo: true, startedAs: "centre" });
    const admin = new Browserish(server.url);
    expect(
      (await admin.post("/login", { email: "admin@family.test", password: "Admin-pass-123" })).status,
    ).toBe(302);
    const screen = pageText(await (await admin.fetch("/dashboard/take-overs")).text());
    expect(screen).toContain("Reported: this was not them");

    // Undo: her number and the centre's access come back; the taker's login is gone.
    expect((await api.raw("POST", `/admin/take-overs/${row._id}/undo`, undefined, tok.worker)).status).toBe(
      403,
    );
    const undo = await api.raw("POST", `/admin/take-overs/${row._id}/undo`, undefined, tok.admin);
    expect(undo.status).toBe(200);
    expect(undo.body.data.undoneAt).toBeTruthy();
    const back = await db.get("SELECT account_id, phone, phone_owner FROM patients WHERE id = ?", id);
    expect(back).toMatchObject({ account_id: null, phone: family.e164, phone_owner: "family" });
    expect((await api.get(`/report/get-report-by-patientId/${id}`, tok.worker)).status).toBe(200);
    expect((await api.raw("GET", "/family/members", undefined, takerToken)).status).toBe(401);
    expect(
      (await api.raw("POST", "/auth/login", { phone: taker.e164, password: NEW_PASSWORD })).status,
    ).not.toBe(200);
    expect((await api.raw("POST", `/admin/take-overs/${row._id}/undo`, undefined, tok.admin)).status).toBe(
      409,
    );
    expect((await api.raw("GET", `/take-over/not-me/${token}`)).body.data).toMatchObject({ undone: true });
  });

  it("after 7 days an undo is refused; after 72 hours (or an admin's review) the account may delete", async () => {
    const id = await centrePatient("CB-D7D1-P2");
    const reportId = await reportOf(id);
    const reportId2 = await reportOf(id);
    const taker = mobile();
    await api.post(
      `/family/members/${id}/take-over`,
      { phone: taker.e164, slipCode: await slipOf(id) },
      tok.worker,
    );
    expect(
      (await api.post("/take-over", completeBody(taker.e164, await takeOverCode(taker.e164), true))).status,
    ).toBe(201);
    const takerToken = (await api.post("/auth/login", { phone: taker.e164, password: NEW_PASSWORD })).body
      .token as string;
    expect((await api.raw("DELETE", "/report/delete-report", { reportId }, takerToken)).status).toBe(403);
    // An admin reviewed it: she may delete at once.
    const all = await api.get("/admin/take-overs?status=all", tok.admin);
    const row = all.body.data.find((t: { patient: { _id: string } }) => t.patient._id === id);
    expect((await api.raw("POST", `/admin/take-overs/${row._id}/clear`, undefined, tok.admin)).status).toBe(
      200,
    );
    expect((await api.raw("DELETE", "/report/delete-report", { reportId }, takerToken)).status).toBe(200);
    // Eight days later: too late to undo (409), and nothing waits for deletions.
    await db.run(
      "UPDATE take_overs SET created_at = ?, reviewed_at = NULL WHERE id = ?",
      db.time(Date.now() - 8 * 86_400_000),
      row._id,
    );
    expect((await api.raw("POST", `/admin/take-overs/${row._id}/undo`, undefined, tok.admin)).status).toBe(
      409,
    );
    expect(
      (await api.raw("DELETE", "/report/delete-report", { reportId: reportId2 }, takerToken)).status,
    ).toBe(200);
    expect((await db.get("SELECT account_id FROM patients WHERE id = ?", id))?.account_id).toBe(id);
  });

  it("a health worker moved to another centre: the take-overs they completed wait for an admin's review", async () => {
    await makeHealthWorker("worker4", ids.centre, true);
    const id = await centrePatient("CB-M0V1-P2");
    const taker = mobile();
    await api.post(
      `/family/members/${id}/take-over`,
      { phone: taker.e164, slipCode: await slipOf(id) },
      tok.worker4,
    );
    expect(
      (await api.post("/take-over", completeBody(taker.e164, await takeOverCode(taker.e164), true))).status,
    ).toBe(201);
    const moved = await api.raw(
      "PATCH",
      `/health-workers/${ids.worker4}`,
      { centreId: ids.otherCentre },
      tok.admin,
    );
    expect(moved.status).toBe(200);
    const list = await api.get("/admin/take-overs", tok.admin);
    expect(list.body.data.find((t: { patient: { _id: string } }) => t.patient._id === id)).toMatchObject({
      flag: "starter_moved",
      startedBy: { _id: ids.worker4 },
    });
  });
});
