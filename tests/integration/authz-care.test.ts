import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * The authorization matrix for the people who act for someone else (decision 0030): an approved
 * health worker of centre A, a health worker of centre B, a health worker awaiting approval, and a
 * family account that manages a dependant — against a patient registered at centre A (`:cp`, with
 * a report `:cr`) and the dependant (`:dep`, with a report `:dr`). Every /api/v1 endpoint that
 * reads or acts on a patient's data, and the screens. tests/integration/authz-matrix.test.ts keeps
 * the table for patients, experts and admins; this one adds the care roles. One readable table: a
 * change in who may act for whom fails here.
 */
type Role = "worker" | "otherWorker" | "pendingWorker" | "manager";
const ROLES: Role[] = ["worker", "otherWorker", "pendingWorker", "manager"];
type Want = number | "skip";
/** route, then the answer for [worker, otherWorker, pendingWorker, manager]. */
type Row = [route: string, want: [Want, Want, Want, Want], body?: () => unknown];

// Bodies are JSON unless the row's route is an upload (multipart, built below).
const API: Row[] = [
  ["GET /profile/get-user-details", [200, 200, 200, 200]],
  // A patient's reports: the centre's own workers for its patients, the manager for the dependant.
  ["GET /report/get-report-by-patientId/:cp", [200, 403, 403, 403]],
  ["GET /report/get-report-by-patientId/:dep", [403, 403, 403, 200]],
  ["GET /report/get-report-by-patientId/:manager", [403, 403, 403, 200]],
  ["GET /report/:cr/file", [200, 403, 403, 403]],
  ["GET /report/:dr/file", [403, 403, 403, 200]],
  // Not reviewed yet: those allowed hear so (404), the rest are refused.
  ["GET /report/:cr/opinion.pdf", [404, 403, 403, 403]],
  ["GET /report/:dr/opinion.pdf", [403, 403, 403, 404]],
  // Lab values (decision 0084): whoever may read the report sees the checked ones; only the expert holding it checks.
  ["GET /report/:cr/observations", [200, 403, 403, 403]],
  ["GET /report/:dr/observations", [403, 403, 403, 200]],
  [
    "POST /report/:dr/observations",
    [403, 403, 403, 403],
    () => ({ loinc: "718-7", value: 9.8, unit: "g/dL" }),
  ],
  ["PATCH /report/:cr/observations/none", [403, 403, 403, 403], () => ({ action: "confirm" })],
  ["GET /report/get-report-by-expertId", [403, 403, 403, 403]],
  ["GET /report/get-pending-reports", [403, 403, 403, 403]],
  ["GET /report/get-all-reviewed-reports", [403, 403, 403, 403]],
  ["POST /report/add-review/:cr", [403, 403, 403, 403], () => ({ review: "ok" })],
  ["POST /report/claim/:cr", [403, 403, 403, 403]],
  // Follow-ups wait for the opinion: the allowed are told that (409), the others refused.
  ["POST /report/follow-up/:cr", [409, 403, 403, 403], () => ({ question: "Is it serious?" })],
  ["POST /report/follow-up/:dr", [403, 403, 403, 409], () => ({ question: "Is it serious?" })],
  // Uploads name whose report it is; someone one may not act for is a field error.
  ["POST /report/upload-report?for=:cp", [201, 400, 403, 400]],
  ["POST /report/upload-report?for=:dep", [400, 400, 403, 201]],
  // Deleting succeeds once: those allowed delete a report of their own (skip: not asked).
  ["DELETE /report/delete-report", ["skip", 403, 403, 403], () => ({ reportId: ids.cr })],
  ["DELETE /report/delete-report", [200, "skip", "skip", "skip"], () => ({ reportId: ids.cr2 })],
  ["DELETE /report/delete-report", [403, 403, 403, "skip"], () => ({ reportId: ids.dr })],
  ["DELETE /report/delete-report", ["skip", "skip", "skip", 200], () => ({ reportId: ids.dr2 })],
  // The centre's patients: its approved workers only (another centre sees its own, empty, list).
  ["GET /centre/patients", [200, 200, 403, 403]],
  ["POST /centre/patients", [400, 400, 403, 403]],
  ["GET /centre/patients/:cp", [200, 403, 403, 403]],
  ["GET /centre/patients/:dep", [403, 403, 403, 200]],
  // The worklist of next steps (decision 0114): the centre's approved workers; closing a step that is
  // not there: not found for a worker, refused for anyone else.
  ["GET /centre/steps", [200, 200, 403, 403]],
  ["GET /centre/steps?when=overdue", [200, 200, 403, 403]],
  ["POST /centre/steps/none/state", [404, 404, 403, 403], () => ({ state: "done" })],
  ["GET /steps/none/referral.pdf", [404, 404, 404, 404]],
  // The family: patient accounts only.
  ["GET /family/members", [403, 403, 403, 200]],
  ["POST /family/members", [403, 403, 403, 400], () => ({})],
  // Sharing is the person's or their family's, never a centre's.
  ["GET /report/share-links", [403, 403, 403, 200]],
  ["POST /report/share-links", [403, 403, 403, 403], () => ({ reportId: ids.cr })],
  ["POST /report/share-links?dep", [403, 403, 403, 201], () => ({ reportId: ids.dr })],
  // The record as FHIR: anyone who may act for the profile.
  ["GET /fhir/Patient/:cp/$everything", [200, 403, 403, 403]],
  ["GET /fhir/Patient/:dep/$everything", [403, 403, 403, 200]],
  // The person's own controls: who can act for them and their trail (a manager reads a dependant's).
  ["GET /profile/access", [403, 403, 403, 200]],
  ["GET /profile/access-trail?patientId=:cp", [403, 403, 403, 403]],
  ["GET /profile/access-trail?patientId=:dep", [403, 403, 403, 200]],
  ["GET /rights/consents?patientId=:dep", [403, 403, 403, 200]],
  ["GET /rights/consents?patientId=:cp", [403, 403, 403, 403]],
  // Admins' work stays admins'.
  ["GET /centres", [403, 403, 403, 403]],
  ["GET /centres/:centre", [403, 403, 403, 403]],
  ["GET /centres/:centre/stats", [403, 403, 403, 403]],
  ["GET /centres/:centre/overdue", [403, 403, 403, 403]],
  ["GET /health-workers", [403, 403, 403, 403]],
  ["POST /health-workers/:otherWorker/approve", [403, 403, 403, 403]],
  ["PATCH /health-workers/:otherWorker", [403, 403, 403, 403], () => ({ suspended: true })],
  ["GET /expert/get-pending-expert", [403, 403, 403, 403]],
  ["GET /admin/get-contact-messages", [403, 403, 403, 403]],
  ["GET /admin/rights-requests", [403, 403, 403, 403]],
  ["GET /centres/directory", [200, 200, 200, 200]],
];

const SCREENS: Row[] = [
  ["/dashboard/home", [200, 200, 200, 200]],
  ["/dashboard/centre", [200, 200, 403, 403]],
  ["/dashboard/centre/register", [200, 200, 403, 403]],
  ["/dashboard/centre/steps", [200, 200, 403, 403]],
  // One patient's screens: not found for anyone who may not act for them (nothing is revealed).
  ["/dashboard/centre/patients/:cp", [200, 404, 404, 404]],
  ["/dashboard/centre/patients/:cp/slip", [200, 404, 404, 404]],
  // The report list: a patient account is told it is not theirs (403, as for other patients).
  ["/dashboard/previous-report/:cp", [200, 404, 404, 403]],
  ["/dashboard/previous-report/:dep", [404, 404, 404, 200]],
  ["/dashboard/upload-report", [200, 200, 403, 200]],
  ["/dashboard/family", [403, 403, 403, 200]],
  ["/dashboard/my-data", [200, 200, 200, 200]],
  ["/dashboard/centres", [404, 404, 404, 404]],
  ["/dashboard/centres/workers", [404, 404, 404, 404]],
  ["/dashboard/pending-report", [404, 404, 404, 404]],
];

const ADMIN = { email: "admin@care-matrix.test", password: "Admin-pass-123" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const tok: Partial<Record<Role | "admin", string>> = {};
const emails: Record<Role, string> = {
  worker: "worker@care-matrix.test",
  otherWorker: "other.worker@care-matrix.test",
  pendingWorker: "pending.worker@care-matrix.test",
  manager: "manager@care-matrix.test",
};
const ids: Record<string, string> = {};
const browsers: Partial<Record<Role, Browserish>> = {};

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  const api = apiClient(server.url);
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  const centre = async (name: string) =>
    (
      await api.post(
        "/centres",
        { name, kind: "hwc", district: "Hosur", state: "Tamil Nadu", pinCode: "635109" },
        tok.admin,
      )
    ).body.data._id as string;
  ids.centre = await centre("Ayushman Arogya Mandir, Rampur");
  ids.otherCentre = await centre("PHC Bagalur");
  const worker = async (role: Role, centreId: string, approve: boolean) => {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: emails[role],
      firstName: "Sunita",
      extra: { accountType: "HealthWorker", centreId, workerRole: "cho", workerId: "CHO-1" } as never,
    });
    tok[role] = r.token;
    ids[role] = r.user._id;
    if (approve)
      expect(
        (await api.raw("POST", `/health-workers/${r.user._id}/approve`, undefined, tok.admin)).status,
      ).toBe(200);
  };
  await worker("worker", ids.centre, true);
  await worker("otherWorker", ids.otherCentre, true);
  await worker("pendingWorker", ids.centre, false);
  const m = await signupViaApi(api, smtp, codeFrom, { email: emails.manager, firstName: "Ramesh" });
  tok.manager = m.token;
  ids.manager = m.user._id;

  // A patient registered at centre A (verbal consent), and a report filed for her by the worker.
  const registered = await api.call(
    "POST",
    "/centre/patients",
    uploadForm({
      firstName: "Kamla",
      sex: "female",
      age: "72",
      locality: "Rampur",
      preferredLanguage: "hi",
      phoneOwner: "none",
      consent: "granted",
      consentMethod: "verbal",
    }) as never,
    tok.worker,
  );
  expect(registered.status).toBe(201);
  ids.cp = registered.body.data._id;
  const upload = (patientId: string, token: string) =>
    api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "ECG", phoneNumber: "9876543210", patientId },
        { name: "a.pdf", data: samplePdf() },
      ) as never,
      token,
    );
  ids.cr = (await upload(ids.cp, tok.worker!)).body.data._id;
  ids.cr2 = (await upload(ids.cp, tok.worker!)).body.data._id;
  // A dependant of the family account, with the report the manager filed.
  const dep = await api.post(
    "/family/members",
    {
      firstName: "Meena",
      sex: "female",
      age: 30,
      relationship: "daughter",
      preferredLanguage: "hi",
      memberConsent: true,
    },
    tok.manager,
  );
  expect(dep.status).toBe(201);
  ids.dep = dep.body.data._id;
  ids.dr = (await upload(ids.dep, tok.manager!)).body.data._id;
  ids.dr2 = (await upload(ids.dep, tok.manager!)).body.data._id;
  for (const k of ["cr", "cr2", "dr", "dr2"]) expect(ids[k], k).toBeTruthy();

  for (const role of ROLES) {
    const b = new Browserish(server.url);
    const res = await b.post("/login", { email: emails[role], password: strongPassword });
    expect([302, 303]).toContain(res.status);
    browsers[role] = b;
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const fill = (route: string) => route.replace(/:(\w+)/g, (_, k) => ids[k]);

describe("care roles × /api/v1", () => {
  it.each(
    API.flatMap((row) =>
      ROLES.map((role, i) => [row[0], role, row[1][i], row[2]] as const).filter(
        ([, , want]) => want !== "skip",
      ),
    ),
  )("%s as %s → %s", async (route, role, want, body) => {
    const [method, raw] = route.split(" ");
    const headers: Record<string, string> = { Authorization: `Bearer ${tok[role]}` };
    let p = fill(raw);
    let payload: BodyInit | undefined;
    if (p.startsWith("/report/upload-report")) {
      const patientId = new URL(p, "http://x").searchParams.get("for")!;
      p = "/report/upload-report";
      payload = uploadForm(
        { reportType: "ECG", phoneNumber: "9876543210", patientId },
        { name: "a.pdf", data: samplePdf() },
      );
    } else if (body) {
      payload = JSON.stringify(body());
      headers["Content-Type"] = "application/json";
    } else if (method !== "GET") {
      payload = "{}";
      headers["Content-Type"] = "application/json";
    }
    if (p === "/report/share-links?dep") p = "/report/share-links";
    const res = await fetch(`${server.url}/api/v1${p}`, { method, headers, body: payload });
    expect(res.status).toBe(want);
  });
});

describe("care roles × screens", () => {
  it.each(SCREENS.flatMap((row) => ROLES.map((role, i) => [row[0], role, row[1][i]] as const)))(
    "%s as %s → %s",
    async (route, role, want) => {
      const res = await browsers[role]!.fetch(fill(route));
      expect(res.status).toBe(want);
    },
  );
});
