import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, storedKeys } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { Browserish, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp, type CapturedMail } from "../helpers/smtp";

/*
 * The consent and rights centre over HTTP against the built app, real SMTP, a real
 * database and file store: consent records with their text versions, withdrawing review consent
 * (pending reports leave the experts' queue, reviewed ones stay), the contact gate, correction
 * requests answered by admins, erasure with notice and a cancel link, the nominee, who may call
 * what, and the screens without JavaScript. Erasure being carried out and the audit retention run
 * on a second server whose notice and job interval are seconds.
 */

const ADMIN = { email: "admin@rights.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

const expertExtra = {
  specialties: ["Cardiology" as const],
  registrationNumber: "KMC-4040",
  registrationCouncil: "National Medical Commission",
  yearsOfPractice: 9,
};

async function signup(
  a: ReturnType<typeof apiClient>,
  key: string,
  accountType: "Patient" | "Expert" = "Patient",
  firstName = key,
) {
  const r = await signupViaApi(a, smtp, codeFrom, {
    email: `${key.toLowerCase()}@rights.test`,
    accountType,
    firstName,
    lastName: "Rao",
    extra: accountType === "Expert" ? expertExtra : undefined,
  });
  tok[key] = r.token;
  ids[key] = r.user._id;
  return r;
}

const upload = (token: string, fields: Record<string, string> = {}, a = api) =>
  a.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "ECG", phoneNumber: "9876543210", countryCode: "+91", ...fields },
      { name: "r.pdf", data: samplePdf(), type: "application/pdf" },
    ),
    token,
  );

const body = (m: CapturedMail) => m.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
const cancelTokens: string[] = [];
const cancelTokenFrom = (m: CapturedMail) => {
  const found = /my-data\/cancel-erasure\/([A-Za-z0-9_-]{20,})/.exec(body(m));
  if (!found) throw new Error("no cancel link in the notice");
  cancelTokens.push(found[1]);
  return found[1];
};
/** The first message to `to` matching `match` that arrived after `since` (index into smtp.mails). */
async function mailAfter(since: number, to: string, match: RegExp): Promise<CapturedMail> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const m = smtp.mails
      .slice(since)
      .find((x) => x.to.includes(to) && (match.test(x.subject) || match.test(x.raw)));
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`no new mail to ${to} matching ${match}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const pendingIds = async (token: string) =>
  (await api.get("/report/get-pending-reports?pageSize=100", token)).body.data.map(
    (r: { _id: string }) => r._id,
  );
const fileKeyOf = async (reportId: string) => {
  const db = await openTestDb(server.dataDir);
  try {
    return (await db.get<{ k: string }>("select file_key as k from reports where id = ?", reportId))?.k;
  } finally {
    await db.close();
  }
};
const sqlRows = async <T = Record<string, any>>(q: string, ...params: unknown[]) => {
  const db = await openTestDb(server.dataDir);
  try {
    return await db.all<T>(q, ...params);
  } finally {
    await db.close();
  }
};

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  api = apiClient(server.url);
  // The admin is created in the background at start-up: wait for it.
  for (let i = 0; i < 100 && !tok.admin; i++) {
    tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
    if (!tok.admin) await new Promise((r) => setTimeout(r, 100));
  }
  await signup(api, "asha", "Patient", "Asha");
  await signup(api, "ravi", "Patient", "Ravi");
  await signup(api, "meena", "Patient", "Meena");
  await signup(api, "doc", "Expert", "Kumar");
  await signup(api, "newdoc", "Expert", "Latha");
  expect((await api.post("/expert/approve-expert", { expertId: ids.doc }, tok.admin)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("consent records", () => {
  it("start from the defaults, record the upload's consent with its text version, and append only changes", async () => {
    const before = await api.get("/rights/consents", tok.meena);
    expect(before.status).toBe(200);
    const by = (d: any, p: string) => d.consents.find((c: { purpose: string }) => c.purpose === p);
    expect(by(before.body.data, "review")).toMatchObject({
      granted: false,
      recorded: false,
      textVersion: null,
    });
    expect(by(before.body.data, "contact")).toMatchObject({ granted: true, recorded: false });
    expect(by(before.body.data, "statistics")).toMatchObject({ granted: false, recorded: false });
    expect(by(before.body.data, "review").currentTextVersion).toBe("review-2026-11");
    expect(by(before.body.data, "review").text).toMatch(/consent for my medical report to be reviewed/);
    expect(before.body.data.history).toEqual([]);

    expect((await upload(tok.meena, { consent: "true" })).status).toBe(201);
    expect((await upload(tok.meena, { consent: "true" })).status).toBe(201); // no second record
    const after = (await api.get("/rights/consents", tok.meena)).body.data;
    expect(by(after, "review")).toMatchObject({
      granted: true,
      recorded: true,
      textVersion: "review-2026-11",
      via: "upload",
      outdated: false,
    });
    expect(after.history).toHaveLength(1);
    expect(after.history[0]).toMatchObject({ purpose: "review", granted: true, locale: "en", via: "upload" });

    // Statistics: off by default; giving it is recorded in the request's language; again changes nothing.
    const stats = await api.post("/rights/consents", { purpose: "statistics", granted: true }, tok.meena, {
      "Accept-Language": "hi",
    });
    expect(stats.status).toBe(200);
    expect(by(stats.body.data, "statistics")).toMatchObject({
      granted: true,
      textVersion: "statistics-2026-11",
      via: "api",
    });
    expect(by(stats.body.data, "statistics").text).not.toMatch(/statistics/); // shown in Hindi
    expect(stats.body.data.history[0]).toMatchObject({ purpose: "statistics", locale: "hi" });
    const again = await api.post("/rights/consents", { purpose: "statistics", granted: true }, tok.meena);
    expect(again.body.data.history).toHaveLength(2);
    const events = await sqlRows<{ action: string; detail: string }>(
      "select action, detail from audit_events where subject_id = ? and action like 'account.consent%' order by created_at",
      ids.meena,
    );
    expect(events.map((e) => e.action)).toEqual(["account.consent_grant", "account.consent_grant"]);
    expect(JSON.parse(events[1].detail)).toMatchObject({
      purpose: "statistics",
      textVersion: "statistics-2026-11",
    });
  });

  it("are for patients: experts and admins are refused, bad input is a 400", async () => {
    for (const who of ["doc", "newdoc", "admin"]) {
      expect((await api.get("/rights/consents", tok[who])).status, who).toBe(403);
      expect(
        (await api.post("/rights/consents", { purpose: "contact", granted: false }, tok[who])).status,
      ).toBe(403);
    }
    const bad = await api.raw(
      "POST",
      "/rights/consents",
      { purpose: "marketing", granted: "maybe" },
      tok.meena,
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["granted", "purpose"]);
    expect((await api.raw("POST", "/rights/consents", {}, tok.meena)).status).toBe(400);
  });
});

describe("withdrawing review consent", () => {
  it("takes the waiting report out of the expert queue (claim and review refused); the reviewed one stays", async () => {
    const reviewed = await upload(tok.asha, { consent: "true", reportType: "ECG" });
    const waiting = await upload(tok.asha, { consent: "true", reportType: "MRI" });
    expect(reviewed.status).toBe(201);
    expect(waiting.status).toBe(201);
    ids.reviewed = reviewed.body.data._id;
    ids.waiting = waiting.body.data._id;
    expect((await api.post(`/report/claim/${ids.reviewed}`, {}, tok.doc)).status).toBe(200);
    expect(
      (await api.post(`/report/add-review/${ids.reviewed}`, { review: "A normal ECG." }, tok.doc)).status,
    ).toBe(200);
    // An expert has started on the waiting one: its claim ends with it.
    expect((await api.post(`/report/claim/${ids.waiting}`, {}, tok.doc)).status).toBe(200);
    expect(await pendingIds(tok.doc)).toContain(ids.waiting);
    expect(await pendingIds(tok.admin)).toContain(ids.waiting);
    const waitingKey = await fileKeyOf(ids.waiting);
    const reviewedKey = await fileKeyOf(ids.reviewed);
    expect(await storedKeys(server)).toEqual(expect.arrayContaining([waitingKey, reviewedKey]));

    // What will happen is known before: one waiting report, one reviewed.
    const effect = (await api.get("/rights/consents", tok.asha)).body.data.withdrawEffect;
    expect(effect).toEqual({ pendingReports: 1, reviewedReports: 1 });

    const res = await api.post("/rights/consents", { purpose: "review", granted: false }, tok.asha);
    expect(res.status).toBe(200);
    expect(res.body.data.withdrawnReports).toBe(1);
    expect(res.body.data.withdrawEffect).toEqual({ pendingReports: 0, reviewedReports: 1 });

    // Gone from the queue, for experts and admins; claiming, reviewing or opening it is refused.
    expect(await pendingIds(tok.doc)).not.toContain(ids.waiting);
    expect(await pendingIds(tok.admin)).not.toContain(ids.waiting);
    expect((await api.post(`/report/claim/${ids.waiting}`, {}, tok.doc)).status).toBe(404);
    expect((await api.post(`/report/add-review/${ids.waiting}`, { review: "Late." }, tok.doc)).status).toBe(
      404,
    );
    expect((await api.get(`/report/${ids.waiting}/file`, tok.doc)).status).toBe(404);
    // The reviewed report stays with the patient, with its opinion; its file too.
    const own = await api.get(`/report/get-report-by-patientId/${ids.asha}`, tok.asha);
    expect(own.body.data.map((r: { _id: string }) => r._id)).toEqual([ids.reviewed]);
    expect(own.body.data[0]).toMatchObject({ status: "Reviewed", review: "A normal ECG." });
    const keys = await storedKeys(server);
    expect(keys).toContain(reviewedKey);
    expect(keys).not.toContain(waitingKey);
    const trail = await sqlRows<{ action: string }>(
      "select action from audit_events where subject_id in (?, ?) and action in ('account.consent_withdraw', 'report.delete')",
      ids.asha,
      ids.waiting,
    );
    expect(trail.map((e) => e.action).sort()).toEqual(["account.consent_withdraw", "report.delete"]);
  });

  it("uploading again needs consent again, on the API and on the screen", async () => {
    const keysBefore = (await storedKeys(server)).length;
    const without = await upload(tok.asha);
    expect(without.status).toBe(400);
    expect(without.body.errors.consent).toEqual(["You must agree before submitting."]);
    expect((await storedKeys(server)).length).toBe(keysBefore); // the refused file is not kept

    const withConsent = await upload(tok.asha, { consent: "true" });
    expect(withConsent.status).toBe(201);
    const state = (await api.get("/rights/consents", tok.asha)).body.data;
    expect(state.consents[0]).toMatchObject({ purpose: "review", granted: true, via: "upload" });
    expect(state.history.map((h: { granted: boolean }) => h.granted).slice(0, 3)).toEqual([
      true,
      false,
      true,
    ]);

    // The screen's upload form goes through the same function: withdraw, then upload there.
    await api.post("/rights/consents", { purpose: "review", granted: false }, tok.asha);
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "asha@rights.test", password: strongPassword })).status).toBe(
      302,
    );
    const form = uploadForm(
      { reportType: "X-Ray", phoneNumber: "9876543210", countryCode: "+91", consent: "on" },
      { name: "x.pdf", data: samplePdf(), type: "application/pdf" },
    );
    const res = await b.fetch("/dashboard/upload-report", {
      method: "POST",
      body: form,
      headers: { Origin: server.url, "Sec-Fetch-Site": "same-origin" },
    });
    expect(res.status).toBe(302);
    const after = (await api.get("/rights/consents", tok.asha)).body.data;
    expect(after.consents[0]).toMatchObject({ granted: true, via: "upload" });
  });

  it("two withdrawals at once: one record, the reports withdrawn once", async () => {
    for (let i = 0; i < 2; i++) expect((await upload(tok.ravi, { consent: "true" })).status).toBe(201);
    const [a, b] = await Promise.all([
      api.post("/rights/consents", { purpose: "review", granted: false }, tok.ravi),
      api.post("/rights/consents", { purpose: "review", granted: false }, tok.ravi),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.data.withdrawnReports + b.body.data.withdrawnReports).toBe(2);
    const history = (await api.get("/rights/consents", tok.ravi)).body.data.history;
    expect(history.filter((h: { granted: boolean }) => !h.granted)).toHaveLength(1);
    const own = await api.get(`/report/get-report-by-patientId/${ids.ravi}`, tok.ravi);
    expect(own.body.data).toEqual([]);
  });
});

describe("contact by phone", () => {
  it("withdrawn, nobody but the patient sees the number on the reports; given again, it shows", async () => {
    const up = await upload(tok.meena, { consent: "true", phoneNumber: "9123456789" });
    const id = up.body.data._id;
    const phoneFor = async (token: string) =>
      (await api.get("/report/get-pending-reports?pageSize=100", token)).body.data.find(
        (r: { _id: string }) => r._id === id,
      ).phoneNumber;
    expect(await phoneFor(tok.doc)).toBe("+919123456789");
    expect(
      (await api.post("/rights/consents", { purpose: "contact", granted: false }, tok.meena)).status,
    ).toBe(200);
    expect(await phoneFor(tok.doc)).toBe("**********");
    expect(await phoneFor(tok.admin)).toBe("**********");
    // The queue orders (the expert's specialties first, each type's own range) hide it alike.
    for (const query of ["sort=queue&match=first", "sort=queue&match=only", "sort=queue&reportType=ECG"]) {
      const list = await api.get(`/report/get-pending-reports?pageSize=100&${query}`, tok.doc);
      expect(list.status).toBe(200);
      const row = list.body.data.find((r: { _id: string }) => r._id === id);
      expect(row?.phoneNumber, query).toBe("**********");
    }
    const claimed = await api.post(`/report/claim/${id}`, {}, tok.doc);
    expect(claimed.body.data.phoneNumber).toBe("**********");
    const own = await api.get(`/report/get-report-by-patientId/${ids.meena}`, tok.meena);
    expect(own.body.data.find((r: { _id: string }) => r._id === id).phoneNumber).toBe("+919123456789");
    await api.post("/rights/consents", { purpose: "contact", granted: true }, tok.meena);
    expect(await phoneFor(tok.doc)).toBe("+919123456789");
  });
});

describe("correction requests", () => {
  it("a patient asks, an admin answers, the patient reads the answer (and is told)", async () => {
    expect((await api.raw("POST", "/rights/correction-requests", {}, tok.asha)).status).toBe(400);
    const long = await api.post("/rights/correction-requests", { details: "x".repeat(2001) }, tok.asha);
    expect(long.status).toBe(400);
    expect(long.body.errors.details).toEqual(["At most 2000 characters."]);
    const made = await api.post(
      "/rights/correction-requests",
      { details: "My date of birth is 12 March 1980, not 1981." },
      tok.asha,
    );
    expect(made.status).toBe(201);
    const id = made.body.data._id;
    expect(made.body.data).toMatchObject({ type: "correction", status: "open", response: "" });

    const queue = await api.get("/admin/rights-requests", tok.admin);
    expect(queue.status).toBe(200);
    const row = queue.body.data.find((r: { _id: string }) => r._id === id);
    expect(row).toMatchObject({
      details: "My date of birth is 12 March 1980, not 1981.",
      user: { _id: ids.asha, firstName: "Asha", email: "asha@rights.test", accountType: "Patient" },
    });
    expect(queue.body.pagination).toMatchObject({ page: 1, pageSize: 20 });
    const erasures = await api.get("/admin/rights-requests?type=erasure&status=all", tok.admin);
    expect(erasures.body.data.map((r: { _id: string }) => r._id)).not.toContain(id);
    expect((await api.get("/admin/rights-requests?status=bogus", tok.admin)).status).toBe(400);

    // Others see nothing of it.
    const others = await api.get("/rights/requests", tok.ravi);
    expect(others.body.data.map((r: { _id: string }) => r._id)).not.toContain(id);
    expect(
      (await api.post(`/admin/rights-requests/${id}/resolve`, { status: "done", response: "x" }, tok.doc))
        .status,
    ).toBe(403);

    const bad = await api.raw("POST", `/admin/rights-requests/${id}/resolve`, { status: "maybe" }, tok.admin);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["response", "status"]);
    const since = smtp.mails.length;
    const [first, second] = await Promise.all([
      api.post(
        `/admin/rights-requests/${id}/resolve`,
        { status: "done", response: "Corrected: 12 March 1980." },
        tok.admin,
      ),
      api.post(`/admin/rights-requests/${id}/resolve`, { status: "rejected", response: "No." }, tok.admin),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const winner = first.status === 200 ? first : second;
    const mine = await api.get("/rights/requests", tok.asha);
    expect(mine.body.data.find((r: { _id: string }) => r._id === id)).toMatchObject({
      status: winner.body.data.status,
      response: winner.body.data.response,
    });
    const mail = await mailAfter(since, "asha@rights.test", /has been answered/);
    expect(body(mail)).not.toContain("12 March"); // no content in the message
    expect(
      (await api.post("/admin/rights-requests/nope/resolve", { status: "done", response: "x" }, tok.admin))
        .status,
    ).toBe(404);
    const trail = await sqlRows<{ action: string }>(
      "select action from audit_events where subject_id = ? order by created_at",
      id,
    );
    expect(trail.map((e) => e.action)).toEqual(["account.correction_request", "account.request_resolve"]);
  });

  it("at most five open at once; experts and admins may ask too", async () => {
    for (let i = 0; i < 5; i++)
      expect((await api.post("/rights/correction-requests", { details: `fix ${i}` }, tok.ravi)).status).toBe(
        201,
      );
    const sixth = await api.post("/rights/correction-requests", { details: "one more" }, tok.ravi);
    expect(sixth.status).toBe(409);
    expect(sixth.body.message).toMatch(/5 open requests/);
    expect(
      (await api.post("/rights/correction-requests", { details: "My council is KMC" }, tok.doc)).status,
    ).toBe(201);
  });
});

describe("erasure with notice", () => {
  it("needs the password, gives 48 hours' notice, and mails a link that cancels once without signing in", async () => {
    const wrong = await api.post("/rights/erasure", { password: "not-my-password" }, tok.meena);
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors.password).toBeTruthy();
    const since = smtp.mails.length;
    const made = await api.post("/rights/erasure", { password: strongPassword }, tok.meena);
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ type: "erasure", status: "open" });
    const due = Date.parse(made.body.data.dueAt) - Date.now();
    expect(due).toBeGreaterThan(47.9 * 3_600_000);
    expect(due).toBeLessThanOrEqual(48 * 3_600_000);
    expect((await api.post("/rights/erasure", { password: strongPassword }, tok.meena)).status).toBe(409);
    const notice = await mailAfter(since, "meena@rights.test", /will be deleted/);
    const token = cancelTokenFrom(notice);
    expect(body(notice)).not.toContain(made.body.data._id);

    // Opening the link changes nothing (mail scanners open links); the button does.
    const anon = new Browserish(server.url);
    const page = await anon.fetch(`/my-data/cancel-erasure/${token}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Keep my account");
    expect((await api.get("/rights/requests", tok.meena)).body.data[0].status).toBe("open");
    const done = await anon.post(`/my-data/cancel-erasure/${token}`, {});
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("your account will not be deleted");
    const twice = await anon.post(`/my-data/cancel-erasure/${token}`, {});
    expect(twice.status).toBe(404);
    expect(await twice.text()).toContain("no longer cancels anything");
    expect((await api.post("/rights/erasure/cancel", { token }, undefined)).status).toBe(404);
    expect((await api.get("/rights/requests", tok.meena)).body.data[0].status).toBe("cancelled");

    // Signed in, the person cancels their own; then there is nothing left to cancel.
    expect((await api.post("/rights/erasure", { password: strongPassword }, tok.meena)).status).toBe(201);
    expect((await api.post("/rights/erasure/cancel", {}, tok.meena)).status).toBe(200);
    expect((await api.post("/rights/erasure/cancel", {}, tok.meena)).status).toBe(404);
    expect((await api.post("/rights/erasure/cancel", {})).status).toBe(401);
    expect((await api.post("/rights/erasure/cancel", { token: "x".repeat(500) })).status).toBe(400);

    // Link and signed-in cancel at once: exactly one wins.
    const beforeThird = smtp.mails.length;
    await api.post("/rights/erasure", { password: strongPassword }, tok.meena);
    const third = await mailAfter(beforeThird, "meena@rights.test", /will be deleted/);
    const t3 = cancelTokenFrom(third);
    expect(t3).not.toBe(token);
    const both = await Promise.all([
      api.post("/rights/erasure/cancel", { token: t3 }),
      api.post("/rights/erasure/cancel", {}, tok.meena),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 404]);
    // Two erasure requests at once: one is made, the other is told there is one.
    const twoAsks = await Promise.all([
      api.post("/rights/erasure", { password: strongPassword }, tok.meena),
      api.post("/rights/erasure", { password: strongPassword }, tok.meena),
    ]);
    expect(twoAsks.map((r) => r.status).sort()).toEqual([201, 409]);
    expect((await api.post("/rights/erasure/cancel", {}, tok.meena)).status).toBe(200);
    const actions = await sqlRows<{ action: string }>(
      "select e.action from audit_events e join rights_requests r on r.id = e.subject_id where r.user_id = ? and r.type = 'erasure'",
      ids.meena,
    );
    expect(actions.filter((a) => a.action === "account.erasure_request")).toHaveLength(4);
    expect(actions.filter((a) => a.action === "account.erasure_cancel")).toHaveLength(4);
    // The token is kept only as a hash.
    const stored = await sqlRows<{ h: string }>(
      "select cancel_token_hash as h from rights_requests where user_id = ? and type = 'erasure'",
      ids.meena,
    );
    expect(stored.every((r) => r.h && !r.h.includes(t3))).toBe(true);
  });

  it("admins see an open erasure and may only reject it", async () => {
    const made = await api.post("/rights/erasure", { password: strongPassword }, tok.ravi);
    const id = made.body.data._id;
    const queue = await api.get("/admin/rights-requests?type=erasure", tok.admin);
    expect(queue.body.data.find((r: { _id: string }) => r._id === id)).toMatchObject({ status: "open" });
    const done = await api.post(
      `/admin/rights-requests/${id}/resolve`,
      { status: "done", response: "ok" },
      tok.admin,
    );
    expect(done.status).toBe(400);
    const rejected = await api.post(
      `/admin/rights-requests/${id}/resolve`,
      { status: "rejected", response: "A court order requires us to keep these records." },
      tok.admin,
    );
    expect(rejected.status).toBe(200);
    expect((await api.post("/rights/erasure/cancel", {}, tok.ravi)).status).toBe(404);
  });
});

describe("nominee", () => {
  it("set, read, change and remove, each audited; bad input loses nothing", async () => {
    expect((await api.get("/rights/nominee", tok.asha)).body.data).toBeNull();
    const bad = await api.put("/rights/nominee", { name: "", contact: "call me maybe" }, tok.asha);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["contact", "name"]);
    const set = await api.put(
      "/rights/nominee",
      { name: "Sunil Verma", relationship: "Son", contact: "+91 98450 12345" },
      tok.asha,
    );
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({
      name: "Sunil Verma",
      relationship: "Son",
      contact: "+91 98450 12345",
    });
    expect((await api.get("/rights/nominee", tok.asha)).body.data).toMatchObject({ name: "Sunil Verma" });
    const changed = await api.put(
      "/rights/nominee",
      { name: "Sunil Verma", contact: "sunil@example.in" },
      tok.asha,
    );
    expect(changed.body.data).toMatchObject({ relationship: "", contact: "sunil@example.in" });
    expect((await api.get("/rights/nominee", tok.ravi)).body.data).toBeNull(); // someone else's is not shown
    expect((await api.del("/rights/nominee", undefined, tok.asha)).status).toBe(200);
    expect((await api.del("/rights/nominee", undefined, tok.asha)).status).toBe(404);
    const trail = await sqlRows<{ action: string; detail: string | null }>(
      "select action, detail from audit_events where subject_id = ? and action like 'account.nominee%' order by created_at",
      ids.asha,
    );
    expect(trail.map((e) => e.action)).toEqual([
      "account.nominee_add",
      "account.nominee_change",
      "account.nominee_remove",
    ]);
    expect(JSON.stringify(trail)).not.toContain("Sunil");
    expect((await api.put("/rights/nominee", { name: "A", contact: "a@b.in" }, tok.doc)).status).toBe(200);
  });
});

describe("who may call what", () => {
  type Who = "anon" | "patient" | "other" | "unapproved" | "expert" | "admin";
  const whoTok = (w: Who) =>
    ({
      anon: undefined,
      patient: tok.asha,
      other: tok.ravi,
      unapproved: tok.newdoc,
      expert: tok.doc,
      admin: tok.admin,
    })[w];
  const rows: [string, string, unknown, Record<Who, number>][] = [
    [
      "GET",
      "/rights/consents",
      undefined,
      { anon: 401, patient: 200, other: 200, unapproved: 403, expert: 403, admin: 403 },
    ],
    [
      "POST",
      "/rights/consents",
      { purpose: "statistics", granted: false },
      { anon: 401, patient: 200, other: 200, unapproved: 403, expert: 403, admin: 403 },
    ],
    [
      "GET",
      "/rights/requests",
      undefined,
      { anon: 401, patient: 200, other: 200, unapproved: 200, expert: 200, admin: 200 },
    ],
    [
      "POST",
      "/rights/correction-requests",
      { details: "" },
      { anon: 401, patient: 400, other: 400, unapproved: 400, expert: 400, admin: 400 },
    ],
    [
      "POST",
      "/rights/erasure",
      { password: "wrong-password-9" },
      { anon: 401, patient: 400, other: 400, unapproved: 400, expert: 400, admin: 400 },
    ],
    [
      "POST",
      "/rights/erasure/cancel",
      {},
      { anon: 401, patient: 404, other: 404, unapproved: 404, expert: 404, admin: 404 },
    ],
    [
      "GET",
      "/rights/nominee",
      undefined,
      { anon: 401, patient: 200, other: 200, unapproved: 200, expert: 200, admin: 200 },
    ],
    [
      "PUT",
      "/rights/nominee",
      {},
      { anon: 401, patient: 400, other: 400, unapproved: 400, expert: 400, admin: 400 },
    ],
    [
      "DELETE",
      "/rights/nominee",
      undefined,
      { anon: 401, patient: 404, other: 404, unapproved: 200, expert: 200, admin: 404 },
    ],
    [
      "GET",
      "/rights/grievance-contact",
      undefined,
      { anon: 200, patient: 200, other: 200, unapproved: 200, expert: 200, admin: 200 },
    ],
    [
      "GET",
      "/admin/rights-requests",
      undefined,
      { anon: 401, patient: 403, other: 403, unapproved: 403, expert: 403, admin: 200 },
    ],
    [
      "POST",
      "/admin/rights-requests/:open/resolve",
      { status: "rejected", response: "checked" },
      { anon: 401, patient: 403, other: 403, unapproved: 403, expert: 403, admin: 200 },
    ],
  ];
  it("each endpoint for strangers, patients, experts and admins", async () => {
    // The unapproved expert names a nominee first, so removing one succeeds (the expert's was set above).
    await api.put("/rights/nominee", { name: "B", contact: "b@c.in" }, tok.newdoc);
    const open = await api.post("/rights/correction-requests", { details: "for the matrix" }, tok.doc);
    ids.open = open.body.data._id;
    for (const [method, path, payload, want] of rows) {
      for (const who of Object.keys(want) as Who[]) {
        const res = await api.raw(
          method,
          path.replace(":open", ids.open),
          payload === undefined ? undefined : payload,
          whoTok(who),
        );
        expect(res.status, `${method} ${path} as ${who}`).toBe(want[who]);
        expect(res.body.success, `${method} ${path} as ${who}`).toBe(want[who] < 300);
      }
    }
  });

  it("a spoofed X-Forwarded-For is not believed, and wrong methods get 405", async () => {
    await api.post("/rights/correction-requests", { details: "spoof" }, tok.asha, {
      "X-Forwarded-For": "203.0.113.9",
    });
    const ips = await sqlRows<{ ip: string }>(
      "select ip from audit_events where actor_id = ? and action = 'account.correction_request'",
      ids.asha,
    );
    expect(ips.every((r) => r.ip !== "203.0.113.9")).toBe(true);
    const wrong = await api.raw("PATCH", "/rights/nominee", "{}", tok.asha);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("Allow")).toBe("GET, PUT, DELETE");
  });

  it("cut-off, malformed and oversized bodies are 400s, never 500s", async () => {
    const url = `${server.url}/api/v1/rights/correction-requests`;
    const send = (b: string, type = "application/json") =>
      raw(url, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${tok.asha}`,
          "Content-Type": type,
          "Content-Length": Buffer.byteLength(b),
        },
        body: b,
      });
    for (const [b, type] of [
      ['{"details": "my na', "application/json"],
      ["[1,2]", "application/json"],
      ["details=x", "application/x-www-form-urlencoded"],
      ['{"details": 42}', "application/json"],
      ['{"details": {"$ne": 1}}', "application/json"],
    ] as const) {
      const res = await send(b, type);
      expect(res.status, b).toBe(400);
      expect(JSON.parse(res.body.toString()).success).toBe(false);
    }
    const big = await send(JSON.stringify({ details: "x".repeat(200_000) }));
    expect([400, 413]).toContain(big.status);
    const nominee = await raw(`${server.url}/api/v1/rights/nominee`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${tok.asha}`, "Content-Type": "application/json" },
      body: '{"name": "\u0000", "contact": "+91 1"}',
    });
    expect(nominee.status).toBe(400);
  });
});

describe("screens without JavaScript", () => {
  it("My data: consents with their versions, withdrawal with its effect, a correction and the nominee", async () => {
    const b = new Browserish(server.url);
    expect((await b.post("/login", { email: "asha@rights.test", password: strongPassword })).status).toBe(
      302,
    );
    const page = await (await b.fetch("/dashboard/my-data")).text();
    for (const text of [
      "What you have agreed to",
      "Text version: review-2026-11",
      "Text version: contact-2026-11",
      "Grievance officer",
      "grievance@carebridge.example",
      "/dashboard/my-data/download",
    ])
      expect(page, text).toContain(text);
    const withdraw = await b.post("/dashboard/my-data", {
      intent: "consent",
      purpose: "contact",
      granted: "false",
    });
    expect(withdraw.status).toBe(302);
    expect(withdraw.headers.get("Location")).toBe("/dashboard/my-data#consent-contact");
    const after = await (await b.follow(withdraw)).text();
    expect(after).toContain("Consent withdrawn.");
    expect(after).toContain("Withdrawn on");

    const empty = await b.post("/dashboard/my-data", { intent: "correction", details: "  " });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("Write what should be corrected.");
    const sent = await b.post("/dashboard/my-data", {
      intent: "correction",
      details: "Spelling of my name: Aasha",
    });
    expect(sent.status).toBe(302);
    const nom = await b.post("/dashboard/my-data", { intent: "nominee", name: "", contact: "" });
    expect(nom.status).toBe(400);
    const saved = await b.post("/dashboard/my-data", {
      intent: "nominee",
      name: "Geeta",
      relationship: "Sister",
      contact: "geeta@example.in",
    });
    expect(saved.status).toBe(302);
    expect(await (await b.fetch("/dashboard/my-data")).text()).toContain('value="Geeta"');
    const wrongPassword = await b.post("/dashboard/my-data", {
      intent: "erasure",
      password: "wrong-one-123",
    });
    expect(wrongPassword.status).toBe(400);
    expect(await wrongPassword.text()).not.toContain("wrong-one-123");
    // A form from another site is refused.
    const cross = await b.fetch("/dashboard/my-data", {
      method: "POST",
      body: new URLSearchParams({ intent: "consent", purpose: "statistics", granted: "true" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
    });
    expect(cross.status).toBe(403);
  });

  it("the admin queue: filter, preview the answer, send it; the patient reads it", async () => {
    const admin = new Browserish(server.url);
    expect((await admin.post("/login", ADMIN)).status).toBe(302);
    const queue = await (await admin.fetch("/dashboard/rights-requests?type=correction")).text();
    expect(queue).toContain("Spelling of my name: Aasha");
    const id = (await api.get("/rights/requests", tok.asha)).body.data.find(
      (r: { details: string }) => r.details === "Spelling of my name: Aasha",
    )._id;
    const empty = await admin.post("/dashboard/rights-requests", {
      intent: "preview",
      requestId: id,
      status: "done",
    });
    expect(empty.status).toBe(400);
    const preview = await admin.post("/dashboard/rights-requests", {
      intent: "preview",
      requestId: id,
      status: "done",
      response: "Your name now reads Aasha.",
    });
    expect(preview.status).toBe(200);
    const previewText = await preview.text();
    expect(previewText).toContain("Mark this request done?");
    expect(
      (await api.get("/rights/requests", tok.asha)).body.data.find((r: { _id: string }) => r._id === id)
        .status,
    ).toBe("open");
    const sent = await admin.post("/dashboard/rights-requests", {
      intent: "resolve",
      requestId: id,
      status: "done",
      response: "Your name now reads Aasha.",
      redirectTo: "/dashboard/rights-requests?type=correction",
    });
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe("/dashboard/rights-requests?type=correction");
    const patient = new Browserish(server.url);
    await patient.post("/login", { email: "asha@rights.test", password: strongPassword });
    expect(await (await patient.fetch("/dashboard/my-data")).text()).toContain("Your name now reads Aasha.");
    // Not for anyone else.
    expect((await patient.fetch("/dashboard/rights-requests")).status).toBe(404);
  });

  it("the grievance officer is on Contact Us; a wrong cancel link says so", async () => {
    const contact = await (await fetch(`${server.url}/contact-us`)).text();
    expect(contact).toContain("grievance@carebridge.example");
    const res = await fetch(`${server.url}/my-data/cancel-erasure/not-a-real-token`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("no longer cancels anything");
    const grievance = await api.get("/rights/grievance-contact");
    expect(grievance.body.data).toEqual({
      name: "Grievance Officer, CareBridge",
      email: "grievance@carebridge.example",
      phone: "+91 1800 123 4567",
    });
  });
});

describe("the server's own log", () => {
  it("has no 5xx and never a cancel token (only the route pattern)", async () => {
    await new Promise((r) => setTimeout(r, 100));
    const lines = server
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.length).toBeGreaterThan(100);
    expect(requests.filter((l) => l.status >= 500)).toEqual([]);
    expect(requests.map((l) => l.route)).toContain("/my-data/cancel-erasure/:token");
    for (const t of cancelTokens) expect(server.output()).not.toContain(t);
  });
});

describe("erasure carried out (notice in seconds)", () => {
  let fast: TestServer;
  let fastApi: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    fast = await startServer({
      SMTP_URL: smtp.url,
      RATE_LIMIT_DISABLED: "1",
      ERASURE_NOTICE_SECONDS: "2",
      RIGHTS_JOB_SECONDS: "1",
      GRIEVANCE_NAME: "Dr. Kavya Iyer, Grievance Officer",
      GRIEVANCE_EMAIL: "dpo@clinic.example",
    });
    fastApi = apiClient(fast.url);
  }, 60_000);
  afterAll(() => fast?.stop());

  it("the account, its files and personal data go; the audit trail stays without them; old events are pruned", async () => {
    const who = await signupViaApi(fastApi, smtp, codeFrom, {
      email: "leaving@rights.test",
      firstName: "Priyanka",
      lastName: "Leaving",
    });
    const keep = await signupViaApi(fastApi, smtp, codeFrom, { email: "staying@rights.test" });
    const userId = who.user._id;
    const up = await upload(who.token, { consent: "true", description: "Chest pain at night" }, fastApi);
    expect(up.status).toBe(201);
    const stay = await upload(keep.token, { consent: "true" }, fastApi);
    await fastApi.put("/rights/nominee", { name: "Raj", contact: "+91 98450 11111" }, who.token);
    await fastApi.post("/rights/correction-requests", { details: "My surname is Leaving-Rao" }, who.token);
    await fastApi.get(`/report/${up.body.data._id}/file`, who.token); // an audited file opening with an address
    const db = await openTestDb(fast.dataDir, { write: true });
    try {
      const key = (await db.get<{ k: string }>(
        "select file_key as k from reports where id = ?",
        up.body.data._id,
      ))!.k;
      const stayKey = (await db.get<{ k: string }>(
        "select file_key as k from reports where id = ?",
        stay.body.data._id,
      ))!.k;
      expect(await storedKeys(fast)).toEqual(expect.arrayContaining([key, stayKey]));
      expect(
        (await db.get<{ n: number }>("select count(*) as n from audit_events where actor_id = ?", userId))!.n,
      ).toBeGreaterThan(2);
      // An event from long ago: the retention (at least a year; 1095 days by default) removes it.
      await db.run(
        "insert into audit_events (id, actor_id, action, subject_type, subject_id, created_at) values (?, null, 'report.file_open', 'report', 'old', ?)",
        "0123456789abcdef01234567",
        db.time(Date.now() - 1200 * 86_400_000),
      );

      const made = await fastApi.post("/rights/erasure", { password: strongPassword }, who.token);
      expect(made.status).toBe(201);
      const notice = await smtp.waitFor("leaving@rights.test", /will be deleted/);
      expect(body(notice)).toContain(`${fast.url}/my-data/cancel-erasure/`);
      const deadline = Date.now() + 20_000;
      while (
        (await fastApi.post("/auth/login", { email: "leaving@rights.test", password: strongPassword }))
          .status !== 401
      ) {
        if (Date.now() > deadline) throw new Error("the erasure was not carried out");
        await new Promise((r) => setTimeout(r, 300));
      }
      await smtp.waitFor("leaving@rights.test", /has been deleted/);

      // The account and everything hanging off it are gone, the files from the store too.
      for (const [table, col] of [
        ["users", "id"],
        ["reports", "patient_id"],
        ["consent_records", "user_id"],
        ["nominees", "user_id"],
        ["sessions", "user_id"],
      ])
        expect(
          (await db.get<{ n: number }>(`select count(*) as n from ${table} where ${col} = ?`, userId))!.n,
          table,
        ).toBe(0);
      const keys = await storedKeys(fast);
      expect(keys).not.toContain(key);
      expect(keys).toContain(stayKey);
      // The requests stay as the record of what was done, without the person or their words.
      const reqs = await db.all<{ type: string; status: string; user_id: string | null; details: string }>(
        "select type, status, user_id, details from rights_requests where details like ? or (type = 'erasure' and status = 'done')",
        "%Leaving%",
      );
      expect(reqs).toEqual([{ type: "erasure", status: "done", user_id: null, details: "" }]);
      // The audit trail keeps what happened and when, under a pseudonym, without the address.
      expect(
        (await db.get<{ n: number }>(
          "select count(*) as n from audit_events where actor_id = ? or subject_id = ?",
          userId,
          userId,
        ))!.n,
      ).toBe(0);
      const pseudo = await db.all<{ actor_id: string; ip: string | null; action: string }>(
        "select actor_id, ip, action from audit_events where actor_id like 'erased-%'",
      );
      expect(pseudo.length).toBeGreaterThan(2);
      expect(new Set(pseudo.map((e) => e.actor_id)).size).toBe(1);
      expect(pseudo.every((e) => e.ip === null)).toBe(true);
      expect(pseudo.map((e) => e.action)).toEqual(
        expect.arrayContaining(["report.upload", "account.erasure_request"]),
      );
      const all = JSON.stringify(await db.all("select * from audit_events"));
      for (const personal of ["leaving@rights.test", "Priyanka", "Chest pain", "Raj", "98450"])
        expect(all, personal).not.toContain(personal);
      const erasure = await db.get<{ detail: string }>(
        "select detail from audit_events where action = 'account.erasure'",
      );
      expect(JSON.parse(erasure!.detail)).toMatchObject({ person: pseudo[0].actor_id, files: 1 });
      // Retention: the old event went, and the pruning is itself recorded.
      expect(
        (await db.get<{ n: number }>("select count(*) as n from audit_events where subject_id = 'old'"))!.n,
      ).toBe(0);
      expect(
        (await db.get<{ n: number }>(
          "select count(*) as n from audit_events where action = 'account.audit_prune'",
        ))!.n,
      ).toBe(1);
      // The other patient is untouched.
      expect((await fastApi.get("/profile/get-user-details", keep.token)).status).toBe(200);
    } finally {
      await db.close();
    }
    // GRIEVANCE_* override the site configuration.
    expect((await fastApi.get("/rights/grievance-contact")).body.data).toEqual({
      name: "Dr. Kavya Iyer, Grievance Officer",
      email: "dpo@clinic.example",
      phone: "+91 1800 123 4567",
    });
  });
});
