import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, type ApiBody } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp, type CapturedMail } from "../helpers/smtp";

/*
 * The consultation over HTTP against the built app, real SMTP, a real database:
 * verified experts, routing by specialty, claims, urgency and the queue, the structured
 * opinion, follow-up questions, the signed opinion letter and its public verification, and
 * the turnaround figures. Time-dependent rules (a claim lapsing, overdue, the follow-up
 * window) run on a second server with targets measured in seconds.
 */

const ADMIN = { email: "admin@consult.test", password: "Admin-pass-2026" };
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
  yearsOfPractice: 12,
});

async function signup(
  key: string,
  accountType: "Patient" | "Expert",
  extra?: Record<string, unknown>,
  firstName = key,
) {
  const r = await signupViaApi(api, smtp, codeFrom, {
    email: `${key.toLowerCase()}@consult.test`,
    accountType,
    firstName,
    lastName: "Test",
    extra,
  });
  tok[key] = r.token;
  ids[key] = r.user._id;
  return r.user;
}

const upload = (token: string, fields: Record<string, string>) =>
  api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { phoneNumber: "9876543210", countryCode: "+91", ...fields },
      { name: "r.pdf", data: samplePdf(), type: "application/pdf" },
    ),
    token,
  );

const mailsTo = (email: string, since: number) => smtp.mails.slice(since).filter((m) => m.to.includes(email));
const body = (m: CapturedMail) => m.raw.replace(/=\r?\n/g, "");
const settle = () => new Promise((r) => setTimeout(r, 400));

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
  await signup("radio", "Expert", expertExtra(["Radiology"], "KMC-1001"), "Ravi");
  await signup("patho", "Expert", expertExtra(["Pathology", "General Medicine"], "WBMC-2002"), "Priya");
  await signup("cardio", "Expert", expertExtra(["Cardiology"], "TNMC-3003"), "Kumar");
  await signup("bare", "Expert", {}); // an older client: no details
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("verified experts", () => {
  it("the admin's queue shows specialties, registration, council and years; approval records who and when", async () => {
    const pending = await api.get("/expert/get-pending-expert?pageSize=100", tok.admin);
    expect(pending.status).toBe(200);
    const radio = pending.body.data.find((u: { _id: string }) => u._id === ids.radio);
    expect(radio.expertDetails).toMatchObject({
      specialties: ["Radiology"],
      registrationNumber: "KMC-1001",
      registrationCouncil: "National Medical Commission",
      yearsOfPractice: 12,
      approvedAt: null,
    });
    const bare = pending.body.data.find((u: { _id: string }) => u._id === ids.bare);
    expect(bare.expertDetails).toMatchObject({ specialties: [], registrationNumber: "" });
    for (const k of ["radio", "patho", "cardio"]) {
      const r = await api.post("/expert/approve-expert", { expertId: ids[k] }, tok.admin);
      expect(r.status).toBe(200);
    }
    const me = await api.get("/profile/get-user-details", tok.radio);
    const admin = await api.get("/profile/get-user-details", tok.admin);
    // Experts read their own details (and a rejection reason) here; admins get no expertDetails.
    expect(me.body.data.expertDetails).toMatchObject({
      registrationNumber: "KMC-1001",
      rejectionReason: null,
    });
    expect(admin.body.data.expertDetails).toBeUndefined();
    const approved = await api.get("/expert/get-approved-expert?pageSize=100", tok.admin);
    const radioNow = approved.body.data.find((u: { _id: string }) => u._id === ids.radio);
    expect(radioNow.expertDetails.approvedBy).toMatchObject({ _id: admin.body.data._id });
    expect(Date.now() - Date.parse(radioNow.expertDetails.approvedAt)).toBeLessThan(60_000);
    // Colleagues see specialties and registration, not the admin's decision.
    const colleague = await api.get("/expert/get-approved-expert?pageSize=100", tok.patho);
    const seen = colleague.body.data.find((u: { _id: string }) => u._id === ids.radio);
    expect(seen.expertDetails).toMatchObject({
      specialties: ["Radiology"],
      registrationNumber: "KMC-1001",
      approvedBy: null,
    });
    expect(seen.email).toBe("");
  });

  it("rejects with a reason the expert reads by mail; correcting the details re-applies", async () => {
    const since = smtp.mails.length;
    expect((await api.raw("POST", "/expert/reject-expert", { expertId: ids.bare }, tok.admin)).status).toBe(
      400,
    );
    expect(
      (await api.post("/expert/reject-expert", { expertId: ids.bare, reason: "x" }, tok.patient)).status,
    ).toBe(403);
    expect(
      (await api.post("/expert/reject-expert", { expertId: ids.radio, reason: "late" }, tok.admin)).status,
    ).toBe(409);
    const res = await api.post(
      "/expert/reject-expert",
      { expertId: ids.bare, reason: "Your registration number is missing" },
      tok.admin,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.expertDetails.rejectionReason).toBe("Your registration number is missing");
    const mail = await smtp.waitFor("bare@consult.test", /not approved/);
    expect(body(mail)).toContain("Your registration number is missing");
    expect(mailsTo("bare@consult.test", since)).toHaveLength(1);
    const pending = await api.get("/expert/get-pending-expert?pageSize=100", tok.admin);
    expect(pending.body.data.map((u: { _id: string }) => u._id)).not.toContain(ids.bare);

    const bad = await api.raw(
      "PUT",
      "/profile/update-expert-details",
      { specialties: ["Astrology"], yearsOfPractice: 99 },
      tok.bare,
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["specialties.0", "yearsOfPractice"]);
    expect(
      (await api.put("/profile/update-expert-details", { specialties: ["ENT"] }, tok.patient)).status,
    ).toBe(403);
    const fixed = await api.put(
      "/profile/update-expert-details",
      {
        specialties: ["ENT"],
        registrationNumber: "MMC 77/2011",
        registrationCouncil: "Maharashtra Medical Council",
        yearsOfPractice: 3,
      },
      tok.bare,
    );
    expect(fixed.status).toBe(200);
    expect(fixed.body.data.expertDetails).toMatchObject({ specialties: ["ENT"], rejectedAt: null });
    const again = await api.get("/expert/get-pending-expert?pageSize=100", tok.admin);
    expect(again.body.data.map((u: { _id: string }) => u._id)).toContain(ids.bare);
  });
});

describe("routing by specialty", () => {
  it("a new report is mailed only to experts whose specialties read it, one message each", async () => {
    await settle();
    const since = smtp.mails.length;
    const xray = await upload(tok.patient, { reportType: "X-Ray", description: "Cough for 3 weeks" });
    expect(xray.status).toBe(201);
    ids.xray = xray.body.data._id;
    await smtp.waitFor("radio@consult.test", /new report/i);
    await settle();
    expect(mailsTo("radio@consult.test", since)).toHaveLength(1);
    expect(mailsTo("patho@consult.test", since)).toHaveLength(0);
    expect(mailsTo("cardio@consult.test", since)).toHaveLength(0);
    expect(body(mailsTo("radio@consult.test", since)[0])).not.toContain("Cough");

    // Nobody reads dental checkups: every approved expert hears of it.
    const since2 = smtp.mails.length;
    expect((await upload(tok.patient, { reportType: "Dental Checkup" })).status).toBe(201);
    for (const e of ["radio", "patho", "cardio"]) await smtp.waitFor(`${e}@consult.test`, /new report/i);
    await settle();
    for (const e of ["radio", "patho", "cardio"])
      expect(mailsTo(`${e}@consult.test`, since2)).toHaveLength(1);
    expect(mailsTo("bare@consult.test", since2)).toHaveLength(0); // not approved
  });

  it("an expert's queue puts reports of their specialties first, or shows only those", async () => {
    const blood = await upload(tok.other, { reportType: "Blood Test" });
    ids.blood = blood.body.data._id;
    const first = await api.get("/report/get-pending-reports?sort=queue&match=first&pageSize=100", tok.patho);
    expect(first.status).toBe(200);
    const types = first.body.data.map((r: { reportType: string }) => r.reportType);
    expect(types[0]).toBe("Blood Test");
    expect(first.body.data[0].matchesSpecialties).toBe(true);
    expect(first.body.data.find((r: { _id: string }) => r._id === ids.xray).matchesSpecialties).toBe(false);
    const only = await api.get("/report/get-pending-reports?match=only&pageSize=100", tok.patho);
    expect(only.body.data.map((r: { reportType: string }) => r.reportType)).toEqual(["Blood Test"]);
    expect(only.body.pagination.total).toBe(1);
    const junk = await api.get("/report/get-pending-reports?match=mine", tok.patho);
    expect(junk.status).toBe(400);
  });

  it("an expert who changes specialties sees the queue follow on the very next request with the same token", async () => {
    // The specialties come with the session lookup; nothing may keep the old ones past a request.
    const changed = await api.put(
      "/profile/update-expert-details",
      { specialties: ["Radiology"] },
      tok.patho,
    );
    expect(changed.status).toBe(200);
    // A specialty added sends the expert back to an admin (decision 0058), as a registration change does.
    expect(changed.body.data.approved).toBe(false);
    expect(changed.body.message).toMatch(/registration or specialties changed/);
    expect((await api.post("/expert/approve-expert", { expertId: ids.patho }, tok.admin)).status).toBe(200);
    const only = await api.get("/report/get-pending-reports?match=only&pageSize=100", tok.patho);
    expect(only.status).toBe(200);
    expect(only.body.data.map((r: { _id: string }) => r._id)).toContain(ids.xray);
    expect(only.body.data.some((r: { reportType: string }) => r.reportType === "Blood Test")).toBe(false);
    const back = await api.put("/profile/update-expert-details", { specialties: ["Pathology"] }, tok.patho);
    expect(back.status).toBe(200);
    expect((await api.post("/expert/approve-expert", { expertId: ids.patho }, tok.admin)).status).toBe(200);
    const again = await api.get("/report/get-pending-reports?match=only&pageSize=100", tok.patho);
    expect(again.body.data.map((r: { reportType: string }) => r.reportType)).toEqual(["Blood Test"]);
  });
});

describe("urgency and the queue", () => {
  it("an urgent report needs a reason; the queue is urgent first, then oldest; the contract's list stays newest first", async () => {
    const noReason = await upload(tok.patient, { reportType: "ECG", urgent: "true" });
    expect(noReason.status).toBe(400);
    expect(noReason.body.errors.urgentReason).toEqual(["Please say why it is urgent"]);
    const urgent = await upload(tok.patient, {
      reportType: "ECG",
      urgent: "true",
      urgentReason: "Chest pain since morning",
    });
    expect(urgent.status).toBe(201);
    expect(urgent.body.data).toMatchObject({
      urgent: true,
      urgentReason: "Chest pain since morning",
      overdue: false,
    });
    ids.ecg = urgent.body.data._id;
    const queue = await api.get("/report/get-pending-reports?sort=queue&pageSize=100", tok.admin);
    const order = queue.body.data.map((r: { _id: string }) => r._id);
    expect(order[0]).toBe(ids.ecg);
    const routine = queue.body.data.slice(1).map((r: { createdAt: string }) => r.createdAt);
    expect([...routine].sort()).toEqual(routine); // oldest first
    const newest = await api.get("/report/get-pending-reports?pageSize=100", tok.admin);
    const times = newest.body.data.map((r: { createdAt: string }) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    // The due time follows the urgent target (12 h by default).
    const due = Date.parse(urgent.body.data.dueAt) - Date.parse(urgent.body.data.createdAt);
    expect(due).toBe(12 * 3_600_000);
  });
});

describe("claims", () => {
  it("10 experts claim one report at once: exactly one wins; the rest are told who holds it", async () => {
    const experts: string[] = [];
    for (let i = 0; i < 7; i++) {
      await signup(`crowd${i}`, "Expert", expertExtra(["Cardiology"], `C-${i}`));
      await api.post("/expert/approve-expert", { expertId: ids[`crowd${i}`] }, tok.admin);
      experts.push(`crowd${i}`);
    }
    const all = ["radio", "patho", "cardio", ...experts];
    expect(all).toHaveLength(10);
    const results = await Promise.all(all.map((k) => api.post(`/report/claim/${ids.ecg}`, {}, tok[k])));
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    const holder = all[results.findIndex((r) => r.status === 200)];
    ids.holder = ids[holder];
    tok.holder = tok[holder];
    const name = won[0].body.data.claimedBy.firstName;
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.message).toContain(name);
    // Still "Pending" in the contract's field; claimedBy says who is on it.
    const listed = await api.get("/report/get-pending-reports?pageSize=100", tok.admin);
    const ecg = listed.body.data.find((r: { _id: string }) => r._id === ids.ecg);
    expect(ecg.status).toBe("Pending");
    expect(ecg.claimedBy._id).toBe(ids.holder);
    const audits = await openTestDb(server.dataDir);
    expect(
      (await audits.get<{ n: number }>(
        "select count(*) as n from audit_events where action = 'report.claim' and subject_id = ?",
        ids.ecg,
      ))!.n,
    ).toBe(1);
    await audits.close();
  });

  it("only the claimant reviews; admins and unapproved experts cannot claim; release gives it back", async () => {
    const other = tok.holder === tok.radio ? tok.patho : tok.radio;
    const steal = await api.post(`/report/add-review/${ids.ecg}`, { review: "Mine now" }, other);
    expect(steal.status).toBe(409);
    expect((await api.post(`/report/claim/${ids.ecg}`, {}, tok.admin)).status).toBe(403);
    expect((await api.post(`/report/claim/${ids.ecg}`, {}, tok.bare)).status).toBe(403);
    expect((await api.post(`/report/claim/${ids.ecg}`, {}, tok.patient)).status).toBe(403);
    expect((await api.post(`/report/claim/no-such-report`, {}, tok.radio)).status).toBe(404);
    expect((await api.post(`/report/release/${ids.ecg}`, {}, other)).status).toBe(409);
    // Release gives it back: not to the same expert at once (a cool-down), to any other.
    expect((await api.post(`/report/release/${ids.ecg}`, {}, tok.holder)).body.data.claimedBy).toBeNull();
    expect((await api.post(`/report/release/${ids.ecg}`, {}, tok.holder)).status).toBe(409);
    expect((await api.post(`/report/claim/${ids.ecg}`, {}, tok.holder)).status).toBe(409);
    expect((await api.post(`/report/claim/${ids.ecg}`, {}, other)).status).toBe(200);
    expect((await api.post(`/report/release/${ids.ecg}`, {}, other)).status).toBe(200);
    // Another expert had the chance: the first may claim again, and renew their own claim.
    expect((await api.post(`/report/claim/${ids.ecg}`, {}, tok.holder)).status).toBe(200);
    expect((await api.post(`/report/claim/${ids.ecg}`, {}, tok.holder)).status).toBe(200);
  });

  it("the structured opinion is stored and shown in order; the patient's mail says only that it is ready and important", async () => {
    await settle();
    const since = smtp.mails.length;
    const res = await api.post(
      `/report/add-review/${ids.ecg}`,
      {
        review: "Your ECG shows a fast but regular heartbeat.",
        findings: "Sinus tachycardia at 112/min. No ST changes.",
        recommendations: "Repeat the ECG after rest; check thyroid.",
        seeDoctorSoon: true,
      },
      tok.holder,
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: "Reviewed",
      review: "Your ECG shows a fast but regular heartbeat.",
      findings: "Sinus tachycardia at 112/min. No ST changes.",
      recommendations: "Repeat the ECG after rest; check thyroid.",
      seeDoctorSoon: true,
      opinionUrl: `/api/v1/report/${ids.ecg}/opinion.pdf`,
      expert: { _id: ids.holder },
    });
    expect(res.body.data.expert.specialties.length).toBeGreaterThan(0);
    expect(res.body.data.expert.registrationNumber).not.toBe("");
    const mail = await smtp.waitFor("patient@consult.test", /reviewed/);
    const text = body(mail);
    expect(text).toContain("important");
    expect(text).not.toMatch(/tachycardia|ECG|thyroid|heartbeat/);
    expect(mailsTo("patient@consult.test", since)).toHaveLength(1);
    // A second review is refused, and the claimant cannot overwrite either.
    expect((await api.post(`/report/add-review/${ids.ecg}`, { review: "Again" }, tok.holder)).status).toBe(
      409,
    );
  });
});

describe("follow-up questions", () => {
  it("the patient asks up to 3; the expert holding them answers; others cannot read or answer", async () => {
    await settle();
    const since = smtp.mails.length;
    const q: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const r = await api.post(
        `/report/follow-up/${ids.ecg}`,
        { question: `Question ${i}: may I exercise?` },
        tok.patient,
      );
      expect(r.status).toBe(201);
      q.push(r.body.data._id);
    }
    const fourth = await api.post(`/report/follow-up/${ids.ecg}`, { question: "One more?" }, tok.patient);
    expect(fourth.status).toBe(409);
    expect(fourth.body.message).toContain("3");
    expect((await api.post(`/report/follow-up/${ids.ecg}`, { question: "Hi" }, tok.other)).status).toBe(403);
    expect((await api.post(`/report/follow-up/${ids.ecg}`, { question: "" }, tok.patient)).status).toBe(400);
    expect(
      (await api.post(`/report/follow-up/${ids.xray}`, { question: "Is it done?" }, tok.patient)).status,
    ).toBe(409);
    const holderEmail = (await api.get("/profile/get-user-details", tok.holder)).body.data.email;
    await smtp.waitFor(holderEmail, /follow-up/i);

    const other = tok.holder === tok.radio ? "patho" : "radio";
    expect((await api.post(`/report/follow-up-answer/${q[0]}`, { answer: "No" }, tok[other])).status).toBe(
      403,
    );
    expect((await api.post(`/report/follow-up-answer/${q[0]}`, { answer: "No" }, tok.patient)).status).toBe(
      403,
    );
    const answered = await api.post(
      `/report/follow-up-answer/${q[0]}`,
      { answer: "Light walks only." },
      tok.holder,
    );
    expect(answered.status).toBe(200);
    expect((await api.post(`/report/follow-up-answer/${q[0]}`, { answer: "Again" }, tok.holder)).status).toBe(
      409,
    );
    const mail = await smtp.waitFor("patient@consult.test", /answered/);
    expect(body(mail)).not.toContain("Light walks");
    expect(mailsTo("patient@consult.test", since).length).toBeGreaterThanOrEqual(1);

    // The thread: the patient, the holder and admins see it; another expert does not.
    const mine = await api.get(`/report/get-report-by-patientId/${ids.patient}?pageSize=100`, tok.patient);
    const thread = mine.body.data.find((r: { _id: string }) => r._id === ids.ecg);
    expect(thread.followUps.map((f: { answer: string | null }) => f.answer)).toEqual([
      "Light walks only.",
      null,
      null,
    ]);
    expect(thread.followUpsLeft).toBe(0);
    const held = await api.get("/report/get-follow-ups", tok.holder);
    expect(held.body.data.map((r: { _id: string }) => r._id)).toContain(ids.ecg);
    expect((await api.get("/report/get-follow-ups", tok[other])).body.data).toEqual([]);
    const adminView = await api.get("/report/get-all-reviewed-reports?pageSize=100", tok.admin);
    expect(adminView.body.data.find((r: { _id: string }) => r._id === ids.ecg).followUps).toHaveLength(3);

    // An admin reassigns: the new expert answers, the reviewer no longer can.
    expect(
      (await api.post(`/report/reassign-follow-ups/${ids.ecg}`, { expertId: ids.patient }, tok.admin)).status,
    ).toBe(400);
    expect(
      (await api.post(`/report/reassign-follow-ups/${ids.ecg}`, { expertId: ids[other] }, tok.holder)).status,
    ).toBe(403);
    expect(
      (await api.post(`/report/reassign-follow-ups/${ids.ecg}`, { expertId: ids[other] }, tok.admin)).status,
    ).toBe(200);
    expect((await api.post(`/report/follow-up-answer/${q[1]}`, { answer: "Mine" }, tok.holder)).status).toBe(
      403,
    );
    expect(
      (await api.post(`/report/follow-up-answer/${q[1]}`, { answer: "Yes, gently." }, tok[other])).status,
    ).toBe(200);
    expect(
      (await api.get("/report/get-follow-ups", tok[other])).body.data.map((r: { _id: string }) => r._id),
    ).toContain(ids.ecg);
    // Every list brings the same whole thread: in asking order, each answer with its answerer and time.
    const threadIn = async (path: Parameters<typeof api.get>[0], token: string) =>
      (await api.get(path, token)).body.data.find((r: { _id: string }) => r._id === ids.ecg).followUps;
    const shown = await threadIn(`/report/get-report-by-patientId/${ids.patient}?pageSize=100`, tok.patient);
    const name = async (token: string) => {
      const me = (await api.get("/profile/get-user-details", token)).body.data;
      return { _id: me._id, firstName: me.firstName, lastName: me.lastName };
    };
    expect(shown.map((f: { _id: string }) => f._id)).toEqual(q);
    expect(shown.map((f: { question: string }) => f.question)).toEqual(
      [1, 2, 3].map((i) => `Question ${i}: may I exercise?`),
    );
    expect(shown.map((f: { answeredBy: unknown }) => f.answeredBy)).toEqual([
      await name(tok.holder),
      await name(tok[other]),
      null,
    ]);
    for (const f of shown) {
      expect(new Date(f.askedAt).toISOString()).toBe(f.askedAt);
      if (f.answer)
        expect(new Date(f.answeredAt).getTime()).toBeGreaterThanOrEqual(new Date(f.askedAt).getTime());
      else expect(f.answeredAt).toBeNull();
    }
    expect(await threadIn("/report/get-follow-ups", tok[other])).toEqual(shown);
    expect(await threadIn("/report/get-all-reviewed-reports?pageSize=100", tok.admin)).toEqual(shown);
    const audits = await openTestDb(server.dataDir);
    const actions = await audits.all<{ action: string }>(
      "select action from audit_events where subject_id = ? and action like 'followup.%' order by created_at",
      ids.ecg,
    );
    await audits.close();
    expect(actions.map((a) => a.action)).toEqual([
      "followup.ask",
      "followup.ask",
      "followup.ask",
      "followup.answer",
      "followup.reassign",
      "followup.answer",
    ]);
  });
});

describe("the opinion letter", () => {
  it("the patient, the reviewing expert and admins download it; each fetch is audited; others are refused", async () => {
    const get = (token?: string, headers: Record<string, string> = {}) =>
      raw(`${server.url}/api/v1/report/${ids.ecg}/opinion.pdf`, {
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      });
    const mine = await get(tok.patient);
    expect(mine.status).toBe(200);
    expect(mine.headers["content-type"]).toBe("application/pdf");
    expect(mine.headers["content-disposition"]).toMatch(/^attachment; filename="CareBridge-opinion-/);
    expect(mine.headers["cache-control"]).toBe("private, no-store");
    expect(mine.body.subarray(0, 5).toString()).toBe("%PDF-");
    const dir = mkdtempSync(path.join(os.tmpdir(), "cb-letter-"));
    try {
      writeFileSync(path.join(dir, "l.pdf"), mine.body);
      const text = execFileSync("pdftotext", [path.join(dir, "l.pdf"), "-"], { encoding: "utf8" });
      expect(text).toContain("Asha Test");
      expect(text).toContain("Your ECG shows a fast but regular heartbeat.");
      expect(text).toContain("Sinus tachycardia at 112/min. No ST changes.");
      expect(text).toContain("The expert advises you to see a doctor in person soon.");
      expect(text).toContain("Question 1: may I exercise?");
      expect(text).toContain("Light walks only.");
      const code = /[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(text)?.[0];
      expect(code).toBeTruthy();
      ids.code = code!;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect((await get(tok.holder)).status).toBe(200);
    expect((await get(tok.admin)).status).toBe(200);
    const other = tok.holder === tok.radio ? tok.patho : tok.radio;
    expect((await get(other)).status).toBe(403);
    expect((await get(tok.other)).status).toBe(403);
    expect((await get()).status).toBe(401);
    expect(
      (
        await raw(`${server.url}/api/v1/report/${ids.xray}/opinion.pdf`, {
          headers: { authorization: `Bearer ${tok.patient}` },
        })
      ).status,
    ).toBe(404);
    // A cookie session from another site is refused (no audit row either).
    const b = new Browserish(server.url);
    await b.post("/login", { email: "patient@consult.test", password: "Sturdy-pass-2026" });
    const cross = await b.fetch(`/api/v1/report/${ids.ecg}/opinion.pdf`, {
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    expect(cross.status).toBe(403);
    const same = await b.fetch(`/api/v1/report/${ids.ecg}/opinion.pdf`, {
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    expect(same.status).toBe(200);
    const db = await openTestDb(server.dataDir);
    const n = (await db.get<{ n: number }>(
      "select count(*) as n from audit_events where action = 'report.letter_open' and subject_id = ?",
      ids.ecg,
    ))!.n;
    await db.close();
    expect(n).toBe(4);
  });

  it("/verify/{code} confirms the letter and its signer, nothing more; unknown codes are not found", async () => {
    const res = await fetch(`${server.url}/verify/${ids.code}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-robots-tag")).toBe("noindex");
    const html = await res.text();
    expect(html).toContain("This letter is genuine");
    expect(html).toContain(ids.code);
    // The page's words (the shipped catalogue, which lists every report type) aside, nothing of the case.
    const page = html.replace(/<script type="application\/json" id="cb-strings"[^>]*>[\s\S]*?<\/script>/, "");
    expect(page).not.toContain("Asha");
    expect(page).not.toMatch(/ECG|tachycardia/);
    // Lower case and without dashes works too.
    expect((await fetch(`${server.url}/verify/${ids.code.replace(/-/g, "").toLowerCase()}`)).status).toBe(
      200,
    );
    const none = await fetch(`${server.url}/verify/AAAA-BBBB-CCCC`);
    expect(none.status).toBe(404);
    expect(await none.text()).toContain("No letter with this code exists");
    const typed = await fetch(`${server.url}/verify?code=${ids.code}`, { redirect: "manual" });
    expect(typed.status).toBe(302);
  });
});

describe("turnaround", () => {
  it("admins see the queue counts, the median and 90th percentile, per expert and the overdue list", async () => {
    const res = await api.get("/admin/turnaround", tok.admin);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.reviewedInWindow).toBe(1);
    expect(d.medianMs).toBeGreaterThanOrEqual(0);
    expect(d.p90Ms).toBe(d.medianMs);
    expect(d.pending).toBeGreaterThanOrEqual(3);
    expect(d.inReview).toBe(0);
    const holder = d.experts.find((e: { expert: { _id: string } }) => e.expert._id === ids.holder);
    expect(holder).toMatchObject({ reviewed: 1, claimed: 3 });
    expect((await api.get("/admin/turnaround", tok.radio)).status).toBe(403);
    expect((await api.get("/admin/turnaround")).status).toBe(401);
  });
});

describe("the screens without JavaScript", () => {
  it("an expert starts a review and sends only the summary; the patient asks a follow-up on the card", async () => {
    const up = await upload(tok.patient, { reportType: "Urine Test" });
    const id = up.body.data._id;
    const expert = new Browserish(server.url);
    expect(
      (await expert.post("/login", { email: "patho@consult.test", password: "Sturdy-pass-2026" })).status,
    ).toBe(302);
    const claim = await expert.post("/dashboard/pending-report", { reportId: id });
    expect(claim.headers.get("Location")).toBe(`/dashboard/add-review/${id}`);
    const page = await (await expert.follow(claim)).text();
    expect(page).toContain('name="review"');
    // The optional parts of the opinion left empty, as a form sends them.
    const sent = await expert.post(`/dashboard/add-review/${id}`, {
      intent: "review",
      review: "Normal urine test.",
      findings: "",
      recommendations: "",
    });
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe("/dashboard/pending-report");
    const patient = new Browserish(server.url);
    await patient.post("/login", { email: "patient@consult.test", password: "Sturdy-pass-2026" });
    const asked = await patient.post(`/dashboard/previous-report/${ids.patient}`, {
      intent: "ask",
      reportId: id,
      question: "Should I drink more water?",
    });
    expect(asked.status).toBe(302);
    const card = await (await patient.follow(asked)).text();
    expect(card).toContain("Should I drink more water?");
    expect(card).toContain("Normal urine test.");
    expect(card).toContain(`/api/v1/report/${id}/opinion.pdf`);
  });
});

describe("time limits (seconds instead of hours)", () => {
  let fast: TestServer;
  let fastApi: ReturnType<typeof apiClient>;
  const t: Record<string, string> = {};
  beforeAll(async () => {
    fast = await startServer({
      SMTP_URL: smtp.url,
      RATE_LIMIT_DISABLED: "1",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      CLAIM_TTL_MINUTES: "0.04", // 2.4 s
      REVIEW_TARGET_HOURS: "0.001", // 3.6 s
      REVIEW_TARGET_HOURS_URGENT: "0.0005",
      FOLLOWUP_DAYS: "0.00003", // 2.6 s
    });
    fastApi = apiClient(fast.url);
    t.admin = (await fastApi.post("/auth/login", ADMIN)).body.token;
    for (const [k, type] of [
      ["p", "Patient"],
      ["e1", "Expert"],
      ["e2", "Expert"],
    ] as const) {
      const r = await signupViaApi(fastApi, smtp, codeFrom, {
        email: `${k}@fast.test`,
        accountType: type,
        extra: type === "Expert" ? expertExtra(["Radiology"], `F-${k}`) : undefined,
      });
      t[k] = r.token;
      t[`${k}Id`] = r.user._id;
      if (type === "Expert") await fastApi.post("/expert/approve-expert", { expertId: r.user._id }, t.admin);
    }
  }, 120_000);
  afterAll(async () => {
    await fast?.stop();
  });

  it("a claim lapses, a report becomes overdue, and the follow-up window closes", async () => {
    const up = await fastApi.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "MRI", phoneNumber: "9876543210" },
        { name: "m.pdf", data: samplePdf(), type: "application/pdf" },
      ),
      t.p,
    );
    expect(up.status).toBe(201);
    const id = up.body.data._id;
    expect((await fastApi.post(`/report/claim/${id}`, {}, t.e1)).status).toBe(200);
    expect((await fastApi.post(`/report/claim/${id}`, {}, t.e2)).status).toBe(409);
    await new Promise((r) => setTimeout(r, 4_000));
    const listed = await fastApi.get("/report/get-pending-reports", t.admin);
    const item = listed.body.data.find((r: { _id: string }) => r._id === id);
    expect(item.claimedBy).toBeNull(); // lapsed
    expect(item.overdue).toBe(true);
    const ta = await fastApi.get("/admin/turnaround", t.admin);
    expect(ta.body.data.overdue).toBe(1);
    expect(ta.body.data.overdueReports.map((r: { _id: string }) => r._id)).toEqual([id]);
    expect((await fastApi.post(`/report/claim/${id}`, {}, t.e2)).status).toBe(200);
    expect((await fastApi.post(`/report/add-review/${id}`, { review: "Normal scan." }, t.e2)).status).toBe(
      200,
    );
    expect((await fastApi.post(`/report/follow-up/${id}`, { question: "Now?" }, t.p)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 3_000));
    const late = await fastApi.post(`/report/follow-up/${id}`, { question: "Later?" }, t.p);
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/days after the opinion/);
  });
});

describe("a letter whose expert has left", () => {
  it("still downloads (saying the expert is no longer registered) and still verifies, never a 500", async () => {
    await signup("leaver", "Expert", expertExtra(["Radiology"], "KMC-4040"), "Lena");
    expect((await api.post("/expert/approve-expert", { expertId: ids.leaver }, tok.admin)).status).toBe(200);
    const up = await upload(tok.patient, { reportType: "CT Scan" });
    expect(up.status).toBe(201);
    const id = up.body.data._id;
    expect((await api.post(`/report/claim/${id}`, {}, tok.leaver)).status).toBe(200);
    expect(
      (await api.post(`/report/add-review/${id}`, { review: "No bleed seen." }, tok.leaver)).status,
    ).toBe(200);
    expect(
      (
        await api.call(
          "DELETE",
          "/profile/delete-profile",
          { password: "Sturdy-pass-2026", immediate: true },
          tok.leaver,
        )
      ).status,
    ).toBe(200);
    const res = await raw(`${server.url}/api/v1/report/${id}/opinion.pdf`, {
      headers: { authorization: `Bearer ${tok.patient}` },
    });
    expect(res.status).toBe(200);
    const dir = mkdtempSync(path.join(os.tmpdir(), "cb-letter-"));
    try {
      writeFileSync(path.join(dir, "l.pdf"), res.body);
      const text = execFileSync("pdftotext", [path.join(dir, "l.pdf"), "-"], { encoding: "utf8" });
      expect(text).toContain("No bleed seen.");
      expect(text).toContain("An expert no longer registered with CareBridge");
      const code = /[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(text)?.[0];
      const verified = await fetch(`${server.url}/verify/${code}`);
      expect(verified.status).toBe(200);
      expect(await verified.text()).toContain(
        "the expert who signed it is no longer registered with CareBridge",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
