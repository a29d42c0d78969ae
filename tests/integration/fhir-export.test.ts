import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { request as httpRequest } from "node:http";
import type { Bundle, BundleEntry, Consent, Patient, RelatedPerson, Resource } from "@medplum/fhirtypes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import bn from "~/i18n/locales/bn";
import en from "~/i18n/locales/en";
import hi from "~/i18n/locales/hi";
import ta from "~/i18n/locales/ta";
import { apiClient, signupViaApi, strongPassword, type ApiBody } from "../helpers/api";
import { labReadsEnded, openTestDb, storedKeys } from "../helpers/db";
import { checkBundle } from "../helpers/fhir-validate";
import { samplePdf, samplePng, uploadForm } from "../helpers/files";
import { raw, type RawResponse } from "../helpers/raw";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * The FHIR R4 export and "Download my data", over HTTP against the built app (real SMTP,
 * real database and file store): a patient with a reviewed report (structured opinion, letter,
 * a follow-up answered and one open), a pending report and a large file, consents, and files
 * opened by the expert, an admin and the patient. Every resource is validated against the
 * official R4 StructureDefinitions; the ZIP is unpacked with `unzip` and compared byte for byte.
 */

const ADMIN = { email: "admin@fhir.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const uploaded: Record<string, Buffer> = {};
let work: string;

const REVIEW = {
  review: "Your chest X-ray looks clear.",
  findings: "No consolidation. Heart size normal.",
  recommendations: "Repeat only if the cough lasts beyond 3 weeks.",
  seeDoctorSoon: true,
};

const bearer = (token?: string) => (token ? { authorization: `Bearer ${token}` } : {});
const everything = (patientId: string, token?: string, headers: Record<string, string> = {}) =>
  raw(`${server.url}/api/v1/fhir/Patient/${patientId}/$everything`, {
    headers: { ...bearer(token), ...headers },
  });
const myDataZip = (token?: string, headers: Record<string, string> = {}) =>
  raw(`${server.url}/api/v1/profile/download-my-data`, { headers: { ...bearer(token), ...headers } });

function bundleOf(res: RawResponse): Bundle {
  expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
  return JSON.parse(res.body.toString("utf8")) as Bundle;
}

const resources = <T extends Resource>(b: Bundle, type: T["resourceType"]) =>
  (b.entry ?? []).map((e: BundleEntry) => e.resource!).filter((r) => r.resourceType === type) as T[];

function expectValid(b: Bundle) {
  const check = checkBundle(b);
  expect(check.errors, JSON.stringify(check.errors, null, 2)).toEqual([]);
  return check;
}

const sha1 = (b: Buffer) => createHash("sha1").update(b).digest("base64");

/** The ZIP's entries (names) and a reader for one entry, with the `unzip` command line tool. */
function unpack(zip: Buffer) {
  const file = path.join(work, `${randomBytes(6).toString("hex")}.zip`);
  writeFileSync(file, zip);
  execFileSync("unzip", ["-tq", file]); // every entry's CRC-32 checks out
  const names = execFileSync("unzip", ["-Z1", file], { encoding: "utf8" }).split("\n").filter(Boolean);
  const read = (name: string) =>
    execFileSync("unzip", ["-p", file, name.replace(/[[\]*?]/g, "\\$&")], { maxBuffer: 64 * 1024 * 1024 });
  return { file, names, read };
}

async function signup(
  key: string,
  accountType: "Patient" | "Expert",
  firstName: string,
  extra?: Partial<ApiBody<"post", "/auth/signup">>,
) {
  const r = await signupViaApi(api, smtp, codeFrom, {
    email: `${key}@fhir.test`,
    accountType,
    firstName,
    lastName: "Tester",
    extra,
  });
  tok[key] = r.token;
  ids[key] = r.user._id;
}

async function upload(key: string, name: string, data: Buffer, type: string, fields: Record<string, string>) {
  const res = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm({ phoneNumber: "9876543210", countryCode: "+91", ...fields }, { name, data, type }),
    tok[key],
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  uploaded[res.body.data._id] = data;
  return res.body.data._id as string;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "cb-fhir-"));
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  ids.admin = (await api.get("/profile/get-user-details", tok.admin)).body.data._id;
  await signup("patient", "Patient", "Asha");
  await signup("other", "Patient", "Oskar");
  await signup("expert", "Expert", "Ravi", {
    specialties: ["Radiology"],
    registrationNumber: "KMC-1001",
    registrationCouncil: "Karnataka Medical Council",
    yearsOfPractice: 12,
  });
  expect((await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin)).status).toBe(200);

  // The patient: a reviewed X-ray, a pending blood test (a photo), and a large scan (over 3 MiB).
  ids.xray = await upload("patient", "chest x-ray.pdf", samplePdf("Chest X-ray of Asha"), "application/pdf", {
    reportType: "X-Ray",
    description: "Cough for two weeks",
  });
  ids.blood = await upload("patient", "blood.png", samplePng(16, 16, [200, 10, 10]), "image/png", {
    reportType: "Blood Test",
    description: "Fasting\u0007 sugar\u000b", // control characters a FHIR string may not hold
  });
  const big = Buffer.concat([samplePdf("Large MRI"), randomBytes(3 * 1024 * 1024 + 12345)]);
  ids.mri = await upload("patient", "mri (full).pdf", big, "application/pdf", { reportType: "MRI" });
  // Another patient's report, which no export of Asha's may show.
  ids.otherReport = await upload("other", "oskar.pdf", samplePdf("Oskar's ECG"), "application/pdf", {
    reportType: "ECG",
    description: "Oskar private description",
  });

  expect((await api.post(`/report/claim/${ids.xray}`, {}, tok.expert)).status).toBe(200);
  expect((await api.post(`/report/add-review/${ids.xray}`, REVIEW, tok.expert)).status).toBe(200);
  const q1 = await api.post(`/report/follow-up/${ids.xray}`, { question: "May I go jogging?" }, tok.patient);
  expect(q1.status).toBe(201);
  ids.q1 = q1.body.data._id;
  const q2 = await api.post(`/report/follow-up/${ids.xray}`, { question: "Do I need a CT?" }, tok.patient);
  expect(q2.status).toBe(201);
  ids.q2 = q2.body.data._id;
  expect(
    (await api.post(`/report/follow-up-answer/${ids.q1}`, { answer: "Yes, gently." }, tok.expert)).status,
  ).toBe(200);

  // Files opened by the expert, an admin and the patient; the letter fetched by the patient.
  for (const who of ["expert", "admin", "patient"])
    expect(
      (await raw(`${server.url}/api/v1/report/${ids.xray}/file`, { headers: bearer(tok[who]) })).status,
    ).toBe(200);
  expect(
    (await raw(`${server.url}/api/v1/report/${ids.xray}/opinion.pdf`, { headers: bearer(tok.patient) }))
      .status,
  ).toBe(200);
  // The other patient's file opened too (must not appear in Asha's audit events).
  expect(
    (await raw(`${server.url}/api/v1/report/${ids.otherReport}/file`, { headers: bearer(tok.admin) })).status,
  ).toBe(200);

  // Consent records (the consent screens write these; here straight into the database).
  const db = await openTestDb(server.dataDir, { write: true });
  const bool = (b: boolean) => (db.kind === "postgres" ? b : b ? 1 : 0);
  const t0 = Date.now() - 60_000;
  const rows: [string, string, string, boolean, string, string, number][] = [
    [randomBytes(12).toString("hex"), ids.patient, "review", true, "review-2026-01", "en", t0],
    [randomBytes(12).toString("hex"), ids.patient, "contact", true, "contact-2026-01", "hi", t0 + 1000],
    [randomBytes(12).toString("hex"), ids.patient, "statistics", true, "statistics-2026-01", "en", t0 + 2000],
    [randomBytes(12).toString("hex"), ids.patient, "review", false, "review-2026-02", "en", t0 + 3000],
    [randomBytes(12).toString("hex"), ids.other, "statistics", true, "oskar-text-9", "en", t0],
  ];
  for (const [id, userId, purpose, granted, version, locale, at] of rows) {
    await db.run(
      "insert into consent_records (id, user_id, purpose, granted, text_version, locale, via, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
      id,
      userId,
      purpose,
      bool(granted),
      version,
      locale,
      "settings",
      db.time(at),
    );
  }
  // Lab values on the reviewed X-ray's report (decision 0084): a confirmed one and a corrected one
  // reach the export as Observations; one the reader found that no expert checked does not.
  const labs: [string, string, number, string, string | null, number | null, number | null, string][] = [
    ["lv-hb", "718-7", 9.8, "g/dL", "12.0 - 15.5", 12, 15.5, "confirmed"],
    ["lv-glu", "2345-7", 104, "mg/dL", null, null, null, "corrected"],
    ["lv-unchecked", "2160-0", 0.9, "mg/dL", "0.6 - 1.1", 0.6, 1.1, "read"],
  ];
  for (const [id, loinc, value, unit, range, low, high, status] of labs)
    await db.run(
      "insert into lab_values (id, report_id, loinc, printed_name, value, unit, printed_value, range_text, range_low, range_high, status, checked_by, checked_at, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      id,
      ids.xray,
      loinc,
      "Hb",
      value,
      unit,
      String(value),
      range,
      low,
      high,
      status,
      status === "read" ? null : ids.expert,
      status === "read" ? null : db.time(t0),
      db.time(t0),
    );
  ids.consentWithdrawn = rows[3][0];
  ids.consentGranted = rows[0][0];
  await db.close();
}, 180_000);

afterAll(async () => {
  if (process.env.SHOW_SERVER_LOG) console.log(server?.output());
  await server?.stop();
  await smtp?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("GET /api/v1/fhir/Patient/{id}/$everything", () => {
  let bundle: Bundle;

  it("answers a FHIR R4 collection Bundle whose every resource validates against the R4 definitions", async () => {
    const res = await everything(ids.patient, tok.patient);
    bundle = bundleOf(res);
    if (process.env.FHIR_DUMP) writeFileSync(process.env.FHIR_DUMP, JSON.stringify(bundle, null, 2));
    expect(res.headers["content-type"]).toMatch(/^application\/fhir\+json/);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(bundle).toMatchObject({ resourceType: "Bundle", type: "collection" });
    const check = expectValid(bundle);
    if (process.env.FHIR_DUMP)
      writeFileSync(`${process.env.FHIR_DUMP}.warnings`, JSON.stringify(check.warnings, null, 2));
    expect(check.byType).toMatchObject({
      Organization: 1,
      Patient: 1,
      Practitioner: 1,
      DocumentReference: 3,
      DiagnosticReport: 1,
      Observation: 2, // the checked lab values; the unchecked one is not exported
      Communication: 3, // two questions, one answer
      Consent: 3 + 4, // the upload consent of each report, four recorded consents
    });
    // Opened: by the expert, the admin and the patient; the letter by the patient; this export.
    expect(check.byType.AuditEvent).toBeGreaterThanOrEqual(5);
  });

  it("maps the patient, reports, opinion, expert, follow-ups, consents and openings", () => {
    const [patient] = resources<any>(bundle, "Patient");
    expect(patient.name[0]).toMatchObject({ given: ["Asha"], family: "Tester" });
    expect(patient.identifier[0].value).toBe(ids.patient);
    expect(patient.telecom).toEqual(
      expect.arrayContaining([
        { system: "email", value: "patient@fhir.test" },
        { system: "phone", value: "+919876543210" },
      ]),
    );
    const ref = (r: { id: string }) => `urn:uuid:${r.id}`;

    const docs = resources<any>(bundle, "DocumentReference");
    const xray = docs.find((d) => d.identifier[0].value === ids.xray);
    expect(xray.content[0].attachment).toEqual({
      contentType: "application/pdf",
      url: `${server.url}/api/v1/report/${ids.xray}/file`,
      size: uploaded[ids.xray].length,
      title: "chest x-ray.pdf",
      creation: expect.any(String),
    });
    expect(xray.description).toBe("Cough for two weeks");
    expect(xray.subject.reference).toBe(ref(patient));
    const blood = docs.find((d) => d.identifier[0].value === ids.blood);
    expect(blood.content[0].attachment.contentType).toBe("image/png");
    expect(blood.context).toBeUndefined(); // pending: no opinion yet
    expect(blood.description).toBe("Fasting sugar");

    const [opinion] = resources<any>(bundle, "DiagnosticReport");
    const [doctor] = resources<any>(bundle, "Practitioner");
    expect(opinion.status).toBe("final");
    expect(opinion.conclusion).toContain(REVIEW.review);
    expect(opinion.conclusion).toContain(REVIEW.findings);
    expect(opinion.conclusion).toContain(REVIEW.recommendations);
    expect(opinion.conclusionCode[0].coding[0].code).toBe("see-doctor-soon");
    expect(opinion.performer[0].reference).toBe(ref(doctor));
    expect(opinion.presentedForm[0]).toMatchObject({
      contentType: "application/pdf",
      url: `${server.url}/api/v1/report/${ids.xray}/opinion.pdf`,
      language: "en",
    });
    expect(xray.context.related[0].reference).toBe(ref(opinion));
    expect(doctor.identifier).toContainEqual(
      expect.objectContaining({
        system: `${server.url}/fhir/sid/medical-registration`,
        value: "KMC-1001",
        assigner: { display: "Karnataka Medical Council" },
        type: expect.objectContaining({ coding: [expect.objectContaining({ code: "MD" })] }),
      }),
    );
    expect(doctor.telecom).toBeUndefined(); // an expert's contact details are not the patient's data

    const comms = resources<any>(bundle, "Communication");
    const q1 = comms.find((c) => c.payload[0].contentString === "May I go jogging?");
    const a1 = comms.find((c) => c.payload[0].contentString === "Yes, gently.");
    const q2 = comms.find((c) => c.payload[0].contentString === "Do I need a CT?");
    expect(q1).toMatchObject({
      sender: { reference: ref(patient) },
      recipient: [{ reference: ref(doctor) }],
    });
    expect(q1.about[0].reference).toBe(ref(opinion));
    expect(a1).toMatchObject({ sender: { reference: ref(doctor) }, inResponseTo: [{ reference: ref(q1) }] });
    expect(q2.recipient[0].reference).toBe(ref(doctor)); // not answered yet: to whoever holds it

    const consents = resources<any>(bundle, "Consent");
    const recorded = (id: string) => consents.find((c) => c.identifier[0].value === id);
    expect(recorded(ids.consentWithdrawn)).toMatchObject({ status: "active", provision: { type: "deny" } });
    expect(recorded(ids.consentGranted)).toMatchObject({ status: "inactive", provision: { type: "permit" } });
    const upload = consents.find((c) => c.identifier[0].value === ids.xray);
    expect(upload.provision.data[0].reference.reference).toBe(ref(xray));

    const events = resources<any>(bundle, "AuditEvent");
    const openings = events.filter((e) => e.entity[0].what.reference === ref(xray));
    const by = openings.map((e) => e.agent[0].who?.reference ?? e.agent[0].who?.display);
    expect(by).toEqual(expect.arrayContaining([ref(doctor), ref(patient), "Admin"]));
    expect(events.some((e) => e.type.code === "110106" && e.agent[0].who.reference === ref(patient))).toBe(
      true,
    );
  });

  it("checked lab values are Observations in UCUM with the printed range, listed in the DiagnosticReport's result", () => {
    const [opinion] = resources<any>(bundle, "DiagnosticReport");
    const observations = resources<any>(bundle, "Observation");
    expect(opinion.result.map((r: { reference: string }) => r.reference).sort()).toEqual(
      observations.map((o) => `urn:uuid:${o.id}`).sort(),
    );
    const hb = observations.find((o) => o.code.coding[0].code === "718-7");
    expect(hb).toMatchObject({
      status: "final",
      // LOINC's own name for the code (decision 0089).
      code: { coding: [{ display: "Hemoglobin [Mass/volume] in Blood" }] },
      valueQuantity: { value: 9.8, unit: "g/dL", system: "http://unitsofmeasure.org", code: "g/dL" },
      referenceRange: [
        { low: { value: 12, code: "g/dL" }, high: { value: 15.5, code: "g/dL" }, text: "12.0 - 15.5" },
      ],
      interpretation: [{ coding: [{ code: "L" }] }],
    });
    const glucose = observations.find((o) => o.code.coding[0].code === "2345-7");
    expect(glucose.status).toBe("corrected");
    expect(glucose.referenceRange).toBeUndefined();
    expect(glucose.interpretation).toBeUndefined();
    expect(observations.some((o) => o.code.coding[0].code === "2160-0")).toBe(false);
  });

  it("shows nothing of another patient", () => {
    const text = JSON.stringify(bundle);
    for (const s of [ids.other, ids.otherReport, "other@fhir.test", "Oskar", "oskar-text-9"])
      expect(text).not.toContain(s);
  });

  it("keeps resource ids from one export to the next; each export is audited", async () => {
    const again = bundleOf(await everything(ids.patient, tok.patient));
    const idsOf = (b: Bundle) =>
      new Set(
        (b.entry ?? []).filter((e) => e.resource!.resourceType !== "AuditEvent").map((e) => e.resource!.id),
      );
    expect(idsOf(again)).toEqual(idsOf(bundle));
    expect(resources(again, "AuditEvent").length).toBe(resources(bundle, "AuditEvent").length + 1);
  });

  it("the attachment URLs are the authenticated routes that serve the same bytes", async () => {
    const doc = resources<any>(bundle, "DocumentReference").find((d) => d.identifier[0].value === ids.mri);
    const file = await raw(doc.content[0].attachment.url, { headers: bearer(tok.patient) });
    expect(file.status).toBe(200);
    expect(file.body.equals(uploaded[ids.mri])).toBe(true);
    expect((await raw(doc.content[0].attachment.url)).status).toBe(401);
  });

  it("admins export any patient (audited as theirs); the other patient, experts and strangers are refused", async () => {
    const admin = bundleOf(await everything(ids.patient, tok.admin));
    expectValid(admin);
    expect(resources(admin, "DocumentReference")).toHaveLength(3);
    const db = await openTestDb(server.dataDir);
    const exports = await db.all<{ actor_id: string; detail: string }>(
      "select actor_id, detail from audit_events where action = 'account.data_export' and subject_id = ? order by created_at",
      ids.patient,
    );
    await db.close();
    expect(exports.map((e) => e.actor_id)).toContain(ids.admin);
    expect(JSON.parse(exports.find((e) => e.actor_id === ids.admin)!.detail)).toEqual({
      format: "bundle",
      by: "Admin",
    });

    const status = async (id: string, token?: string) => (await everything(id, token)).status;
    expect(await status(ids.patient, tok.other)).toBe(403);
    expect(await status(ids.patient, tok.expert)).toBe(403);
    expect(await status(ids.patient)).toBe(401);
    expect(await status(ids.patient, "not-a-token")).toBe(401);
    expect(await status("0123456789abcdef01234567", tok.admin)).toBe(404);
    expect(await status(ids.expert, tok.admin)).toBe(404); // an expert is not a patient
    expect(await status(ids.admin, tok.admin)).toBe(404);
    // A patient asking for an id that does not exist learns nothing either.
    expect(await status("0123456789abcdef01234567", tok.patient)).toBe(403);
    const refused = await everything(ids.patient, tok.other);
    expect(JSON.parse(refused.body.toString())).toMatchObject({
      success: false,
      message: expect.any(String),
    });
    // Odd ids are refused cleanly, never a 5xx.
    for (const odd of ["%2E%2E", "x".repeat(500), "%00", encodeURIComponent("' or 1=1 --")]) {
      expect([403, 404]).toContain(await status(odd, tok.patient));
      expect([403, 404]).toContain(await status(odd, tok.admin));
    }
    // The browser session is not the API's credential; a spoofed forwarding header changes nothing.
    const b = new Browserish(server.url);
    await b.post("/login", { email: "patient@fhir.test", password: strongPassword });
    expect((await b.fetch(`/api/v1/fhir/Patient/${ids.patient}/$everything`)).status).toBe(401);
    expect(await status(ids.patient, tok.other)).toBe(403);
    expect((await everything(ids.patient, tok.other, { "X-Forwarded-For": "127.0.0.1" })).status).toBe(403);
    const post = await raw(`${server.url}/api/v1/fhir/Patient/${ids.patient}/$everything`, {
      method: "POST",
      headers: { ...bearer(tok.patient), "content-type": "application/json" },
      body: "{}",
    });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET");
  });
});

describe('"Download my data" ZIP', () => {
  it("holds the Bundle, the original files byte for byte and the letter; the Bundle's links point inside", async () => {
    const res = await myDataZip(tok.patient);
    expect(res.status, res.body.toString().slice(0, 200)).toBe(200);
    expect(res.headers["content-type"]).toBe("application/zip");
    expect(res.headers["cache-control"]).toBe("no-store");
    const day = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Kolkata" }).format(new Date());
    expect(res.headers["content-disposition"]).toBe(
      `attachment; filename="carebridge-my-data-${day}.zip"; filename*=UTF-8''carebridge-my-data-${day}.zip`,
    );
    const zip = unpack(res.body);
    expect(zip.names).toContain("README.txt");
    expect(zip.names).toContain("fhir-bundle.json");
    for (const n of zip.names) expect(n).toMatch(/^(README\.txt|fhir-bundle\.json|reports\/[^/]+\/[^/]+)$/);
    expect(zip.read("README.txt").toString()).toContain("fhir-bundle.json");

    const bundle = JSON.parse(zip.read("fhir-bundle.json").toString("utf8")) as Bundle;
    expectValid(bundle);
    const docs = resources<any>(bundle, "DocumentReference");
    expect(docs).toHaveLength(3);
    for (const d of docs) {
      const a = d.content[0].attachment;
      const name = decodeURIComponent(a.url);
      expect(zip.names).toContain(name);
      const bytes = zip.read(name);
      expect(bytes.equals(uploaded[d.identifier[0].value]), name).toBe(true);
      expect(a.size).toBe(bytes.length);
      expect(a.hash).toBe(sha1(bytes));
    }
    const [opinion] = resources<any>(bundle, "DiagnosticReport");
    const letter = opinion.presentedForm[0];
    const pdf = zip.read(decodeURIComponent(letter.url));
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    expect(letter.size).toBe(pdf.length);
    expect(letter.hash).toBe(sha1(pdf));
    const letterText = execFileSync("pdftotext", ["-", "-"], { input: pdf, encoding: "utf8" });
    expect(letterText).toContain(REVIEW.findings);
    expect(letterText).toContain("Yes, gently.");

    const everythingInZip = zip.names.map((n) => zip.read(n).toString("latin1")).join("\n");
    for (const s of [ids.other, ids.otherReport, "Oskar", "oskar-text-9"])
      expect(everythingInZip).not.toContain(s);
  });

  it("is for patients only; cookies only from our own pages", async () => {
    expect((await myDataZip()).status).toBe(401);
    expect((await myDataZip(tok.expert)).status).toBe(403);
    expect((await myDataZip(tok.admin)).status).toBe(403);
    const b = new Browserish(server.url);
    await b.post("/login", { email: "patient@fhir.test", password: strongPassword });
    const cross = await b.fetch("/api/v1/profile/download-my-data", {
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    expect(cross.status).toBe(403);
    const same = await b.fetch("/api/v1/profile/download-my-data", {
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(same.status).toBe(200);
    expect(unpack(Buffer.from(await same.arrayBuffer())).names).toContain("fhir-bundle.json");
  });

  it("two exports at once both finish whole", async () => {
    const [a, b, c] = await Promise.all([
      myDataZip(tok.patient),
      myDataZip(tok.patient),
      everything(ids.patient, tok.admin),
    ]);
    for (const r of [a, b]) {
      expect(r.status).toBe(200);
      const zip = unpack(r.body);
      expectValid(JSON.parse(zip.read("fhir-bundle.json").toString()));
    }
    expectValid(bundleOf(c));
  });

  it("a download cancelled half-way leaves the server well", async () => {
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}/api/v1/profile/download-my-data`,
        { headers: bearer(tok.patient) },
        (res) => {
          expect(res.statusCode).toBe(200);
          res.once("data", () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on("error", (e) =>
        e.message.includes("socket hang up") || e.message.includes("aborted") ? resolve() : reject(e),
      );
      req.end();
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const after = await myDataZip(tok.patient);
    expect(after.status).toBe(200);
    unpack(after.body);
  });
});

describe("the screens", () => {
  it("Settings offers the download to patients (in their language); the link streams the ZIP without JavaScript", async () => {
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "patient@fhir.test", password: strongPassword })).status).toBe(
      302,
    );
    const page = await (await b.fetch("/dashboard/settings")).text();
    expect(page).toContain("Download my data");
    expect(page).toContain('href="/dashboard/my-data/download"');
    for (const [lng, catalogue] of Object.entries({ hi, bn, ta, en })) {
      const switched = await b.post("/set-language", { lng, redirectTo: "/dashboard/settings" });
      const html = await (await b.follow(switched)).text();
      expect(html).toContain(catalogue.fhir.title);
      expect(html).toContain(catalogue.fhir.button);
    }
    const res = await b.fetch("/dashboard/my-data/download", {
      headers: { "Sec-Fetch-Site": "same-origin", Referer: `${server.url}/dashboard/settings` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="carebridge-my-data-\d{4}-\d{2}-\d{2}\.zip"/,
    );
    const zip = unpack(Buffer.from(await res.arrayBuffer()));
    // The README and letters follow the account's language (English here), not this browser's.
    expect(zip.read("README.txt").toString()).toContain("This ZIP file holds a copy of your data");
  });

  it("refusals come back to the page with the reason; strangers go to the login", async () => {
    const anon = new Browserish(server.url);
    const login = await anon.fetch("/dashboard/my-data/download");
    expect(login.status).toBe(302);
    expect(login.headers.get("location")).toMatch(/^\/login\?redirectTo=/);

    const other = new Browserish(server.url);
    await other.post("/login", { email: "other@fhir.test", password: strongPassword });
    const sneaky = await other.fetch(`/dashboard/my-data/download?patientId=${ids.patient}`, {
      headers: { "Sec-Fetch-Site": "same-origin", Referer: `${server.url}/dashboard/settings` },
    });
    expect(sneaky.status).toBe(302);
    expect(sneaky.headers.get("location")).toBe("/dashboard/settings");
    const shown = await (await other.follow(sneaky)).text();
    expect(shown).toContain("You can only export your own data.");

    const expert = new Browserish(server.url);
    await expert.post("/login", { email: "expert@fhir.test", password: strongPassword });
    const refused = await expert.fetch("/dashboard/my-data/download", {
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(refused.status).toBe(302);
    expect(await (await expert.follow(refused)).text()).not.toContain('href="/dashboard/my-data/download"');

    const patient = new Browserish(server.url);
    await patient.post("/login", { email: "patient@fhir.test", password: strongPassword });
    // HEAD would start an export nobody reads: refused before anything happens.
    const db = await openTestDb(server.dataDir);
    const count = async () =>
      (await db.get<{ n: number }>(
        "select count(*) as n from audit_events where action = 'account.data_export' and subject_id = ?",
        ids.patient,
      ))!.n;
    const exportsBefore = await count();
    const head = await patient.fetch("/dashboard/my-data/download", {
      method: "HEAD",
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(head.status).toBe(405);
    expect(await count()).toBe(exportsBefore);
    await db.close();
    const cross = await patient.fetch("/dashboard/my-data/download", {
      headers: { "Sec-Fetch-Site": "cross-site", Referer: "https://evil.example/" },
    });
    expect(cross.status).toBe(302);
    expect(cross.headers.get("location")).toBe("/dashboard/settings");
  });

  it("an admin downloads one patient's ZIP", async () => {
    const admin = new Browserish(server.url);
    await admin.post("/login", ADMIN);
    const res = await admin.fetch(`/dashboard/my-data/download?patientId=${ids.patient}`, {
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain(`carebridge-patient-${ids.patient}-`);
    const zip = unpack(Buffer.from(await res.arrayBuffer()));
    expect(resources(JSON.parse(zip.read("fhir-bundle.json").toString()), "DocumentReference")).toHaveLength(
      3,
    );
  });
});

describe("a family member's data (profiles, decision 0030)", () => {
  it("the manager downloads a dependant's ZIP (?patientId=): the Bundle names him as RelatedPerson, with the guardian's consent; valid R4", async () => {
    // A child without a login whom the patient manages (the family screens make these; here the database).
    const db = await openTestDb(server.dataDir, { write: true });
    const child = randomBytes(12).toString("hex");
    const now = db.time(Date.now());
    await db.run(
      "INSERT INTO patients (id, first_name, last_name, sex, birth_year, birth_year_estimated, locality, locale, phone_owner, phone_relationship, created_at, updated_at) VALUES (?, 'Anu', 'Tester', 'female', 2017, ?, 'Sinnar', 'hi', 'none', '', ?, ?)",
      child,
      db.kind === "postgres" ? false : 0,
      now,
      now,
    );
    await db.run(
      "INSERT INTO patient_managers (patient_id, manager_id, relationship, created_at) VALUES (?, ?, 'daughter', ?)",
      child,
      ids.patient,
      now,
    );
    // Given two hours before it was recorded (read aloud offline, decision 0064).
    const shownAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 7_200_000);
    await db.run(
      "INSERT INTO patient_consents (id, patient_id, kind, granted, text_version, locale, method, recorded_by, recorded_by_name, relationship, shown_at, created_at) VALUES (?, ?, 'guardian', ?, 'family-2026-11', 'hi', 'online', ?, 'Priya Tester', 'mother', ?, ?)",
      randomBytes(12).toString("hex"),
      child,
      db.kind === "postgres" ? true : 1,
      ids.patient,
      db.time(shownAt.getTime()),
      now,
    );
    await db.close();

    const b = new Browserish(server.url);
    await b.post("/login", { email: "patient@fhir.test", password: strongPassword });
    const res = await b.fetch(`/dashboard/my-data/download?patientId=${child}`, {
      headers: { "Sec-Fetch-Site": "same-origin", Referer: `${server.url}/dashboard/my-data` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/filename="carebridge-patient-/);
    const zip = unpack(Buffer.from(await res.arrayBuffer()));
    const bundle = JSON.parse(zip.read("fhir-bundle.json").toString("utf8")) as Bundle;
    expectValid(bundle);
    const [patient] = resources<Patient>(bundle, "Patient");
    expect(patient.birthDate).toBe("2017");
    expect(patient.identifier?.[0].value).toBe(child);
    const [parent] = resources<RelatedPerson>(bundle, "RelatedPerson");
    expect(parent.patient.reference).toBe(`urn:uuid:${patient.id}`);
    expect(parent.relationship?.[0].coding?.[0].system).toBe(
      "http://terminology.hl7.org/CodeSystem/v3-RoleCode",
    );
    const guardian = resources<Consent>(bundle, "Consent").find(
      (c) => c.policyRule?.coding?.[0].code === "guardian",
    );
    expect(guardian?.performer?.[0].reference).toBe(`urn:uuid:${parent.id}`);
    // When it was given: the time it was read, not the time it reached the server.
    expect(Date.parse(guardian!.dateTime!)).toBe(shownAt.getTime());
    // My data says so too.
    expect(pageText(await (await b.fetch(`/dashboard/my-data?patientId=${child}`)).text())).toContain(
      "Read aloud on",
    );
    // Another patient may not, and the child's ZIP is not the manager's own.
    const other = new Browserish(server.url);
    await other.post("/login", { email: "other@fhir.test", password: strongPassword });
    const refused = await other.fetch(`/dashboard/my-data/download?patientId=${child}`, {
      headers: { "Sec-Fetch-Site": "same-origin", Referer: `${server.url}/dashboard/my-data` },
    });
    expect(refused.status).toBe(302);
    expect(await (await other.follow(refused)).text()).toContain("You can only export your own data.");
    expect((await everything(child, tok.expert)).status).toBe(403);
  });
});

describe("streaming", () => {
  it("a slow reader holds the server to a little memory: files are read as the ZIP is read", async () => {
    await signup("bulk", "Patient", "Bina");
    let total = 0;
    for (let i = 0; i < 6; i++) {
      const big = Buffer.concat([samplePdf(`Scan ${i}`), randomBytes(9 * 1024 * 1024)]);
      await upload("bulk", `scan-${i}.pdf`, big, "application/pdf", { reportType: "MRI" });
      total += big.length;
    }
    const rss = () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))![1]) * 1024;
    // The lab reader reads the uploads in this process: the export's memory is measured once it is done.
    await labReadsEnded(server);
    await new Promise((r) => setTimeout(r, 500));
    const before = rss();
    const { got, paused } = await new Promise<{ got: number; paused: number }>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}/api/v1/profile/download-my-data`,
        { headers: bearer(tok.bulk) },
        (res) => {
          let n = 0;
          let during = 0;
          res.on("data", (c: Buffer) => (n += c.length));
          res.pause(); // a reader on a slow line
          setTimeout(() => {
            during = rss();
            res.resume();
          }, 2000);
          res.on("end", () => resolve({ got: n, paused: during }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(got).toBeGreaterThan(total);
    // 54 MiB of files; while the reader waited, the server grew by a few MiB at most.
    expect(paused - before, `grew ${((paused - before) / 2 ** 20).toFixed(1)} MiB while paused`).toBeLessThan(
      24 * 1024 * 1024,
    );
  }, 120_000);
});

describe("a damaged stored file", () => {
  it("cuts the download off (never a ZIP that looks whole) and the server carries on", async () => {
    const db = await openTestDb(server.dataDir);
    const row = (await db.get<{ file_key: string }>("select file_key from reports where id = ?", ids.blood))!;
    await db.close();
    const keys = await storedKeys(server);
    expect(keys).toContain(row.file_key);
    const file = path.join(server.uploadsDir, `${row.file_key}.enc`);
    let original: Buffer;
    try {
      original = readFileSync(file);
    } catch {
      return; // object storage (TEST_BACKEND=pg-s3): the bytes are not on this disk
    }
    const tampered = Buffer.from(original);
    tampered[40] ^= 0xff; // one ciphertext byte: the GCM tag no longer matches
    writeFileSync(file, tampered);
    try {
      const outcome = await myDataZip(tok.patient).then(
        (r) => ({ status: r.status, body: r.body }),
        (err: Error) => ({ status: 0, body: Buffer.from(err.message) }),
      );
      if (outcome.status === 200) expect(() => unpack(outcome.body)).toThrow();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      writeFileSync(file, original);
    }
    expect((await myDataZip(tok.patient)).status).toBe(200);
  });
});

describe("rate limit (a server with limits on)", () => {
  it("ten exports an hour per account; refusals cost nothing; an account with no reports exports too", async () => {
    const limited = await startServer({ SMTP_URL: smtp.url });
    try {
      const lapi = apiClient(limited.url);
      const a = await signupViaApi(lapi, smtp, codeFrom, { email: "limit-a@fhir.test", firstName: "Lim" });
      const b = await signupViaApi(lapi, smtp, codeFrom, { email: "limit-b@fhir.test", firstName: "Bea" });
      const get = (id: string, token: string) =>
        raw(`${limited.url}/api/v1/fhir/Patient/${id}/$everything`, { headers: bearer(token) });
      // Forty refused attempts on someone else's data spend no budget (neither B's nor the address's).
      for (let i = 0; i < 40; i++) expect((await get(a.user._id, b.token)).status).toBe(403);
      const empty = JSON.parse((await get(b.user._id, b.token)).body.toString()) as Bundle;
      expectValid(empty);
      expect(resources(empty, "DocumentReference")).toHaveLength(0);
      for (let i = 0; i < 10; i++) expect((await get(a.user._id, a.token)).status).toBe(200);
      const over = await get(a.user._id, a.token);
      expect(over.status).toBe(429);
      expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
      expect(JSON.parse(over.body.toString()).message).toMatch(/^Too many attempts/);
      const zip = await raw(`${limited.url}/api/v1/profile/download-my-data`, { headers: bearer(a.token) });
      expect(zip.status).toBe(429);
      // The screen says so on the page it came from.
      const browser = new Browserish(limited.url);
      await browser.post("/login", { email: "limit-a@fhir.test", password: strongPassword });
      const screen = await browser.fetch("/dashboard/my-data/download", {
        headers: { "Sec-Fetch-Site": "same-origin", Referer: `${limited.url}/dashboard/settings` },
      });
      expect(screen.status).toBe(302);
      expect(screen.headers.get("retry-after")).toBeTruthy();
      expect(await (await browser.follow(screen)).text()).toContain("Too many attempts");
      // B's own budget is untouched by A.
      expect((await get(b.user._id, b.token)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  }, 120_000);
});
