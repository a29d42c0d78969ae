import { randomBytes } from "node:crypto";
import * as vitest from "vitest";
import { expect } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { insertCentre, makeHealthWorker } from "../helpers/centre-data";
import { openTestDb, storedBytes, storedKeys, type TestDb } from "../helpers/db";
import { webmOpus } from "../helpers/audio";
import { samplePdf, samplePng, uploadForm } from "../helpers/files";
import { startKannel, type Kannel } from "../helpers/kannel";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { onlyWith, requireKannel } from "../helpers/requires";

// Needs Kannel (the SMS tests' real gateway): skipped without it, naming the package, except under CI.
const { afterAll, beforeAll, describe, it } = onlyWith(requireKannel(), vitest);

/*
 * A patient registered at a centre, over HTTP against the built app (SQLite, and PostgreSQL + S3
 * with TEST_BACKEND=pg-s3): the facilitated consent first (each method's own proof, a refusal
 * saving nothing, the photo stored encrypted), the short ID, the centre's queue, uploads on the
 * patient's behalf by every path, the notices when the opinion is ready (the workers by mail, the
 * patient's phone by a real Kannel, never naming them), printing and follow-up questions — and
 * every other kind of visitor refused. Health workers are made in the database (their signup
 * belongs to another part): a patient signup turned into an approved health worker of a centre.
 */

const ADMIN = { email: "admin@centre.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let kannel: Kannel;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const CENTRE_A = { id: "c0000000000000000000000a", name: "Ayushman Arogya Mandir Rampur" };
const CENTRE_B = { id: "c0000000000000000000000b", name: "PHC Sonpur" };

/** A health worker of `centreId`: signed up, then made a HealthWorker (approved or not) in the database. */
async function healthWorker(key: string, centreId: string, approved = true) {
  const r = await signupViaApi(api, smtp, codeFrom, {
    email: `${key.toLowerCase()}@centre.test`,
    firstName: key === "hwA" ? "Sunita" : "Worker",
    lastName: key,
  });
  await makeHealthWorker(db, r.user._id, centreId, { workerId: `CHO-${key}`, approved, notify: "email" });
  tok[key] = r.token;
  ids[key] = r.user._id;
}

const BASE = {
  firstName: "Kamla",
  lastName: "Devi",
  sex: "female",
  age: "72",
  locality: "Rampur",
  preferredLanguage: "hi",
  phoneOwner: "none",
  consent: "granted",
  consentMethod: "verbal",
};

let nextMobile = 0;
const mobile = () =>
  `98${String(Date.now() % 1e6).padStart(6, "0")}${String(nextMobile++ % 100).padStart(2, "0")}`;

const register = (fields: Record<string, string>, token = tok.hwA, evidence?: Buffer) =>
  api.call(
    "POST",
    "/centre/patients",
    uploadForm(
      fields,
      evidence ? { name: "thumb.png", data: evidence, type: "image/png", field: "evidence" } : undefined,
    ) as never,
    token,
  );

const count = async (table: string) =>
  Number((await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);

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
  db = await openTestDb(server.dataDir, { write: true });
  await insertCentre(db, CENTRE_A);
  await insertCentre(db, CENTRE_B);
  await healthWorker("hwA", CENTRE_A.id);
  await healthWorker("hwA2", CENTRE_A.id);
  await healthWorker("hwB", CENTRE_B.id);
  await healthWorker("hwWaiting", CENTRE_A.id, false);
  for (const [key, accountType] of [
    ["patient", "Patient"],
    ["expert", "Expert"],
  ] as const) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `${key.toLowerCase()}@centre.test`,
      accountType,
    });
    tok[key] = r.token;
    ids[key] = r.user._id;
  }
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin);
}, 180_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await kannel?.stop();
  await smtp?.close();
});

describe("registering a patient: consent first", () => {
  it("registers with verbal consent in one go: profile, short ID, consent and the trail", async () => {
    const res = await register(BASE);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const p = res.body.data;
    expect(p.shortId).toMatch(/^CB-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{2}$/);
    expect(p).toMatchObject({
      firstName: "Kamla",
      sex: "female",
      birthYear: new Date().getUTCFullYear() - 72,
      birthYearEstimated: true,
      preferredLanguage: "hi",
      phone: null,
      phoneOwner: "none",
      centreId: CENTRE_A.id,
      hasOwnAccount: false,
      centre: { _id: CENTRE_A.id, name: CENTRE_A.name },
      consent: { kind: "facilitated", method: "verbal", textVersion: "facilitated-2026-11", locale: "hi" },
    });
    expect(p.consent.recordedByName).toBe("Sunita hwA");
    const row = await db.get("SELECT * FROM patients WHERE id = ?", p._id);
    expect(row).toMatchObject({ centre_id: CENTRE_A.id, registered_by: ids.hwA, short_id: p.shortId });
    const consent = await db.get("SELECT * FROM patient_consents WHERE patient_id = ?", p._id);
    expect(consent).toMatchObject({ kind: "facilitated", method: "verbal", recorded_by: ids.hwA });
    const trail = await db.all(
      "SELECT action, actor_id FROM audit_events WHERE subject_type = 'patient' AND subject_id = ?",
      p._id,
    );
    expect(trail).toContainEqual(expect.objectContaining({ action: "patient.registered" }));
    ids.kamla = p._id;
    ids.kamlaShort = p.shortId;
  });

  it("a refusal saves nothing and says what to do", async () => {
    const before = [await count("patients"), await count("patient_consents"), await count("audit_events")];
    const keysBefore = (await storedKeys(server)).length;
    const res = await register(
      { ...BASE, consent: "refused", consentMethod: "thumbprint" },
      tok.hwA,
      samplePng(),
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Not registered/);
    expect(res.body.errors.consent[0]).toMatch(/Do not register.*come back any time.*nothing has been saved/);
    expect([await count("patients"), await count("patient_consents"), await count("audit_events")]).toEqual(
      before,
    );
    expect((await storedKeys(server)).length).toBe(keysBefore);
    // Without an answer at all there is no registration either.
    const none = await register({ ...BASE, consent: "" });
    expect(none.status).toBe(400);
    expect(none.body.errors.consent).toBeTruthy();
    expect(await count("patients")).toBe(before[0]);
  });

  it("witnessed consent needs the witness's name", async () => {
    const missing = await register({ ...BASE, consentMethod: "witnessed" });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.witnessName).toBeTruthy();
    const ok = await register({
      ...BASE,
      firstName: "Ramdei",
      consentMethod: "witnessed",
      witnessName: "Geeta (ASHA)",
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.consent).toMatchObject({
      method: "witnessed",
      witnessName: "Geeta (ASHA)",
      hasEvidence: false,
    });
  });

  it("a signature or thumbprint needs its photo, stored encrypted; other methods keep no photo", async () => {
    for (const method of ["signature", "thumbprint"]) {
      const missing = await register({ ...BASE, consentMethod: method });
      expect(missing.status).toBe(400);
      expect(missing.body.errors.evidence).toBeTruthy();
    }
    const marker = Buffer.from(`thumbprint-${randomBytes(8).toString("hex")}`);
    const png = Buffer.concat([samplePng(), marker]);
    const ok = await register({ ...BASE, firstName: "Bitto", consentMethod: "thumbprint" }, tok.hwA, png);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.data.consent.hasEvidence).toBe(true);
    const row = await db.get<{ evidence_key: string }>(
      "SELECT evidence_key FROM patient_consents WHERE patient_id = ?",
      ok.body.data._id,
    );
    expect(row!.evidence_key).toBeTruthy();
    const stored = await storedBytes(server, row!.evidence_key);
    expect(stored.length).toBeGreaterThan(png.length);
    expect(stored.includes(marker)).toBe(false);
    expect(stored.includes(Buffer.from("IHDR"))).toBe(false);
    // A photo sent with spoken consent is not kept.
    const keys = (await storedKeys(server)).length;
    const verbal = await register({ ...BASE, firstName: "Phoolmati" }, tok.hwA, samplePng());
    expect(verbal.status).toBe(201);
    expect(verbal.body.data.consent.hasEvidence).toBe(false);
    expect((await storedKeys(server)).length).toBe(keys);
    // Not a picture: refused on the photo field.
    const pdf = await api.call(
      "POST",
      "/centre/patients",
      uploadForm(
        { ...BASE, consentMethod: "signature" },
        { name: "x.pdf", data: samplePdf(), type: "application/pdf", field: "evidence" },
      ) as never,
      tok.hwA,
    );
    expect(pdf.status).toBe(415);
  });

  it("checks the patient's details: age or year, phone, whose phone", async () => {
    const noAge = await register({ ...BASE, age: "" });
    expect(noAge.status).toBe(400);
    expect(noAge.body.errors.age).toBeTruthy();
    const both = await register({ ...BASE, birthYear: "1950" });
    expect(both.body.errors.birthYear).toBeTruthy();
    const future = await register({ ...BASE, age: "", birthYear: String(new Date().getUTCFullYear() + 1) });
    expect(future.status).toBe(400);
    const noPhone = await register({ ...BASE, phoneOwner: "self" });
    expect(noPhone.body.errors.phone).toBeTruthy();
    const badPhone = await register({ ...BASE, phoneOwner: "self", phone: "12345" });
    expect(badPhone.body.errors.phone).toBeTruthy();
    const noRelation = await register({ ...BASE, phoneOwner: "family", phone: mobile() });
    expect(noRelation.body.errors.phoneRelationship).toBeTruthy();
    const badLang = await register({ ...BASE, preferredLanguage: "fr" });
    expect(badLang.body.errors.preferredLanguage).toBeTruthy();
    const oldText = await register({ ...BASE, consentTextVersion: "facilitated-2020-01" });
    expect(oldText.body.errors.consentTextVersion).toBeTruthy();
    const year = await register({ ...BASE, age: "", birthYear: "1951", firstName: "Sarla" });
    expect(year.status).toBe(201);
    expect(year.body.data).toMatchObject({ birthYear: 1951, birthYearEstimated: false });
    const notMultipart = await api.raw("POST", "/centre/patients", BASE, tok.hwA);
    expect(notMultipart.status).toBe(400);
  });

  it("consent read aloud offline (decision 0064): accepted for the text in use then, refused otherwise in the worker's language", async () => {
    const VERSION = "facilitated-2026-11";
    const began = Date.parse("2026-11-01T00:00:00+05:30");
    const shownAt = new Date(Math.max(Date.now() - 3 * 3_600_000, began + 1000)).toISOString();
    const ok = await register({
      ...BASE,
      firstName: "Offline",
      consentTextVersion: VERSION,
      consentShownAt: shownAt,
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.consent).toMatchObject({ textVersion: VERSION, shownAt });
    const read = await api.get(`/centre/patients/${ok.body.data._id}` as never, tok.hwA);
    expect(read.body.data.consent.shownAt).toBe(shownAt);
    // The patient page says when it was read.
    const b = new Browserish(server.url);
    await b.post("/login", { email: "hwa@centre.test", password: "Sturdy-pass-2026" });
    const page = pageText(await (await b.fetch(`/dashboard/centre/patients/${ok.body.data._id}`)).text());
    expect(page).toContain("Read aloud on");

    const before = await count("patients");
    const refused = async (fields: Record<string, string>, lang = "en") => {
      const res = await api.call(
        "POST",
        "/centre/patients",
        uploadForm({ ...BASE, consentTextVersion: VERSION, ...fields }) as never,
        tok.hwA,
        { "Accept-Language": lang },
      );
      expect(res.status).toBe(400);
      return res.body.errors;
    };
    // Ahead of the server's clock by more than 5 minutes.
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    expect((await refused({ consentShownAt: ahead })).consentShownAt[0]).toMatch(/in the future/);
    expect((await refused({ consentShownAt: ahead }, "hi")).consentShownAt[0]).toMatch(/भविष्य/);
    expect((await refused({ consentShownAt: ahead }, "bn")).consentShownAt[0]).toMatch(/ভবিষ্যতের/);
    expect((await refused({ consentShownAt: ahead }, "ta")).consentShownAt[0]).toMatch(/எதிர்காலத்தில்/);
    // Before this text was in use (once that is over 30 days ago: too old to accept anyway).
    const early = await refused({ consentShownAt: new Date(began - 3_600_000).toISOString() });
    expect(early.consentShownAt[0]).toMatch(/not the one in use when it was read|more than 30 days ago/);
    expect(
      (await refused({ consentShownAt: new Date(Date.now() - 40 * 86_400_000).toISOString() }))
        .consentShownAt[0],
    ).toMatch(/more than 30 days ago/);
    expect((await refused({ consentShownAt: "last Tuesday" })).consentShownAt[0]).toMatch(/ISO 8601/);
    expect(await count("patients")).toBe(before);
    // Without a time: as before, the text in use now, recorded now.
    const now = await register({ ...BASE, firstName: "Online", consentTextVersion: VERSION });
    expect(now.status).toBe(201);
    expect(now.body.data.consent).toMatchObject({ textVersion: VERSION, shownAt: null });
  });

  it("a family member's phone is kept with whose it is, as E.164", async () => {
    const number = mobile();
    const res = await register({
      ...BASE,
      firstName: "Sukhiya",
      phoneOwner: "family",
      phone: number,
      phoneRelationship: "son",
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      phone: `+91${number}`,
      phoneOwner: "family",
      phoneRelationship: "son",
    });
    ids.sukhiya = res.body.data._id;
    ids.sukhiyaPhone = `+91${number}`;
  });

  it("short IDs are unique", async () => {
    const rows = await db.all<{ short_id: string }>(
      "SELECT short_id FROM patients WHERE short_id IS NOT NULL",
    );
    expect(rows.length).toBeGreaterThan(4);
    expect(new Set(rows.map((r) => r.short_id)).size).toBe(rows.length);
  });

  it("only approved health workers register", async () => {
    const before = await count("patients");
    expect((await api.raw("POST", "/centre/patients", uploadForm(BASE))).status).toBe(401);
    for (const who of ["patient", "expert", "admin", "hwWaiting"]) {
      const res = await register(BASE, tok[who]);
      expect(res.status, who).toBe(403);
    }
    expect(await count("patients")).toBe(before);
  });
});

describe("the centre's queue and one patient", () => {
  it("lists the centre's own patients, searchable by name or short ID", async () => {
    const all = await api.get("/centre/patients", tok.hwA);
    expect(all.status).toBe(200);
    const names = all.body.data.map((p: { firstName: string }) => p.firstName);
    expect(names).toEqual(expect.arrayContaining(["Kamla", "Ramdei", "Sukhiya"]));
    expect(all.body.pagination.total).toBe(all.body.data.length);
    const byName = await api.raw("GET", "/centre/patients?q=kaml", undefined, tok.hwA);
    expect(byName.body.data.map((p: { _id: string }) => p._id)).toEqual([ids.kamla]);
    const typed = ids.kamlaShort.toLowerCase().replace(/-/g, " ").replace(/^cb /, "");
    const byId = await api.raw("GET", `/centre/patients?q=${encodeURIComponent(typed)}`, undefined, tok.hwA);
    expect(byId.body.data.map((p: { _id: string }) => p._id)).toEqual([ids.kamla]);
    // The other centre sees none of them.
    const other = await api.get("/centre/patients", tok.hwB);
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual([]);
    const bad = await api.raw("GET", "/centre/patients?pageSize=1000", undefined, tok.hwA);
    expect(bad.status).toBe(400);
  });

  it("refuses the queue to everyone but approved health workers", async () => {
    expect((await api.raw("GET", "/centre/patients")).status).toBe(401);
    for (const who of ["patient", "expert", "admin", "hwWaiting"])
      expect((await api.get("/centre/patients", tok[who])).status, who).toBe(403);
  });

  it("one patient: their centre's workers and admins; the opening is in their trail", async () => {
    const res = await api.get(`/centre/patients/${ids.kamla}`, tok.hwA2);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ _id: ids.kamla, consent: { method: "verbal" } });
    const opened = await db.all(
      "SELECT actor_id FROM audit_events WHERE action = 'patient.opened' AND subject_id = ?",
      ids.kamla,
    );
    expect(opened).toContainEqual({ actor_id: ids.hwA2 });
    expect((await api.get(`/centre/patients/${ids.kamla}`, tok.admin)).status).toBe(200);
    for (const who of ["hwB", "hwWaiting", "patient", "expert"])
      expect((await api.get(`/centre/patients/${ids.kamla}`, tok[who])).status, who).toBe(403);
    expect((await api.get(`/centre/patients/nope`, tok.hwA)).status).toBe(403);
    expect((await api.get(`/centre/patients/nope`, tok.admin)).status).toBe(404);
    expect((await api.raw("GET", `/centre/patients/${ids.kamla}`)).status).toBe(401);
  });
});

describe("submitting on the patient's behalf", () => {
  const fields = { reportType: "Blood Test", phoneNumber: "9876543210", countryCode: "+91", consent: "on" };
  const upload = (token: string, extra: Record<string, string>) =>
    api.call(
      "POST",
      "/report/upload-report",
      uploadForm({ ...fields, ...extra }, { name: "hb.png", data: samplePng(), type: "image/png" }),
      token,
    );

  it("the API: a health worker uploads for one of their centre's patients only", async () => {
    const ok = await upload(tok.hwA, { patientId: ids.kamla });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.data.patient._id).toBe(ids.kamla);
    ids.kamlaReport = ok.body.data._id;
    const other = await upload(tok.hwB, { patientId: ids.kamla });
    expect(other.status).toBe(400);
    expect(other.body.errors.patientId).toBeTruthy();
    const nobody = await upload(tok.hwA, {});
    expect(nobody.status).toBe(400);
    expect(nobody.body.errors.patientId).toBeTruthy();
    expect((await upload(tok.hwWaiting, { patientId: ids.kamla })).status).toBe(403);
    // A patient naming someone else's profile is refused; their own upload is unchanged.
    expect((await upload(tok.patient, { patientId: ids.kamla })).status).toBe(400);
    const own = await upload(tok.patient, {});
    expect(own.status).toBe(201);
    expect(own.body.data.patient._id).toBe(ids.patient);
  });

  it("resumable: patientId in the tus metadata, checked before a byte is sent", async () => {
    const data = samplePdf("Sukhiya's ECG");
    const meta = (patientId: string) =>
      Object.entries({ ...fields, reportType: "ECG", patientId, filename: "ecg.pdf" })
        .map(([k, v]) => `${k} ${Buffer.from(v).toString("base64")}`)
        .join(",");
    const create = (token: string, patientId: string) =>
      fetch(`${server.url}/api/v1/uploads`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Tus-Resumable": "1.0.0",
          "Upload-Length": String(data.length),
          "Upload-Metadata": meta(patientId),
        },
      });
    const refused = await create(tok.hwB, ids.sukhiya);
    expect(refused.status).toBe(400);
    const started = await create(tok.hwA, ids.sukhiya);
    expect(started.status).toBe(201);
    const patch = await fetch(
      `${server.url}${new URL(started.headers.get("location")!, server.url).pathname}`,
      {
        method: "PATCH",
        headers: {
          Authorization: `Bearer ${tok.hwA}`,
          "Tus-Resumable": "1.0.0",
          "Upload-Offset": "0",
          "Content-Type": "application/offset+octet-stream",
        },
        body: new Uint8Array(data),
      },
    );
    expect([200, 204]).toContain(patch.status);
    const row = await db.get<{ patient_id: string; id: string }>(
      "SELECT id, patient_id FROM reports WHERE report_type = 'ECG' AND patient_id = ?",
      ids.sukhiya,
    );
    expect(row?.patient_id).toBe(ids.sukhiya);
    ids.sukhiyaReport = row!.id;
  });

  it("the screens: the upload form offers the centre's patients, preselected from the patient page", async () => {
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "hwa@centre.test", password: "Sturdy-pass-2026" })).status).toBe(
      302,
    );
    const page = await b.fetch(`/dashboard/upload-report?patient=${ids.kamla}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(new RegExp(`<option value="${ids.kamla}" selected`));
    expect(pageText(html)).toContain(ids.kamlaShort);
    // The form post without JavaScript.
    const fd = uploadForm(
      { ...fields, patientId: ids.kamla },
      { name: "x.png", data: samplePng(), type: "image/png" },
    );
    const posted = await b.fetch("/dashboard/upload-report", {
      method: "POST",
      body: fd,
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(posted.status).toBe(302);
    expect(
      Number(
        (await db.get<{ n: number }>("SELECT count(*) AS n FROM reports WHERE patient_id = ?", ids.kamla))!.n,
      ),
    ).toBe(2);
    // Another centre's worker does not get the patient offered.
    const bB = new Browserish(server.url);
    await bB.post("/login", { email: "hwb@centre.test", password: "Sturdy-pass-2026" });
    const other = await (await bB.fetch(`/dashboard/upload-report?patient=${ids.kamla}`)).text();
    expect(other).not.toContain(`<option value="${ids.kamla}"`);
  });
});

describe("when the opinion is ready", () => {
  it("the centre's workers hear by mail, the patient's phone by an SMS without name or medical content", async () => {
    for (const id of [ids.sukhiyaReport]) {
      expect((await api.post(`/report/claim/${id}`, {}, tok.expert)).status).toBe(200);
      const r = await api.post(
        `/report/add-review/${id}`,
        { review: "Mild anaemia.", findings: "Hb 10.2", recommendations: "Iron tablets" },
        tok.expert,
      );
      expect(r.status).toBe(200);
    }
    const mail = await smtp.waitFor("hwa@centre.test", /opinion is ready|राय तैयार/);
    expect(mail.subject).toContain("CB-");
    expect(mail.raw).not.toContain("Sukhiya");
    await smtp.waitFor("hwa2@centre.test", /opinion is ready|राय तैयार/);
    const sms = await kannel.waitForDelivered(1, 20_000);
    const mine = sms.filter((m) => m.receiver.replace(/^00/, "+") === ids.sukhiyaPhone);
    expect(mine).toHaveLength(1);
    // In the patient's language (Hindi), naming the centre only.
    expect(mine[0].text).toContain(CENTRE_A.name);
    expect(mine[0].text).toMatch(/उत्तर/);
    expect(mine[0].text).not.toMatch(/Sukhiya|anaemia|Hb|ECG/i);
    expect(mine[0].coding).toBe("ucs-2");
    // The other centre hears nothing.
    await expect(smtp.waitFor("hwb@centre.test", /opinion is ready/, 1500)).rejects.toThrow();
  });

  it("the queue shows the opinion ready", async () => {
    const res = await api.raw("GET", "/centre/patients?q=sukhiya", undefined, tok.hwA);
    expect(res.body.data[0]).toMatchObject({ opinionReady: true, opinionsReady: 1, waitingSince: null });
    const kamla = (await api.raw("GET", "/centre/patients?q=kamla", undefined, tok.hwA)).body.data[0];
    expect(kamla.opinionReady).toBe(false);
    expect(kamla.waitingSince).toBeTruthy();
    expect(kamla.reports).toBe(2);
  });

  it("the worker prints it: the A4 view with the verify code, and the letter PDF", async () => {
    const b = new Browserish(server.url);
    await b.post("/login", { email: "hwa@centre.test", password: "Sturdy-pass-2026" });
    const print = await b.fetch(
      `/dashboard/centre/patients/${ids.sukhiya}/reports/${ids.sukhiyaReport}/print`,
    );
    expect(print.status).toBe(200);
    const text = pageText(await print.text());
    const code = (await db.get<{ letter_code: string }>(
      "SELECT letter_code FROM reports WHERE id = ?",
      ids.sukhiyaReport,
    ))!.letter_code;
    expect(text).toContain(code);
    expect(text).toContain("Mild anaemia.");
    expect(text).toContain("Iron tablets");
    const pdf = await fetch(`${server.url}/api/v1/report/${ids.sukhiyaReport}/opinion.pdf`, {
      headers: { Authorization: `Bearer ${tok.hwA}` },
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toMatch(/application\/pdf/);
    const other = await fetch(`${server.url}/api/v1/report/${ids.sukhiyaReport}/opinion.pdf`, {
      headers: { Authorization: `Bearer ${tok.hwB}` },
    });
    expect(other.status).toBe(403);
    const bB = new Browserish(server.url);
    await bB.post("/login", { email: "hwb@centre.test", password: "Sturdy-pass-2026" });
    expect(
      (await bB.fetch(`/dashboard/centre/patients/${ids.sukhiya}/reports/${ids.sukhiyaReport}/print`)).status,
    ).toBe(404);
    expect((await bB.fetch(`/dashboard/centre/patients/${ids.sukhiya}/slip`)).status).toBe(404);
  });

  it("the worker asks the question the patient dictates; others may not", async () => {
    const asked = await api.post(
      `/report/follow-up/${ids.sukhiyaReport}`,
      { question: "Can she eat jaggery?" },
      tok.hwA,
    );
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const traced = await db.all(
      "SELECT actor_id FROM audit_events WHERE action = 'patient.followup_ask' AND subject_id = ?",
      ids.sukhiya,
    );
    expect(traced).toEqual([{ actor_id: ids.hwA }]);
    for (const who of ["hwB", "hwWaiting", "patient"])
      expect(
        (await api.post(`/report/follow-up/${ids.sukhiyaReport}`, { question: "?" }, tok[who])).status,
        who,
      ).toBe(403);
    const q = await api.raw("GET", "/centre/patients?q=sukhiya", undefined, tok.hwA);
    expect(q.body.data[0].followUpsPending).toBe(1);
  });
});

describe("the centre's screens", () => {
  it("register, queue, patient page and slip for the worker; refused to others", async () => {
    const b = new Browserish(server.url);
    await b.post("/login", { email: "hwa@centre.test", password: "Sturdy-pass-2026" });
    const reg = await b.fetch("/dashboard/centre/register?lang=hi");
    expect(reg.status).toBe(200);
    const regText = pageText(await reg.text());
    expect(regText).toContain("क्या आप सहमत हैं?");
    expect((await b.fetch("/dashboard/centre")).status).toBe(200);
    const patient = await b.fetch(`/dashboard/centre/patients/${ids.kamla}`);
    expect(patient.status).toBe(200);
    const slip = pageText(await (await b.fetch(`/dashboard/centre/patients/${ids.kamla}/slip`)).text());
    expect(slip).toContain(ids.kamlaShort);
    expect(slip).toContain(CENTRE_A.name);
    // A refusal posted from the screen: the form says what to do; nothing saved.
    const before = await count("patients");
    const refused = await b.fetch("/dashboard/centre/register", {
      method: "POST",
      body: uploadForm({ ...BASE, consent: "refused" }),
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(refused.status).toBe(400);
    expect(pageText(await refused.text())).toContain("Do not register.");
    expect(await count("patients")).toBe(before);
    // Registering from the screen lands on the slip.
    const done = await b.fetch("/dashboard/centre/register", {
      method: "POST",
      body: uploadForm({ ...BASE, firstName: "Munni", consentTextVersion: "facilitated-2026-11" }),
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toMatch(/^\/dashboard\/centre\/patients\/[0-9a-f]{24}\/slip$/);
    for (const who of ["patient@centre.test", "expert@centre.test", "hwwaiting@centre.test"]) {
      const o = new Browserish(server.url);
      await o.post("/login", { email: who, password: "Sturdy-pass-2026" });
      expect((await o.fetch("/dashboard/centre")).status, who).toBe(403);
      expect((await o.fetch("/dashboard/centre/register")).status, who).toBe(403);
      expect((await o.fetch(`/dashboard/centre/patients/${ids.kamla}`)).status, who).toBe(404);
    }
  });
});

describe("the offline outbox: the browser session from the app's own pages (X-CareBridge-Outbox)", () => {
  const OUTBOX = { "X-CareBridge-Outbox": "1", "Sec-Fetch-Site": "same-origin" };
  let worker: Browserish;
  beforeAll(async () => {
    worker = new Browserish(server.url);
    await worker.post("/login", { email: "hwa@centre.test", password: "Sturdy-pass-2026" });
  });
  /** An API call with the browser's cookie (no bearer), as the outbox sends it unless `headers` say otherwise. */
  const call = (
    b: Browserish,
    method: string,
    path: string,
    body?: BodyInit,
    headers: Record<string, string> = OUTBOX,
  ) =>
    b.fetch(`/api/v1${path}`, {
      method,
      body,
      headers: {
        ...headers,
        ...(method === "GET" || !headers["Sec-Fetch-Site"]?.startsWith("same-origin")
          ? {}
          : { Origin: server.url }),
      },
    });

  it("a worker reads the queue and registers with the session cookie, the header and same-origin only", async () => {
    expect((await call(worker, "GET", "/centre/patients")).status).toBe(200);
    const before = await count("patients");
    const key = `outbox-${randomBytes(6).toString("hex")}`;
    const form = () => uploadForm({ ...BASE, firstName: "Outbox" });
    const made = await call(worker, "POST", "/centre/patients", form(), {
      ...OUTBOX,
      "Idempotency-Key": key,
    });
    expect(made.status).toBe(201);
    const again = await call(worker, "POST", "/centre/patients", form(), {
      ...OUTBOX,
      "Idempotency-Key": key,
    });
    expect((await again.json()).data._id).toBe((await made.json()).data._id);
    expect(await count("patients")).toBe(before + 1);

    // Without the header, or from anywhere but the same origin: the cookie is not a way in.
    const refusals: [string, Record<string, string>][] = [
      ["no header", { "Sec-Fetch-Site": "same-origin" }],
      ["header 0", { ...OUTBOX, "X-CareBridge-Outbox": "0" }],
      ["same-site", { ...OUTBOX, "Sec-Fetch-Site": "same-site" }],
      ["cross-site", { ...OUTBOX, "Sec-Fetch-Site": "cross-site" }],
      ["none", { ...OUTBOX, "Sec-Fetch-Site": "none" }],
      ["no Sec-Fetch-Site", { "X-CareBridge-Outbox": "1" }],
    ];
    for (const [label, headers] of refusals) {
      expect((await call(worker, "GET", "/centre/patients", undefined, headers)).status, label).toBe(401);
      const write = await call(worker, "POST", "/centre/patients", form(), headers);
      // A cross-site write is the server's 403 before the app; the others are not signed in.
      expect(write.status, label).toBe(label === "cross-site" ? 403 : 401);
    }
    // Another site's page cannot send the header: its preflight is never granted.
    for (const path of ["/centre/patients", "/uploads"]) {
      const preflight = await fetch(`${server.url}/api/v1${path}`, {
        method: "OPTIONS",
        headers: {
          Origin: "https://elsewhere.example",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "x-carebridge-outbox",
        },
      });
      expect(preflight.headers.get("access-control-allow-origin"), path).toBeNull();
      expect(preflight.headers.get("access-control-allow-credentials"), path).toBeNull();
    }
    // A key's answer is replayed only to a request the route would serve.
    const replay = await call(worker, "POST", "/centre/patients", form(), {
      "Sec-Fetch-Site": "same-origin",
      "Idempotency-Key": key,
    });
    expect(replay.status).toBe(401);
    expect(await count("patients")).toBe(before + 1);
    // A bearer token still works, with or without the header.
    const bearer = { Authorization: `Bearer ${tok.hwA}` };
    expect(
      (await call(new Browserish(server.url), "GET", "/centre/patients", undefined, bearer)).status,
    ).toBe(200);
    expect(
      (await call(new Browserish(server.url), "GET", "/centre/patients", undefined, { ...OUTBOX, ...bearer }))
        .status,
    ).toBe(200);
  });

  it("every create the outbox sends takes the session: voice note, follow-up, tus upload, family member", async () => {
    const voice = await call(
      worker,
      "POST",
      "/voice-notes",
      uploadForm(
        { reportId: ids.kamlaReport, kind: "description", language: "hi" },
        { name: "v.webm", data: webmOpus(2), type: "audio/webm", field: "audio" },
      ),
    );
    expect(voice.status, await voice.clone().text()).toBe(201);
    const followUp = await call(
      worker,
      "POST",
      `/report/follow-up/${ids.sukhiyaReport}`,
      JSON.stringify({ question: "Can she take the tablets with tea?" }),
      { ...OUTBOX, "Content-Type": "application/json" },
    );
    expect(followUp.status, await followUp.clone().text()).toBe(201);

    const data = samplePdf("Outbox ECG");
    const meta = Object.entries({
      reportType: "ECG",
      phoneNumber: "9876543210",
      countryCode: "+91",
      consent: "on",
      patientId: ids.kamla,
      filename: "ecg.pdf",
    })
      .map(([k, v]) => `${k} ${Buffer.from(v).toString("base64")}`)
      .join(",");
    const created = await call(worker, "POST", "/uploads", undefined, {
      ...OUTBOX,
      "Tus-Resumable": "1.0.0",
      "Upload-Length": String(data.length),
      "Upload-Metadata": meta,
    });
    expect(created.status).toBe(201);
    const sent = await worker.fetch(new URL(created.headers.get("location")!, server.url).pathname, {
      method: "PATCH",
      body: new Uint8Array(data),
      headers: {
        ...OUTBOX,
        Origin: server.url,
        "Tus-Resumable": "1.0.0",
        "Upload-Offset": "0",
        "Content-Type": "application/offset+octet-stream",
      },
    });
    // The last chunk completes the report (200 with it, or 204).
    expect([200, 204]).toContain(sent.status);

    const family = new Browserish(server.url);
    await family.post("/login", { email: "patient@centre.test", password: "Sturdy-pass-2026" });
    const member = await call(
      family,
      "POST",
      "/family/members",
      JSON.stringify({
        firstName: "Meena",
        sex: "female",
        age: 30,
        relationship: "daughter",
        preferredLanguage: "hi",
        memberConsent: true,
      }),
      { ...OUTBOX, "Content-Type": "application/json" },
    );
    expect(member.status, await member.clone().text()).toBe(201);
  });

  it("the session works only for patients and health workers, and only on what the outbox calls (decision 0063)", async () => {
    const admin = new Browserish(server.url);
    expect((await admin.post("/login", ADMIN)).status).toBe(302);
    const expert = new Browserish(server.url);
    expect(
      (await expert.post("/login", { email: "expert@centre.test", password: "Sturdy-pass-2026" })).status,
    ).toBe(302);
    // The admin's and the expert's own screens work with these cookies; the API does not take them.
    expect((await admin.fetch("/dashboard/take-overs")).status).toBe(200);
    expect((await call(admin, "GET", "/centre/patients")).status).toBe(401);
    for (const path of ["/admin/take-overs", "/health-workers", "/admin/get-contact-messages"] as const) {
      expect((await call(admin, "GET", path)).status, `admin ${path}`).toBe(401);
      expect((await api.get(path, tok.admin)).status, `admin bearer ${path}`).toBe(200);
    }
    for (const path of ["/profile/get-user-details", "/report/get-pending-reports"] as const) {
      expect((await call(expert, "GET", path)).status, `expert ${path}`).toBe(401);
      expect((await api.get(path, tok.expert)).status, `expert bearer ${path}`).toBe(200);
    }
    // A worker's and a patient's session: the outbox's routes only.
    for (const path of [
      "/profile/access-trail",
      "/report/get-all-reviewed-reports",
      "/report/get-follow-ups",
    ]) {
      expect((await call(worker, "GET", path)).status, `worker ${path}`).toBe(401);
    }
    expect((await call(worker, "GET", "/profile/get-user-details")).status).toBe(200);
    const family = new Browserish(server.url);
    await family.post("/login", { email: "patient@centre.test", password: "Sturdy-pass-2026" });
    expect((await call(family, "GET", "/family/members")).status).toBe(200);
    expect((await call(family, "GET", "/profile/access-trail")).status).toBe(401);
    expect(
      (
        await call(family, "DELETE", "/report/delete-report", JSON.stringify({ reportId: ids.kamlaReport }), {
          ...OUTBOX,
          "Content-Type": "application/json",
        })
      ).status,
    ).toBe(401);
  });

  it("the cookie of a signed-out session is refused", async () => {
    const b = new Browserish(server.url);
    await b.post("/login", { email: "hwa@centre.test", password: "Sturdy-pass-2026" });
    const kept = new Browserish(server.url);
    kept.cookies = new Map(b.cookies);
    expect((await call(kept, "GET", "/centre/patients")).status).toBe(200);
    expect((await b.post("/logout", {})).status).toBe(302);
    expect((await call(kept, "GET", "/centre/patients")).status).toBe(401);
    expect(
      (await call(kept, "POST", "/centre/patients", uploadForm({ ...BASE, firstName: "Gone" }))).status,
    ).toBe(401);
  });
});
