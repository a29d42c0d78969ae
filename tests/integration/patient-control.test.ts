import { randomBytes } from "node:crypto";
import type {
  Bundle,
  BundleEntry,
  Consent,
  Organization,
  Patient,
  RelatedPerson,
  Resource,
} from "@medplum/fhirtypes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { checkBundle } from "../helpers/fhir-validate";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { withoutPageStrings } from "../helpers/html";

/*
 * The patient stays in control (profiles, decision 0030), over HTTP against the built app: a
 * mother with her own account whose son manages her profile and whose centre registered her; she
 * sees who can act for her, reads their actions in her access trail, revokes them — effective on
 * the next request for the reports list, the file, the letter and the export, API and screens —
 * and sees the facilitated consent with its method and witness. A dependant without a login and a
 * centre's patient export valid FHIR R4 (RelatedPerson, Consent, Organization). The son shares his
 * mother's report and the doctor's page opens it.
 *
 * Centres, health workers, managers and consents are written straight into the database (the
 * screens that make them are other parts of the work); every check goes through HTTP.
 */

const ADMIN = { email: "admin@control.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

const hex = () => randomBytes(12).toString("hex");
const bearer = (token?: string) => (token ? { authorization: `Bearer ${token}` } : {});
const get = (path: string, token?: string) => raw(`${server.url}/api/v1${path}`, { headers: bearer(token) });
const del = (path: string, token?: string) =>
  raw(`${server.url}/api/v1${path}`, { method: "DELETE", headers: bearer(token) });
const json = (r: { body: Buffer }) => JSON.parse(r.body.toString("utf8"));

async function signup(key: string, accountType: "Patient" | "Expert", firstName: string, lastName = "Devi") {
  const r = await signupViaApi(api, smtp, codeFrom, {
    email: `${key.toLowerCase()}@control.test`,
    accountType,
    firstName,
    lastName,
  });
  tok[key] = r.token;
  ids[key] = r.user._id;
}

const bool = (v: boolean) => (db.kind === "postgres" ? v : v ? 1 : 0);
const now = () => db.time(Date.now());

/** A centre row. */
async function makeCentre(name: string) {
  const id = hex();
  await db.run(
    "INSERT INTO centres (id, name, kind, district, state, pin_code, created_at, updated_at) VALUES (?, ?, 'hwc', 'Nashik', 'Maharashtra', '422001', ?, ?)",
    id,
    name,
    now(),
    now(),
  );
  return id;
}

/** A signed-up account turned into an approved health worker of `centreId`. */
async function makeHealthWorker(key: string, firstName: string, centreId: string, approved = true) {
  await signup(key, "Patient", firstName, "Pawar");
  await db.run("DELETE FROM patients WHERE account_id = ?", ids[key]);
  await db.run(
    "UPDATE users SET account_type = 'HealthWorker', approved = ? WHERE id = ?",
    bool(approved),
    ids[key],
  );
  await db.run(
    "INSERT INTO health_workers (user_id, centre_id, role, worker_id, updated_at) VALUES (?, ?, 'cho', 'CHO-1', ?)",
    ids[key],
    centreId,
    now(),
  );
}

/** `managerId` manages the profile `patientId` (described as `relationship`). */
async function makeManager(patientId: string, managerId: string, relationship: string) {
  await db.run(
    "INSERT INTO patient_managers (patient_id, manager_id, relationship, created_at) VALUES (?, ?, ?, ?)",
    patientId,
    managerId,
    relationship,
    now(),
  );
}

/** A profile without a login of its own. */
async function makeProfile(
  firstName: string,
  opts: { centreId?: string; sex?: string; birthYear?: number } = {},
) {
  const id = hex();
  await db.run(
    "INSERT INTO patients (id, first_name, last_name, sex, birth_year, birth_year_estimated, locality, locale, phone_owner, phone_relationship, centre_id, created_at, updated_at) VALUES (?, ?, 'Kumari', ?, ?, ?, 'Sinnar', 'hi', 'none', '', ?, ?, ?)",
    id,
    firstName,
    opts.sex ?? "female",
    opts.birthYear ?? 2015,
    bool(false),
    opts.centreId ?? null,
    now(),
    now(),
  );
  return id;
}

async function makeConsent(
  patientId: string,
  c: {
    kind: "facilitated" | "guardian" | "family";
    method: string;
    witness?: string;
    recordedBy: string;
    recordedByName: string;
    centreId?: string;
    relationship?: string;
  },
) {
  await db.run(
    "INSERT INTO patient_consents (id, patient_id, kind, granted, text_version, locale, method, witness_name, recorded_by, recorded_by_name, centre_id, relationship, created_at) VALUES (?, ?, ?, ?, 'facilitated-2026-11', 'hi', ?, ?, ?, ?, ?, ?, ?)",
    hex(),
    patientId,
    c.kind,
    bool(true),
    c.method,
    c.witness ?? null,
    c.recordedBy,
    c.recordedByName,
    c.centreId ?? null,
    c.relationship ?? "",
    now(),
  );
}

const resources = <T extends Resource>(b: Bundle, type: T["resourceType"]) =>
  (b.entry ?? []).map((e: BundleEntry) => e.resource!).filter((r) => r.resourceType === type) as T[];

function expectValid(b: Bundle) {
  const check = checkBundle(b);
  expect(check.errors, JSON.stringify(check.errors, null, 2)).toEqual([]);
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  await signup("mother", "Patient", "Lakshmi");
  await signup("son", "Patient", "Ravi", "Kumar");
  await signup("stranger", "Patient", "Meena");
  await signup("expert", "Expert", "Anil", "Shah");
  expect((await api.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin)).status).toBe(200);
  ids.centre = await makeCentre("Ayushman Arogya Mandir Sinnar");
  ids.otherCentre = await makeCentre("PHC Igatpuri");
  await makeHealthWorker("worker", "Sunita", ids.centre);
  await makeHealthWorker("otherWorker", "Kavita", ids.otherCentre);
  await makeHealthWorker("unapprovedWorker", "Rekha", ids.centre, false);
  // The mother was registered at the centre (witnessed verbal consent), and her son manages her profile.
  await db.run(
    "UPDATE patients SET centre_id = ?, registered_by = ? WHERE id = ?",
    ids.centre,
    ids.worker,
    ids.mother,
  );
  await makeConsent(ids.mother, {
    kind: "facilitated",
    method: "witnessed",
    witness: "Gita Bai",
    recordedBy: ids.worker,
    recordedByName: "Sunita Pawar",
    centreId: ids.centre,
  });
  await makeManager(ids.mother, ids.son, "mother");
  // Her report, reviewed.
  const up = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "Blood Test", phoneNumber: "9876543210", countryCode: "+91", consent: "on" },
      { name: "blood.pdf", data: samplePdf(), type: "application/pdf" },
    ),
    tok.mother,
  );
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  ids.report = up.body.data._id;
  expect((await api.post(`/report/claim/${ids.report}`, {}, tok.expert)).status).toBe(200);
  expect(
    (
      await api.post(
        `/report/add-review/${ids.report}`,
        { review: "Haemoglobin is a little low." },
        tok.expert,
      )
    ).status,
  ).toBe(200);
  // A child without a login, managed by the son (guardian's consent); a centre's patient without a login.
  ids.child = await makeProfile("Anu", { birthYear: 2016 });
  await makeManager(ids.child, ids.son, "daughter");
  await makeConsent(ids.child, {
    kind: "guardian",
    method: "online",
    recordedBy: ids.son,
    recordedByName: "Ravi Kumar",
    relationship: "father",
  });
  ids.centrePatient = await makeProfile("Kamla", { centreId: ids.centre, birthYear: 1950 });
  await makeConsent(ids.centrePatient, {
    kind: "facilitated",
    method: "thumbprint",
    recordedBy: ids.worker,
    recordedByName: "Sunita Pawar",
    centreId: ids.centre,
  });
});

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
});

describe("who can act for the person, and what they did", () => {
  it("lists the family manager and the centre; strangers, experts and admins have no such list", async () => {
    const res = await get("/profile/access", tok.mother);
    expect(res.status).toBe(200);
    const data = json(res).data;
    expect(data.patientId).toBe(ids.mother);
    expect(data.managers).toEqual([
      expect.objectContaining({
        managerId: ids.son,
        firstName: "Ravi",
        lastName: "Kumar",
        relationship: "mother",
      }),
    ]);
    expect(data.centre).toMatchObject({
      _id: ids.centre,
      name: "Ayushman Arogya Mandir Sinnar",
      kind: "hwc",
    });
    expect((await get("/profile/access")).status).toBe(401);
    expect(json(await get("/profile/access", tok.stranger)).data).toMatchObject({
      managers: [],
      centre: null,
    });
    expect((await get("/profile/access", tok.expert)).status).toBe(403);
    expect((await get("/profile/access", tok.worker)).status).toBe(403);
  });

  it("the manager and the health worker act for her, and each step is in her trail in her language", async () => {
    // The son reads her reports, her file and her letter; the health worker reads her reports.
    expect((await get(`/report/get-report-by-patientId/${ids.mother}`, tok.son)).status).toBe(200);
    expect((await get(`/report/${ids.report}/file`, tok.son)).status).toBe(200);
    expect((await get(`/report/${ids.report}/opinion.pdf`, tok.son)).status).toBe(200);
    expect((await get(`/report/get-report-by-patientId/${ids.mother}`, tok.worker)).status).toBe(200);
    expect((await get(`/fhir/Patient/${ids.mother}/$everything`, tok.worker)).status).toBe(200);
    // Not a health worker of another centre, nor one not yet approved, nor a stranger.
    for (const t of [tok.otherWorker, tok.unapprovedWorker, tok.stranger])
      expect((await get(`/report/get-report-by-patientId/${ids.mother}`, t)).status).toBe(403);

    const trail = await get("/profile/access-trail", tok.mother);
    expect(trail.status).toBe(200);
    const texts = json(trail).data.map((e: { text: string }) => e.text);
    expect(texts).toContain("List of reports opened by Ravi Kumar (family)");
    expect(texts).toContain("Report file opened by Ravi Kumar (family)");
    expect(texts).toContain("Opinion letter opened by Ravi Kumar (family)");
    expect(texts).toContain(
      "List of reports opened by Sunita Pawar (health worker, Ayushman Arogya Mandir Sinnar)",
    );
    expect(texts).toContain("Data downloaded by Sunita Pawar (health worker, Ayushman Arogya Mandir Sinnar)");
    expect(json(trail).pagination.total).toBe(texts.length);
    // Her own reading is not in it.
    expect((await get(`/report/get-report-by-patientId/${ids.mother}`, tok.mother)).status).toBe(200);
    expect(json(await get("/profile/access-trail", tok.mother)).pagination.total).toBe(texts.length);
    // In Hindi.
    const hi = await raw(`${server.url}/api/v1/profile/access-trail`, {
      headers: { ...bearer(tok.mother), "accept-language": "hi" },
    });
    expect(json(hi).data.map((e: { text: string }) => e.text)).toContain(
      "Ravi Kumar (परिवार) ने रिपोर्टों की सूची खोली",
    );
    // Paged.
    const page = json(await get("/profile/access-trail?page=2&pageSize=2", tok.mother));
    expect(page.data).toHaveLength(2);
    expect(page.pagination).toMatchObject({ page: 2, pageSize: 2 });
  });

  it("nobody else reads her trail: a stranger, the manager of a person with a login, a health worker", async () => {
    expect((await get("/profile/access-trail")).status).toBe(401);
    for (const t of [tok.stranger, tok.son, tok.worker, tok.expert])
      expect((await get(`/profile/access-trail?patientId=${ids.mother}`, t)).status).toBe(403);
    expect((await get(`/profile/access-trail?patientId=${ids.mother}`, tok.admin)).status).toBe(200);
    expect((await get(`/profile/access-trail?patientId=unknown`, tok.admin)).status).toBe(404);
    expect((await get(`/profile/access-trail?patientId=${"x".repeat(200)}`, tok.mother)).status).toBe(400);
    // A child's trail is read by the parent who manages it.
    expect((await get(`/profile/access-trail?patientId=${ids.child}`, tok.son)).status).toBe(200);
    expect((await get(`/profile/access-trail?patientId=${ids.child}`, tok.stranger)).status).toBe(403);
  });

  it("the consent list shows the facilitated consent with its method and witness (API and My data)", async () => {
    const res = await get("/rights/consents", tok.mother);
    expect(res.status).toBe(200);
    const given = json(res).data.profileConsents;
    expect(given).toEqual([
      expect.objectContaining({
        kind: "facilitated",
        method: "witnessed",
        witnessName: "Gita Bai",
        recordedBy: { _id: ids.worker, name: "Sunita Pawar" },
        centre: { _id: ids.centre, name: "Ayushman Arogya Mandir Sinnar" },
        granted: true,
        evidence: false,
      }),
    ]);
    // The manager reads the child's; a stranger gets nothing.
    const child = json(await get(`/rights/consents?patientId=${ids.child}`, tok.son)).data;
    expect(child.profileConsents).toEqual([
      expect.objectContaining({ kind: "guardian", method: "online", relationship: "father" }),
    ]);
    expect((await get(`/rights/consents?patientId=${ids.child}`, tok.stranger)).status).toBe(403);
    // On My data, the son sees his child's (a member without a login); not his mother's, who has one.
    const son = new Browserish(server.url);
    expect((await son.post("/login", { email: "son@control.test", password: strongPassword })).status).toBe(
      302,
    );
    const childPage = await (await son.fetch(`/dashboard/my-data?patientId=${ids.child}`)).text();
    expect(childPage).toContain("Anu Kumari: consents and access trail");
    expect(childPage).toContain("Guardian&#x27;s consent");
    expect(childPage).toContain("Relationship: father");
    const motherPage = await (await son.fetch(`/dashboard/my-data?patientId=${ids.mother}`)).text();
    expect(withoutPageStrings(motherPage)).not.toContain("consents and access trail");
    expect(motherPage).not.toContain("Gita Bai");

    const browser = new Browserish(server.url);
    expect(
      (await browser.post("/login", { email: "mother@control.test", password: strongPassword })).status,
    ).toBe(302);
    const page = await browser.fetch("/dashboard/my-data");
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("Spoken consent with a witness");
    expect(html).toContain("Witness: Gita Bai");
    expect(html).toContain("Recorded by Sunita Pawar at Ayushman Arogya Mandir Sinnar");
    expect(html).toContain("Who can act for you");
    expect(html).toContain("Ravi Kumar");
    expect(html).toContain(
      "List of reports opened by Sunita Pawar (health worker, Ayushman Arogya Mandir Sinnar)",
    );
  });
});

describe("FHIR export for profiles", () => {
  it("a dependant's export: Patient from the profile, the parent as RelatedPerson, the guardian's consent — valid R4", async () => {
    const res = await get(`/fhir/Patient/${ids.child}/$everything`, tok.son);
    expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
    const b = JSON.parse(res.body.toString("utf8")) as Bundle;
    expectValid(b);
    const [patient] = resources<Patient>(b, "Patient");
    expect(patient.name?.[0]).toMatchObject({ given: ["Anu"], family: "Kumari" });
    expect(patient.gender).toBe("female");
    expect(patient.birthDate).toBe("2016");
    expect(patient.address?.[0]).toMatchObject({ city: "Sinnar", text: "Sinnar" });
    expect(patient.communication?.[0].language.coding?.[0].code).toBe("hi");
    const [parent] = resources<RelatedPerson>(b, "RelatedPerson");
    expect(parent.relationship?.[0].coding?.[0]).toMatchObject({
      system: "http://terminology.hl7.org/CodeSystem/v3-RoleCode",
    });
    expect(["PRN", "FTH", "MTH"]).toContain(parent.relationship?.[0].coding?.[0].code);
    expect(parent.name?.[0].given).toEqual(["Ravi"]);
    const guardian = resources<Consent>(b, "Consent").find((c) =>
      c.category?.some((cat) => cat.coding?.some((x) => x.code === "guardian")),
    );
    expect(guardian).toBeDefined();
    expect(guardian!.status).toBe("active");
    expect(guardian!.performer?.[0].reference).toBe(`urn:uuid:${parent.id}`);
    // Strangers, other centres and experts are refused; the export is in the child's trail.
    expect((await get(`/fhir/Patient/${ids.child}/$everything`, tok.stranger)).status).toBe(403);
    expect((await get(`/fhir/Patient/${ids.child}/$everything`, tok.worker)).status).toBe(403);
    expect((await get(`/fhir/Patient/${ids.child}/$everything`, tok.expert)).status).toBe(403);
    const trail = json(await get(`/profile/access-trail?patientId=${ids.child}`, tok.son)).data;
    expect(trail[0].text).toBe("Data downloaded by Ravi Kumar (family)");
  });

  it("a centre patient's export: the centre as Organization, the facilitated consent — valid R4", async () => {
    const res = await get(`/fhir/Patient/${ids.centrePatient}/$everything`, tok.worker);
    expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
    const b = JSON.parse(res.body.toString("utf8")) as Bundle;
    expectValid(b);
    const centre = resources<Organization>(b, "Organization").find(
      (o) => o.name === "Ayushman Arogya Mandir Sinnar",
    );
    expect(centre).toBeDefined();
    expect(centre!.address?.[0]).toMatchObject({
      district: "Nashik",
      state: "Maharashtra",
      postalCode: "422001",
    });
    const [patient] = resources<Patient>(b, "Patient");
    expect(patient.managingOrganization?.reference).toBe(`urn:uuid:${centre!.id}`);
    const consent = resources<Consent>(b, "Consent").find((c) =>
      c.category?.some((cat) => cat.coding?.some((x) => x.code === "facilitated")),
    );
    expect(consent?.performer?.[0].reference).toBe(`urn:uuid:${centre!.id}`);
    expect(consent?.extension?.find((e) => e.url.endsWith("/consent-method"))?.valueCode).toBe("thumbprint");
    expect((await get(`/fhir/Patient/${ids.centrePatient}/$everything`, tok.otherWorker)).status).toBe(403);
    expect((await get(`/fhir/Patient/${ids.centrePatient}/$everything`, tok.admin)).status).toBe(200);
  });

  it("the mother's export names her son (RelatedPerson) and her facilitated consent with its witness — valid R4", async () => {
    const res = await get(`/fhir/Patient/${ids.mother}/$everything`, tok.mother);
    const b = JSON.parse(res.body.toString("utf8")) as Bundle;
    expect(res.status).toBe(200);
    expectValid(b);
    const [son] = resources<RelatedPerson>(b, "RelatedPerson");
    expect(son.relationship?.[0].coding?.[0].code).toMatch(/^(CHILD|SON|DAU)$/);
    const consent = resources<Consent>(b, "Consent").find((c) =>
      c.category?.some((cat) => cat.coding?.some((x) => x.code === "facilitated")),
    );
    expect(consent?.extension?.find((e) => e.url.endsWith("/consent-witness"))?.valueString).toBe("Gita Bai");
  });
});

describe("sharing for profiles", () => {
  it("the son shares his mother's report; the doctor's page opens it; she sees and may revoke the link", async () => {
    const made = await api.post("/report/share-links", { reportId: ids.report, label: "Dr Joshi" }, tok.son);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = /\/s\/([A-Za-z0-9_-]{43})$/.exec(made.body.data.url)![1];
    // A stranger may not.
    expect((await api.post("/report/share-links", { reportId: ids.report }, tok.stranger)).status).toBe(403);
    // The doctor opens it (no JavaScript: the Open form), and sees the patient's name and the opinion.
    const doctor = new Browserish(server.url);
    expect((await doctor.post(`/s/${token}`, {})).status).toBe(303);
    const page = await doctor.fetch(`/s/${token}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("Lakshmi Devi");
    expect(html).toContain("Haemoglobin is a little low.");
    // The mother sees it among her links; the son sees it too.
    const hers = json(await get(`/report/share-links?reportId=${ids.report}`, tok.mother)).data;
    expect(hers.map((l: { _id: string }) => l._id)).toContain(made.body.data._id);
    const his = json(await get(`/report/share-links`, tok.son)).data;
    expect(his.map((l: { _id: string }) => l._id)).toContain(made.body.data._id);
    expect(json(await get(`/report/share-links`, tok.stranger)).data).toEqual([]);
    const trail = json(await get("/profile/access-trail", tok.mother)).data;
    expect(trail.map((e: { text: string }) => e.text)).toContain("Sharing link made by Ravi Kumar (family)");
    // She revokes it.
    expect((await del(`/report/share-links/${made.body.data._id}`, tok.stranger)).status).toBe(403);
    expect((await del(`/report/share-links/${made.body.data._id}`, tok.mother)).status).toBe(200);
    expect((await doctor.fetch(`/s/${token}`)).status).toBe(410);
  });
});

describe("revoking access", () => {
  it("nobody but the person revokes: strangers, the manager himself, a health worker, an admin", async () => {
    expect((await del(`/profile/access/managers/${ids.son}`)).status).toBe(401);
    expect((await del(`/profile/access/managers/${ids.son}`, tok.stranger)).status).toBe(404);
    expect((await del(`/profile/access/managers/${ids.son}`, tok.son)).status).toBe(404);
    expect((await del(`/profile/access/centre`, tok.worker)).status).toBe(403);
    expect((await del(`/profile/access/centre`, tok.admin)).status).toBe(403);
    expect((await get(`/report/get-report-by-patientId/${ids.mother}`, tok.son)).status).toBe(200);
  });

  it("she revokes her son: from the next request he gets 403 on the list, the file, the letter and the export", async () => {
    const res = await del(`/profile/access/managers/${ids.son}`, tok.mother);
    expect(res.status).toBe(200);
    expect(json(res).data.managers).toEqual([]);
    expect((await get(`/report/get-report-by-patientId/${ids.mother}`, tok.son)).status).toBe(403);
    expect((await get(`/report/${ids.report}/file`, tok.son)).status).toBe(403);
    expect((await get(`/report/${ids.report}/opinion.pdf`, tok.son)).status).toBe(403);
    expect((await get(`/fhir/Patient/${ids.mother}/$everything`, tok.son)).status).toBe(403);
    expect((await api.post("/report/share-links", { reportId: ids.report }, tok.son)).status).toBe(403);
    // Again: nothing left to revoke.
    expect((await del(`/profile/access/managers/${ids.son}`, tok.mother)).status).toBe(404);
    // The trail says so.
    const trail = json(await get("/profile/access-trail", tok.mother)).data;
    expect(trail[0].text).toBe("Access of Ravi Kumar ended by you");
    // His own child is still his.
    expect((await get(`/fhir/Patient/${ids.child}/$everything`, tok.son)).status).toBe(200);
  });

  it("she revokes the centre on My data (no JavaScript: Revoke, then confirm); its health worker gets 403 at once", async () => {
    expect((await get(`/report/get-report-by-patientId/${ids.mother}`, tok.worker)).status).toBe(200);
    const browser = new Browserish(server.url);
    expect(
      (await browser.post("/login", { email: "mother@control.test", password: strongPassword })).status,
    ).toBe(302);
    const ask = await browser.fetch("/dashboard/my-data?revoke=centre");
    const html = await ask.text();
    expect(html).toContain("Revoke Ayushman Arogya Mandir Sinnar");
    expect(html).toContain('name="intent" value="revoke-centre"');
    const done = await browser.post("/dashboard/my-data", { intent: "revoke-centre" });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toContain("/dashboard/my-data#access");
    expect((await get(`/report/get-report-by-patientId/${ids.mother}`, tok.worker)).status).toBe(403);
    expect((await get(`/report/${ids.report}/file`, tok.worker)).status).toBe(403);
    expect((await get(`/report/${ids.report}/opinion.pdf`, tok.worker)).status).toBe(403);
    expect((await get(`/fhir/Patient/${ids.mother}/$everything`, tok.worker)).status).toBe(403);
    expect(json(await get("/profile/access", tok.mother)).data).toMatchObject({ managers: [], centre: null });
    const page = await (await browser.fetch("/dashboard/my-data")).text();
    expect(page).toContain("Nobody else can act for you");
    expect(page).toContain("Access of Ayushman Arogya Mandir Sinnar ended by you");
    // Again: nothing to revoke, a toast not an error page.
    expect((await browser.post("/dashboard/my-data", { intent: "revoke-centre" })).status).toBe(302);
    expect((await del(`/profile/access/centre`, tok.mother)).status).toBe(404);
    // The centre's other patient stays the centre's.
    expect((await get(`/fhir/Patient/${ids.centrePatient}/$everything`, tok.worker)).status).toBe(200);
  });
});
