import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword, type ApiBody } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * A second opinion from another specialty (decision 0038) over HTTP against the built app and a
 * real database (SQLite, or PostgreSQL + S3 with TEST_BACKEND=pg-s3): who may ask, the routing to
 * the specialty asked, the second expert's agreement, what the patient sees, the letter, /verify,
 * follow-ups to the expert the patient picks, and turnaround counting the whole case.
 */

const ADMIN = { email: "admin@panel.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

const expertExtra = (
  specialties: NonNullable<ApiBody<"post", "/auth/signup">["specialties"]>,
  reg: string,
) => ({
  specialties,
  registrationNumber: reg,
  registrationCouncil: "National Medical Commission",
  yearsOfPractice: 9,
});

async function signup(
  key: string,
  accountType: "Patient" | "Expert",
  extra?: Record<string, unknown>,
  firstName = key,
) {
  const r = await signupViaApi(api, smtp, codeFrom, {
    email: `${key.toLowerCase()}@panel.test`,
    accountType,
    firstName,
    lastName: "Test",
    extra,
  });
  tok[key] = r.token;
  ids[key] = r.user._id;
}

const upload = (token: string, reportType: string) =>
  api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      {
        reportType,
        phoneNumber: "9876543210",
        countryCode: "+91",
        urgent: "true",
        urgentReason: "Chest pain",
      },
      { name: "ecg.pdf", data: samplePdf(), type: "application/pdf" },
    ),
    token,
  );
const ask = (reportId: string, token: string | undefined, body: Record<string, unknown>) =>
  // Bodies are sent as given, wrong ones included.
  api.post(`/report/second-opinion/${reportId}`, body as never, token);
const REVIEW = { review: "Fast but regular heartbeat.", findings: "Sinus tachycardia at 112/min." };

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  await signup("patient", "Patient", undefined, "Asha");
  await signup("other", "Patient");
  await signup("cardio", "Expert", expertExtra(["Cardiology"], "TNMC-3003"), "Kumar");
  await signup("cardio2", "Expert", expertExtra(["Cardiology"], "TNMC-3004"), "Meena");
  await signup("radio", "Expert", expertExtra(["Radiology"], "KMC-1001"), "Ravi");
  await signup("radio2", "Expert", expertExtra(["Radiology", "Cardiology"], "KMC-1002"), "Lata");
  await signup("newbie", "Expert", expertExtra(["Radiology"], "KMC-1003"), "Nina");
  for (const k of ["cardio", "cardio2", "radio", "radio2"]) {
    expect((await api.post("/expert/approve-expert", { expertId: ids[k] }, tok.admin)).status).toBe(200);
  }
  const up = await upload(tok.patient, "ECG");
  expect(up.status).toBe(201);
  ids.ecg = up.body.data._id;
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("asking for a second opinion", () => {
  it("only the expert holding or who wrote the first opinion, or an admin, may ask", async () => {
    const body = { specialty: "Radiology", note: "Please look at the axis." };
    expect((await ask(ids.ecg, undefined, body)).status).toBe(401);
    expect((await ask(ids.ecg, tok.patient, body)).status).toBe(403);
    expect((await ask(ids.ecg, tok.other, body)).status).toBe(403);
    expect((await ask(ids.ecg, tok.newbie, body)).status).toBe(403);
    // Before anyone claims it, no expert is the first one.
    expect((await ask(ids.ecg, tok.cardio, body)).status).toBe(403);
    expect((await api.post(`/report/claim/${ids.ecg}`, {}, tok.cardio)).status).toBe(200);
    // Another expert who does not hold it.
    const refused = await ask(ids.ecg, tok.cardio2, body);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/Only the expert reviewing this report/);
    expect((await ask("no-such-report", tok.admin, body)).status).toBe(404);
  });

  it("refuses the first opinion's own specialty, a specialty without experts, a missing note and bad bodies", async () => {
    const same = await ask(ids.ecg, tok.cardio, { specialty: "Cardiology", note: "Again" });
    expect(same.status).toBe(400);
    expect(same.body.errors.specialty[0]).toMatch(/other than the first opinion/);
    const nobody = await ask(ids.ecg, tok.cardio, { specialty: "Dentistry", note: "Teeth?" });
    expect(nobody.status).toBe(400);
    expect(nobody.body.errors.specialty[0]).toMatch(/No approved expert of this specialty/);
    const noNote = await ask(ids.ecg, tok.cardio, { specialty: "Radiology", note: " " });
    expect(noNote.status).toBe(400);
    expect(noNote.body.errors.note).toBeTruthy();
    expect((await ask(ids.ecg, tok.cardio, { specialty: "Astrology", note: "x" })).status).toBe(400);
    const cut = await raw(`${server.url}/api/v1/report/second-opinion/${ids.ecg}`, {
      method: "POST",
      headers: { authorization: `Bearer ${tok.cardio}`, "content-type": "application/json" },
      body: '{"specialty":"Radio',
    });
    expect(cut.status).toBe(400);
  });

  it("the claiming expert asks before writing; two simultaneous requests file one; the same request again is refused", async () => {
    const body = { specialty: "Radiology", note: "Please look at the axis." };
    const [a, b] = await Promise.all([ask(ids.ecg, tok.cardio, body), ask(ids.ecg, tok.cardio, body)]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const made = a.status === 201 ? a : b;
    ids.second = made.body.data._id;
    expect(made.body.data).toMatchObject({
      secondOf: ids.ecg,
      secondSpecialty: "Radiology",
      secondNote: "Please look at the axis.",
      status: "Pending",
      urgent: true,
      reportType: "ECG",
      agreement: null,
    });
    expect((await ask(ids.ecg, tok.admin, body)).status).toBe(409);
    // A second opinion is not a case of its own.
    expect((await ask(ids.second, tok.admin, { specialty: "Neurology", note: "x" })).status).toBe(400);
  });
});

describe("giving it", () => {
  it("is in the pending queue of the specialty asked, first for its experts", async () => {
    const mine = await api.get("/report/get-pending-reports?match=only&pageSize=50", tok.radio);
    expect(mine.status).toBe(200);
    const found = mine.body.data.find((r: { _id: string }) => r._id === ids.second);
    expect(found).toMatchObject({ matchesSpecialties: true, secondOf: ids.ecg });
    // The cardiologists' own queue holds the first report, not the second opinion.
    const theirs = await api.get("/report/get-pending-reports?match=only&pageSize=50", tok.cardio2);
    const theirIds = theirs.body.data.map((r: { _id: string }) => r._id);
    expect(theirIds).toContain(ids.ecg);
    expect(theirIds).not.toContain(ids.second);
    expect(theirs.body.pagination.total).toBe(theirs.body.data.length);
    // Everyone's whole queue (the contract's default) holds both.
    const all = await api.get("/report/get-pending-reports?pageSize=50", tok.admin);
    expect(all.body.data.map((r: { _id: string }) => r._id)).toEqual(
      expect.arrayContaining([ids.ecg, ids.second]),
    );
  });

  it("an expert of another specialty cannot claim it; nor can the first expert, even with that specialty", async () => {
    const wrong = await api.post(`/report/claim/${ids.second}`, {}, tok.cardio2);
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toMatch(/another specialty/);
    expect((await api.post(`/report/claim/${ids.second}`, {}, tok.cardio)).status).toBe(403);
    expect(
      (
        await api.post(
          `/report/add-review/${ids.second}`,
          { ...REVIEW, agreement: "agree", agreementReason: "x" },
          tok.cardio,
        )
      ).status,
    ).toBe(403);
  });

  it("the first opinion has no agreement; the first expert writes it", async () => {
    const withAgreement = await api.post(
      `/report/add-review/${ids.ecg}`,
      { ...REVIEW, agreement: "agree" },
      tok.cardio,
    );
    expect(withAgreement.status).toBe(400);
    const first = await api.post(`/report/add-review/${ids.ecg}`, REVIEW, tok.cardio);
    expect(first.status).toBe(200);
    expect(first.body.data.agreement).toBeNull();
  });

  it("the second expert claims it, reads the first opinion and must give agreement and reason", async () => {
    const claimed = await api.post(`/report/claim/${ids.second}`, {}, tok.radio);
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.firstOpinion).toMatchObject({ _id: ids.ecg, review: REVIEW.review });
    expect(claimed.body.data.firstOpinion.expert).toMatchObject({ firstName: "Kumar" });
    // The review screen shows the request and the first opinion, labelled, and asks for agreement.
    const b = new Browserish(server.url);
    await b.post("/login", { email: "radio@panel.test", password: strongPassword });
    const page = (await (await b.fetch(`/dashboard/add-review/${ids.second}`)).text()).replace(
      /&#x27;|&#39;/g,
      "'",
    );
    expect(page).toContain("A second opinion asked from Radiology");
    expect(page).toContain("Please look at the axis.");
    expect(page).toContain("First opinion — Dr Kumar Test (Cardiology)");
    expect(page).toContain(REVIEW.review);
    expect(page).toMatch(/type="radio" name="agreement" value="partly"|name="agreement" [^>]*value="partly"/);
    // Form posts reach the same rule: no agreement, no review.
    const noAgreement = await b.post(`/dashboard/add-review/${ids.second}`, {
      intent: "review",
      review: "x",
    });
    expect(noAgreement.status).toBe(400);
    const none = await api.post(`/report/add-review/${ids.second}`, REVIEW, tok.radio);
    expect(none.status).toBe(400);
    expect(Object.keys(none.body.errors).sort()).toEqual(["agreement", "agreementReason"]);
    const bad = await api.post(
      `/report/add-review/${ids.second}`,
      { ...REVIEW, agreement: "maybe" as never, agreementReason: "x" },
      tok.radio,
    );
    expect(bad.status).toBe(400);
    const given = await api.post(
      `/report/add-review/${ids.second}`,
      {
        review: "The rhythm is regular; the axis is borderline.",
        agreement: "partly",
        agreementReason: "the axis deserves an echo",
      },
      tok.radio,
    );
    expect(given.status).toBe(200);
    expect(given.body.data).toMatchObject({
      agreement: "partly",
      agreementReason: "the axis deserves an echo",
    });
    // The patient is told, as for the first opinion: two "reviewed" mails, never the content.
    const told = () =>
      smtp.mails.filter((m) => m.to.includes("patient@panel.test") && /has been reviewed/.test(m.subject));
    await expect.poll(() => told().length, { timeout: 5000 }).toBe(2);
    expect(told().some((m) => m.raw.includes("axis"))).toBe(false);
    // Reading the first opinion was recorded like a file opening.
    const db = await openTestDb(server.dataDir);
    const n = (await db.get<{ n: number }>(
      "select count(*) as n from audit_events where action = 'report.first_opinion_open' and subject_id = ?",
      ids.ecg,
    ))!.n;
    await db.close();
    expect(Number(n)).toBeGreaterThanOrEqual(1);
  });
});

describe("what the patient sees", () => {
  it("one case in their list, with both opinions; the counts are unchanged", async () => {
    // The second expert opens the case's file through their own report: audited, and shown on the case.
    const opened = await raw(`${server.url}/api/v1/report/${ids.second}/file`, {
      headers: { authorization: `Bearer ${tok.radio}` },
    });
    expect(opened.status).toBe(200);
    const list = await api.get(`/report/get-report-by-patientId/${ids.patient}?pageSize=50`, tok.patient);
    expect(list.status).toBe(200);
    expect(list.body.data[0].fileViews.map((v: { viewerFirstName: string }) => v.viewerFirstName)).toContain(
      "Ravi",
    );
    expect(list.body.data.map((r: { _id: string }) => r._id)).toEqual([ids.ecg]);
    expect(list.body.pagination.total).toBe(1);
    const [theCase] = list.body.data;
    expect(theCase.expert).toMatchObject({ firstName: "Kumar" });
    expect(theCase.secondOpinions).toHaveLength(1);
    expect(theCase.secondOpinions[0]).toMatchObject({
      _id: ids.second,
      secondSpecialty: "Radiology",
      agreement: "partly",
      agreementReason: "the axis deserves an echo",
      expert: { firstName: "Ravi", registrationNumber: "KMC-1001" },
    });
    // Another patient sees nothing of it.
    expect((await api.get(`/report/get-report-by-patientId/${ids.patient}`, tok.other)).status).toBe(403);
  });

  it("the card labels both opinions and offers to ask either expert", async () => {
    const b = new Browserish(server.url);
    await b.post("/login", { email: "patient@panel.test", password: strongPassword });
    const res = await b.fetch(`/dashboard/previous-report/${ids.patient}`);
    expect(res.status).toBe(200);
    const html = (await res.text()).replace(/&#x27;|&#39;/g, "'");
    expect(html).toContain("First opinion — Dr Kumar Test (Cardiology)");
    expect(html).toContain("Second opinion — Dr Ravi Test (Radiology)");
    // The verdict is a sentence of its own, then the reason (decision 0058).
    expect(html).toContain("Partly agrees with the first opinion. Reason: the axis deserves an echo");
    expect(html).toContain(`<option value="${ids.second}">`);
  });

  it("the letter lists both signatories and the agreement", async () => {
    for (const id of [ids.ecg, ids.second]) {
      const pdf = await raw(`${server.url}/api/v1/report/${id}/opinion.pdf`, {
        headers: { authorization: `Bearer ${tok.patient}` },
      });
      expect(pdf.status).toBe(200);
      const dir = mkdtempSync(path.join(os.tmpdir(), "cb-panel-"));
      try {
        writeFileSync(path.join(dir, "l.pdf"), pdf.body);
        const text = execFileSync("pdftotext", [path.join(dir, "l.pdf"), "-"], { encoding: "utf8" });
        expect(text).toContain("Dr Kumar Test");
        expect(text).toContain("TNMC-3003");
        expect(text).toContain("Dr Ravi Test");
        expect(text).toContain("KMC-1001");
        expect(text).toContain("Second opinion: Radiology");
        expect(text.replace(/\s+/g, " ")).toContain(
          "Partly agrees with the first opinion. Reason: the axis deserves an echo",
        );
        const code = /[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(text)?.[0];
        ids[`code-${id}`] = code!;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    // The second expert fetches the letter of their own opinion; a stranger expert cannot.
    const theirs = await raw(`${server.url}/api/v1/report/${ids.second}/opinion.pdf`, {
      headers: { authorization: `Bearer ${tok.radio}` },
    });
    expect(theirs.status).toBe(200);
    const stranger = await raw(`${server.url}/api/v1/report/${ids.second}/opinion.pdf`, {
      headers: { authorization: `Bearer ${tok.cardio2}` },
    });
    expect(stranger.status).toBe(403);
  });

  it("/verify shows both signatories for either code, and nothing of the content", async () => {
    for (const id of [ids.ecg, ids.second]) {
      const code = ids[`code-${id}`];
      expect(code).toMatch(/^[0-9A-Z]{4}-/);
      const res = await fetch(`${server.url}/verify/${code}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain("First opinion — Dr Kumar Test, Reg. No. TNMC-3003");
      expect(html).toContain("Second opinion (Radiology) — Dr Ravi Test, Reg. No. KMC-1001");
      expect(html).not.toContain("axis");
      expect(html).not.toContain("Asha");
    }
  });
});

describe("follow-ups and turnaround", () => {
  it("a follow-up goes to the expert the patient picks", async () => {
    const q = await api.post(
      `/report/follow-up/${ids.second}`,
      { question: "Do I need the echo soon?" },
      tok.patient,
    );
    expect(q.status).toBe(201);
    const held = await api.get("/report/get-follow-ups", tok.radio);
    const thread = held.body.data.find((r: { _id: string }) => r._id === ids.second);
    expect(thread.followUps.map((f: { question: string }) => f.question)).toEqual([
      "Do I need the echo soon?",
    ]);
    const firstExperts = await api.get("/report/get-follow-ups", tok.cardio);
    expect(firstExperts.body.data.find((r: { _id: string }) => r._id === ids.second)).toBeUndefined();
    expect(
      (
        await api.post(
          `/report/follow-up-answer/${thread.followUps[0]._id}`,
          { answer: "Within a month." },
          tok.cardio,
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await api.post(
          `/report/follow-up-answer/${thread.followUps[0]._id}`,
          { answer: "Within a month." },
          tok.radio,
        )
      ).status,
    ).toBe(200);
  });

  it("turnaround counts the case once, from the upload to the last opinion", async () => {
    const t = await api.get("/admin/turnaround", tok.admin);
    expect(t.status).toBe(200);
    expect(t.body.data.reviewedInWindow).toBe(1);
    const list = await api.get(`/report/get-report-by-patientId/${ids.patient}`, tok.patient);
    const theCase = list.body.data[0];
    const whole = Date.parse(theCase.secondOpinions[0].reviewedAt) - Date.parse(theCase.createdAt);
    expect(t.body.data.medianMs).toBe(whole);
  });

  it("a second request while one is awaited leaves the case out of turnaround until it is given", async () => {
    const more = await ask(ids.ecg, tok.admin, { specialty: "Neurology", note: "Any neurological cause?" });
    // No approved neurologist: refused, the case stays done.
    expect(more.status).toBe(400);
    // The admin asks from the patient's report screen (a plain form post).
    const b = new Browserish(server.url);
    await b.post("/login", { email: ADMIN.email, password: ADMIN.password });
    const screen = await b.fetch(`/dashboard/previous-report/${ids.patient}`);
    expect(await screen.text()).toContain('data-testid="admin-ask-second"');
    const posted = await b.post(`/dashboard/previous-report/${ids.patient}`, {
      intent: "second-opinion",
      reportId: ids.ecg,
      specialty: "Radiology",
      note: "Second look at the axis",
    });
    expect([302, 303]).toContain(posted.status);
    const t = await api.get("/admin/turnaround", tok.admin);
    expect(t.body.data.reviewedInWindow).toBe(0);
    const list = await api.get(`/report/get-report-by-patientId/${ids.patient}`, tok.patient);
    expect(list.body.pagination.total).toBe(1);
    expect(list.body.data[0].secondOpinions.map((s: { status: string }) => s.status)).toEqual([
      "Reviewed",
      "Pending",
    ]);
  });

  it("deleting the case removes its second opinions; the file goes only with the last row", async () => {
    const db = await openTestDb(server.dataDir);
    const keys = await db.all<{ file_key: string }>(
      "select distinct file_key from reports where id = ? or second_of = ?",
      ids.ecg,
      ids.ecg,
    );
    await db.close();
    expect(keys).toHaveLength(1);
    // The awaited second opinion alone: the file stays for the case.
    const pending = (await api.get(`/report/get-report-by-patientId/${ids.patient}`, tok.patient)).body
      .data[0].secondOpinions[1]._id;
    expect((await api.del("/report/delete-report", { reportId: pending }, tok.admin)).status).toBe(200);
    const file = await raw(`${server.url}/api/v1/report/${ids.ecg}/file`, {
      headers: { authorization: `Bearer ${tok.patient}` },
    });
    expect(file.status).toBe(200);
    expect((await api.del("/report/delete-report", { reportId: ids.ecg }, tok.patient)).status).toBe(200);
    const db2 = await openTestDb(server.dataDir);
    const left = await db2.get<{ n: number }>(
      "select count(*) as n from reports where second_of = ?",
      ids.ecg,
    );
    await db2.close();
    expect(Number(left!.n)).toBe(0);
    const list = await api.get(`/report/get-report-by-patientId/${ids.patient}`, tok.patient);
    expect(list.body.pagination.total).toBe(0);
  });
});

describe("one expert, one opinion of a case (decision 0058)", () => {
  it("an expert who claimed the first cannot take the second, by the API or the screen, and is told why", async () => {
    const up = await upload(tok.patient, "ECG");
    const ecg = up.body.data._id;
    // Lata reads both specialties: she starts the first, gives it back, and Meena gives it.
    expect((await api.post(`/report/claim/${ecg}`, {}, tok.radio2)).status).toBe(200);
    expect((await api.post(`/report/release/${ecg}`, {}, tok.radio2)).status).toBe(200);
    expect((await api.post(`/report/claim/${ecg}`, {}, tok.cardio2)).status).toBe(200);
    const asked = await ask(ecg, tok.cardio2, { specialty: "Radiology", note: "The axis?" });
    expect(asked.status).toBe(201);
    const second = asked.body.data._id;
    const why = "You already claimed, gave or asked for another opinion of this case";
    const refused = await api.post(`/report/claim/${second}`, {}, tok.radio2);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain(why);
    const b = new Browserish(server.url);
    await b.post("/login", { email: "radio2@panel.test", password: strongPassword });
    const screen = await b.post(`/dashboard/add-review/${second}`, { intent: "claim" });
    expect(screen.status).toBe(302);
    expect((await (await b.follow(screen)).text()).replace(/&#x27;|&#39;/g, "'")).toContain(why);
  });
});
