import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Strict input checks, over HTTP against the built app and a real database.
 *
 * Every boolean takes only true/false (JSON) or true/false/on (forms), every list only an
 * array (forms: repeated fields). A sweep sends each API endpoint with a boolean or a list the
 * wrong types — "yes", 1, "very", a string for a list — and expects a 400 naming the field and
 * nothing stored; the right values still work, on the JSON API and on the screens.
 *
 * A code's tries are counted by one conditional update: many guesses at once are at most 5.
 */

const ADMIN = { email: "admin@strict.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

const expertDetails = {
  specialties: ["Radiology" as const],
  registrationNumber: "KMC-7001",
  registrationCouncil: "National Medical Commission",
  yearsOfPractice: 9,
};

const count = async (sql: string, ...params: unknown[]) =>
  Number((await db.get<{ n: number }>(sql, ...params))?.n ?? 0);

const upload = (token: string, fields: Record<string, string>) =>
  api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "X-Ray", phoneNumber: "9876543210", countryCode: "+91", ...fields },
      { name: "r.pdf", data: samplePdf(), type: "application/pdf" },
    ),
    token,
  );

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
/** Starts a resumable (tus) upload with the report's fields as metadata. */
const tusCreate = (token: string, fields: Record<string, string>) =>
  fetch(`${server.url}/api/v1/uploads`, {
    method: "POST",
    headers: {
      "Tus-Resumable": "1.0.0",
      Authorization: `Bearer ${token}`,
      "Upload-Length": "2000",
      "Upload-Metadata": Object.entries({
        reportType: "ECG",
        countryCode: "+91",
        phoneNumber: "9876543210",
        consent: "on",
        filename: "e.pdf",
        ...fields,
      })
        .map(([k, v]) => `${k} ${b64(v)}`)
        .join(","),
    },
  });

/** A 400 whose `errors` name `field` (and nothing was done). */
function refused(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.success).toBe(false);
  expect(Object.keys(res.body.errors ?? {}), JSON.stringify(res.body)).toContain(field);
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    // Several processes on one database, as several nodes are: guesses really run side by side.
    WEB_CONCURRENCY: "3",
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir);
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  const patient = await signupViaApi(api, smtp, codeFrom, { email: "pat@strict.test", firstName: "Wei" });
  tok.patient = patient.token;
  ids.patient = patient.user._id;
  const expert = await signupViaApi(api, smtp, codeFrom, {
    email: "exp@strict.test",
    accountType: "Expert",
    extra: expertDetails,
  });
  tok.expert = expert.token;
  ids.expert = expert.user._id;
  expect((await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe("booleans and lists: wrong types are a 400 naming the field, never a silent default", () => {
  it("add-review: seeDoctorSoon 'yes', 1, 'true' or 'on' in JSON is refused and the report stays unreviewed; true is stored", async () => {
    const up = await upload(tok.patient, { description: "cough" });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const id = up.body.data._id;
    for (const bad of ["yes", 1, 0, "true", "on", null, ["true"], {}]) {
      const res = await api.raw(
        "POST",
        `/report/add-review/${id}`,
        { review: "Looks normal", seeDoctorSoon: bad },
        tok.expert,
      );
      refused(res, "seeDoctorSoon");
    }
    expect(await db.get("SELECT status, review FROM reports WHERE id = ?", id)).toMatchObject({
      status: "Pending",
      review: null,
    });
    const ok = await api.post(
      `/report/add-review/${id}`,
      { review: "See a doctor", seeDoctorSoon: true },
      tok.expert,
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.seeDoctorSoon).toBe(true);
    const row = await db.get<{ see_doctor_soon: unknown }>(
      "SELECT see_doctor_soon FROM reports WHERE id = ?",
      id,
    );
    expect(Boolean(row!.see_doctor_soon)).toBe(true);
  });

  it("add-review on the screen: the checkbox's 'on' is yes, anything else a 400 with nothing stored", async () => {
    const up = await upload(tok.patient, { description: "screen" });
    const id = up.body.data._id;
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "exp@strict.test", password: strongPassword })).status).toBe(302);
    const bad = await b.post(`/dashboard/add-review/${id}`, { review: "Fine", seeDoctorSoon: "yes" });
    expect(bad.status).toBe(400);
    expect(await db.get("SELECT status FROM reports WHERE id = ?", id)).toMatchObject({ status: "Pending" });
    const ok = await b.post(`/dashboard/add-review/${id}`, { review: "See a doctor", seeDoctorSoon: "on" });
    expect(ok.status).toBe(302);
    const row = await db.get<{ status: string; see_doctor_soon: unknown }>(
      "SELECT status, see_doctor_soon FROM reports WHERE id = ?",
      id,
    );
    expect(row!.status).toBe("Reviewed");
    expect(Boolean(row!.see_doctor_soon)).toBe(true);
  });

  it("upload (multipart): urgent=very or consent=maybe stores no report; urgent=on / true / false work", async () => {
    const before = await count("SELECT count(*) AS n FROM reports WHERE patient_id = ?", ids.patient);
    refused(await upload(tok.patient, { urgent: "very", urgentReason: "pain" }), "urgent");
    refused(await upload(tok.patient, { urgent: "1", urgentReason: "pain" }), "urgent");
    refused(await upload(tok.patient, { consent: "maybe" }), "consent");
    refused(await upload(tok.patient, { consent: "false" }), "consent");
    expect(await count("SELECT count(*) AS n FROM reports WHERE patient_id = ?", ids.patient)).toBe(before);

    const on = await upload(tok.patient, { urgent: "on", urgentReason: "Chest pain" });
    expect(on.status, JSON.stringify(on.body)).toBe(201);
    expect(on.body.data.urgent).toBe(true);
    const yes = await upload(tok.patient, { urgent: "true", urgentReason: "Chest pain", consent: "on" });
    expect(yes.body.data.urgent).toBe(true);
    const no = await upload(tok.patient, { urgent: "false" });
    expect(no.status).toBe(201);
    expect(no.body.data.urgent).toBe(false);
  });

  it("resumable upload (tus metadata): urgent=very is refused before any byte and nothing is kept", async () => {
    const before = await count("SELECT count(*) AS n FROM upload_sessions WHERE owner_id = ?", ids.patient);
    const bad = await tusCreate(tok.patient, { urgent: "very", urgentReason: "pain" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/urgent/);
    expect(await count("SELECT count(*) AS n FROM upload_sessions WHERE owner_id = ?", ids.patient)).toBe(
      before,
    );
    const ok = await tusCreate(tok.patient, { urgent: "on", urgentReason: "pain" });
    expect(ok.status).toBe(201);
  });

  it("expert signup and details: specialties as a string (or a list with a number) are refused, no account made", async () => {
    const email = "exp2@strict.test";
    expect((await api.post("/auth/send-otp", { email, checkUserPresent: true })).status).toBe(200);
    const otp = codeFrom(await smtp.waitFor(email, /verification code/));
    const form = {
      accountType: "Expert" as const,
      firstName: "Second",
      lastName: "Expert",
      email,
      contactNumber: "9876543210",
      password: strongPassword,
      confirmPassword: strongPassword,
      otp,
      ...expertDetails,
    };
    refused(await api.raw("POST", "/auth/signup", { ...form, specialties: "Radiology" }), "specialties");
    refused(
      await api.raw("POST", "/auth/signup", { ...form, specialties: { 0: "Radiology" } }),
      "specialties",
    );
    expect(await count("SELECT count(*) AS n FROM users WHERE email = ?", email)).toBe(0);
    const ok = await api.post("/auth/signup", form);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);

    refused(
      await api.raw("PUT", "/profile/update-expert-details", { specialties: "Cardiology" }, tok.expert),
      "specialties",
    );
    expect(
      await db.all(
        "SELECT specialty FROM expert_specialties WHERE user_id = ? ORDER BY specialty",
        ids.expert,
      ),
    ).toEqual([{ specialty: "Radiology" }]);
  });

  it("send-otp: checkUserPresent 'yes' or 1 is refused and no code is made", async () => {
    const email = "nobody@strict.test";
    refused(await api.raw("POST", "/auth/send-otp", { email, checkUserPresent: "yes" }), "checkUserPresent");
    refused(await api.raw("POST", "/auth/send-otp", { email, checkUserPresent: 1 }), "checkUserPresent");
    expect(await count("SELECT count(*) AS n FROM verification_codes WHERE email = ?", email)).toBe(0);
    expect((await api.post("/auth/send-otp", { email, checkUserPresent: false })).status).toBe(200);
  });

  it("share links: includeFile 'yes' or 1 makes no link; JSON true/false work", async () => {
    const up = await upload(tok.patient, { description: "to share" });
    const reportId = up.body.data._id;
    refused(
      await api.raw("POST", "/report/share-links", { reportId, includeFile: "yes" }, tok.patient),
      "includeFile",
    );
    refused(
      await api.raw("POST", "/report/share-links", { reportId, includeLetter: 1 }, tok.patient),
      "includeLetter",
    );
    expect(await count("SELECT count(*) AS n FROM share_links WHERE report_id = ?", reportId)).toBe(0);
    const ok = await api.post(
      "/report/share-links",
      { reportId, includeFile: true, includeOpinion: false, includeLetter: false },
      tok.patient,
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.data).toMatchObject({ includeFile: true, includeOpinion: false, includeLetter: false });
  });

  it("consents: granted 'yes', 'true' (a string in JSON) or 0 records nothing; on the screen 'false' withdraws", async () => {
    const records = () => count("SELECT count(*) AS n FROM consent_records WHERE user_id = ?", ids.patient);
    const before = await records();
    for (const bad of ["yes", "true", 0, null])
      refused(
        await api.raw("POST", "/rights/consents", { purpose: "statistics", granted: bad }, tok.patient),
        "granted",
      );
    expect(await records()).toBe(before);
    const ok = await api.post("/rights/consents", { purpose: "statistics", granted: true }, tok.patient);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await records()).toBe(before + 1);

    const b = new Browserish(server.url);
    await b.post("/login", { email: "pat@strict.test", password: strongPassword });
    // The screen answers with its error toast (a redirect back), and records nothing.
    const odd = await b.post("/dashboard/my-data", {
      intent: "consent",
      purpose: "statistics",
      granted: "perhaps",
    });
    expect(odd.status).toBe(302);
    expect(await records()).toBe(before + 1);
    const off = await b.post("/dashboard/my-data", {
      intent: "consent",
      purpose: "statistics",
      granted: "false",
    });
    expect(off.status).toBe(302);
    expect(await records()).toBe(before + 2);
  });
});

describe("a code's tries", () => {
  it("many simultaneous wrong and right guesses at one code: at most 5 are counted", async () => {
    const email = "race@strict.test";
    expect((await api.post("/auth/send-otp", { email })).status).toBe(200);
    const right = codeFrom(await smtp.waitFor(email, /verification code/));
    const wrong = (i: number) => String((Number(right) + 1 + i * 7919) % 1_000_000).padStart(6, "0");
    const guesses = Array.from({ length: 30 }, (_, i) => (i === 20 ? right : wrong(i)));
    const body = (otp: string) => ({
      accountType: "Patient" as const,
      firstName: "Race",
      lastName: "Condition",
      email,
      contactNumber: "9876543210",
      password: strongPassword,
      confirmPassword: strongPassword,
      otp,
    });
    const answers = await Promise.all(guesses.map((g) => api.post("/auth/signup", body(g))));
    const created = answers.filter((a) => a.status === 201).length;
    const counted = answers.filter((a) => /tries left/.test(String(a.body.message))).length;
    expect(created).toBeLessThanOrEqual(1);
    // Each guess compared took a try first: at most 5 (the fifth wrong one already says "too many").
    expect(counted + created).toBeLessThanOrEqual(5);
    const row = await db.get<{ attempts: number }>(
      "SELECT attempts FROM verification_codes WHERE email = ? AND purpose = 'signup'",
      email,
    );
    expect(Number(row!.attempts)).toBeLessThanOrEqual(5);
    for (const a of answers) expect([201, 400]).toContain(a.status);
    // The code is spent: even the right one, sent now, does not get through.
    const after = await api.post("/auth/signup", body(right));
    if (!created) expect(after.status).toBe(400);
  });
});
