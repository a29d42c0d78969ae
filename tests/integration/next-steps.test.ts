import type { Bundle, CarePlan, ServiceRequest } from "@medplum/fhirtypes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupPeople, uploadSamplePdf } from "../helpers/api";
import { checkBundle } from "../helpers/fhir-validate";
import { raw } from "../helpers/raw";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * An opinion's next steps over HTTP (decision 0114): given with add-review and signed with it,
 * in the report JSON for the patient and the expert who gave them (not for others), closed with
 * POST /steps/{stepId}/state by the patient's side or that expert (anyone else: not found), and a
 * CarePlan with a ServiceRequest per step in the FHIR export.
 */

const ADMIN = { email: "admin@steps.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

const HBA1C = "4548-4";
const STEPS = [
  { kind: "tests", loincs: [HBA1C], in: 3, unit: "weeks" },
  { kind: "specialist", specialty: "Cardiology", urgency: "weeks", weeks: 2 },
  {
    kind: "facility",
    facility: "District Hospital Hosur",
    urgency: "today",
    reason: "Chest pain on walking",
  },
];

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  await signupPeople(
    api,
    smtp,
    codeFrom,
    "steps.test",
    [
      ["patient", "Patient"],
      ["other", "Patient"],
      ["expert", "Expert"],
      ["colleague", "Expert"],
      ["unapproved", "Expert"],
    ],
    { tok, ids },
  );
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  for (const e of ["expert", "colleague"])
    expect((await api.post("/expert/approve-expert", { expertId: ids[e] }, tok.admin)).status).toBe(200);
  ids.report = (await uploadSamplePdf(api, tok.patient)).body.data._id;
  ids.refused = (await uploadSamplePdf(api, tok.patient)).body.data._id;
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const review = (reportId: string, body: unknown, token = tok.expert) =>
  api.post(`/report/add-review/${reportId}` as "/report/add-review/{reportId}", body as never, token);
const setState = (stepId: string, body: unknown, token?: string) =>
  raw(`${server.url}/api/v1/steps/${encodeURIComponent(stepId)}/state`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const json = (res: { body: Buffer }) => JSON.parse(res.body.toString("utf8"));
const patientReports = async (token = tok.patient) =>
  (await api.get(`/report/get-report-by-patientId/${ids.patient}` as never, token)).body.data;

describe("next steps given with add-review", () => {
  it("a step the domain refuses is named as zod names it, and nothing is signed", async () => {
    const res = await review(ids.refused, {
      review: "ok",
      nextSteps: [{ kind: "tests", loincs: ["99999-9"], in: 2, unit: "weeks" }, { kind: "facility" }],
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(
      expect.arrayContaining(["nextSteps.1.reason", "nextSteps.1.urgency"]),
    );
    const unknown = await review(ids.refused, {
      review: "ok",
      nextSteps: [{ kind: "tests", loincs: ["99999-9"], in: 2, unit: "weeks" }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors["nextSteps.0.loincs"]).toEqual(["That test is not in the lab catalogue."]);
    const nine = await review(ids.refused, {
      review: "ok",
      nextSteps: Array.from({ length: 9 }, () => STEPS[1]),
    });
    expect(nine.status).toBe(400);
    expect(nine.body.errors.nextSteps).toBeTruthy();
    const list = await patientReports();
    expect(list.find((r: { _id: string }) => r._id === ids.refused).status).toBe("Pending");
  });

  it("signed with the review, they come back in its answer in the expert's order", async () => {
    const res = await review(ids.report, { review: "Sugar is high", nextSteps: STEPS });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const steps = res.body.data.nextSteps;
    expect(steps.map((s: { kind: string }) => s.kind)).toEqual(["tests", "specialist", "facility"]);
    expect(steps[0].tests).toEqual([{ loinc: HBA1C, name: expect.any(String) }]);
    expect(steps[0].inDays).toBe(21);
    expect(steps[1]).toMatchObject({ specialty: "Cardiology", urgency: "weeks", inDays: 14, state: "open" });
    expect(steps[2].referral.code).toMatch(/^R-[2-9A-Z]{4}-[2-9A-Z]{4}$/);
    expect(steps[0].dueOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    ids.tests = steps[0]._id;
    ids.specialist = steps[1]._id;
    ids.facility = steps[2]._id;
  });

  it("are in the report JSON for the patient and the expert who gave them; not for admins or the unapproved", async () => {
    const mine = (await patientReports()).find((r: { _id: string }) => r._id === ids.report);
    expect(mine.nextSteps.map((s: { _id: string }) => s._id)).toEqual([
      ids.tests,
      ids.specialist,
      ids.facility,
    ]);
    const expertList = (await api.get("/report/get-report-by-expertId", tok.expert)).body.data;
    expect(expertList.find((r: { _id: string }) => r._id === ids.report).nextSteps).toHaveLength(3);
    const adminList = (await api.get("/report/get-all-reviewed-reports", tok.admin)).body.data;
    expect(adminList.find((r: { _id: string }) => r._id === ids.report).nextSteps).toBeUndefined();
    const pending = await patientReports();
    expect(pending.find((r: { _id: string }) => r._id === ids.refused).nextSteps).toBeUndefined();
  });
});

describe("POST /api/v1/steps/{stepId}/state", () => {
  it("the patient marks a step done, and her list says so", async () => {
    const res = await setState(ids.tests, { state: "done" }, tok.patient);
    expect(res.status).toBe(200);
    expect(json(res).data).toMatchObject({ _id: ids.tests, state: "done" });
    const mine = (await patientReports()).find((r: { _id: string }) => r._id === ids.report);
    expect(mine.nextSteps[0].state).toBe("done");
  });

  it('"I cannot go" needs the reason', async () => {
    const bare = await setState(ids.facility, { state: "declined" }, tok.patient);
    expect(bare.status).toBe(400);
    expect(json(bare).errors.reason).toEqual(["Say why she cannot go."]);
    const res = await setState(ids.facility, { state: "declined", reason: "No bus on Sundays" }, tok.patient);
    expect(res.status).toBe(200);
    expect(json(res).data).toMatchObject({ state: "declined", stateReason: "No bus on Sundays" });
  });

  it("the patient may not say visited; the expert who asked may close a step", async () => {
    const visited = await setState(ids.specialist, { state: "visited" }, tok.patient);
    expect(visited.status).toBe(400);
    expect(json(visited).errors.state).toBeTruthy();
    const res = await setState(ids.specialist, { state: "unreachable" }, tok.expert);
    expect(res.status).toBe(200);
    const again = await setState(ids.specialist, { state: "open" }, tok.expert);
    expect(json(again).data.state).toBe("open");
  });

  it("anyone else, and an unknown step, get the same not-found answer", async () => {
    const answers = await Promise.all([
      setState(ids.specialist, { state: "done" }, tok.other),
      setState(ids.specialist, { state: "done" }, tok.unapproved),
      setState(ids.specialist, { state: "done" }, tok.colleague),
      setState(ids.specialist, { state: "done" }, tok.admin),
      setState("no-such-step", { state: "done" }, tok.patient),
      setState("x".repeat(500), { state: "done" }, tok.patient),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(json(res).message).toBe("That next step was not found.");
    }
    expect((await setState(ids.specialist, { state: "done" })).status).toBe(401);
  });

  it("junk is a 400 naming the field, never 5xx", async () => {
    for (const body of [
      {},
      { state: "gone" },
      { state: 3 },
      { state: "declined", reason: "x".repeat(301) },
      [],
    ]) {
      const res = await setState(ids.specialist, body, tok.patient);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(json(res).success).toBe(false);
    }
    const cut = await setState(ids.specialist, '{"state": "do', tok.patient);
    expect(cut.status).toBe(400);
  });
});

describe("the patient's screen and the FHIR export", () => {
  it("her report card reads the steps in her language, and she marks one done without script", async () => {
    const b = new Browserish(server.url);
    const login = await b.post("/login", { email: "patient@steps.test", password: "Sturdy-pass-2026" });
    expect(login.status).toBe(302);
    const path = `/dashboard/previous-report/${ids.patient}`;
    const hindi = b.inLanguage("hi");
    const page = pageText(await (await hindi.fetch(path)).text());
    expect(page).toContain("अगले कदम");
    expect(page).toContain("ये जाँचें दोबारा कराएँ: तीन महीने की औसत शुगर");
    expect(page).toContain("विशेषज्ञ को दिखाएँ: हृदय रोग (कार्डियोलॉजी)");
    // The facility's name and the reason as the expert wrote them; the referral code.
    expect(page).toContain("District Hospital Hosur जाएँ");
    expect(page).toContain("क्यों: Chest pain on walking");
    expect(page).toContain("नहीं जा सकतीं");
    const done = await b.post(path, {
      intent: "step-state",
      reportId: ids.report,
      stepId: ids.specialist,
      state: "done",
    });
    expect(done.status).toBe(302);
    const mine = (await patientReports()).find((r: { _id: string }) => r._id === ids.report);
    expect(mine.nextSteps[1].state).toBe("done");
    // Another patient's step through her own page: refused, nothing changes.
    const o = new Browserish(server.url);
    await o.post("/login", { email: "other@steps.test", password: "Sturdy-pass-2026" });
    const refused = await o.post(`/dashboard/previous-report/${ids.other}`, {
      intent: "step-state",
      reportId: ids.report,
      stepId: ids.facility,
      state: "open",
    });
    expect(refused.status).toBe(302);
    const after = (await patientReports()).find((r: { _id: string }) => r._id === ids.report);
    expect(after.nextSteps[2].state).toBe("declined");
    // Open again, for the export below.
    expect((await setState(ids.specialist, { state: "open" }, tok.patient)).status).toBe(200);
  });

  // Last: validating the Bundle holds this process for seconds, long enough for the server to close
  // an idle kept-alive connection under a later request.
  it("a CarePlan per opinion with a ServiceRequest per step, valid FHIR R4", async () => {
    const res = await raw(`${server.url}/api/v1/fhir/Patient/${ids.patient}/$everything`, {
      headers: { authorization: `Bearer ${tok.patient}` },
    });
    expect(res.status).toBe(200);
    const bundle = JSON.parse(res.body.toString("utf8")) as Bundle;
    const check = checkBundle(bundle);
    expect(check.errors).toEqual([]);
    const of = <T>(type: string) =>
      (bundle.entry ?? []).map((e) => e.resource!).filter((r) => r.resourceType === type) as T[];
    const [plan] = of<CarePlan>("CarePlan");
    expect(plan.activity).toHaveLength(3);
    const requests = of<ServiceRequest>("ServiceRequest");
    expect(requests.map((r) => r.status)).toEqual(["completed", "active", "revoked"]);
    expect(requests[0].code!.coding![0]).toMatchObject({ system: "http://loinc.org", code: HBA1C });
    expect(requests[1].code!.text).toBe("Cardiology");
    expect(requests[2].reasonCode![0].text).toBe("Chest pain on walking");
    expect(requests[2].occurrenceDateTime).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
