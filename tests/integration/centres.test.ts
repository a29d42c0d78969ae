import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * Centres and health workers over HTTP against the built app: every endpoint as a stranger, a
 * patient, an expert, a health worker waiting for approval, an approved health worker of another
 * centre and an admin; bad bodies (400 naming the field), unknown ids (404); a health worker's
 * signup through the API and through the screen without JavaScript, approval opening uploads,
 * suspension closing the account; the admin's screens.
 */

const ADMIN = { email: "admin@centres.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

type Who = "stranger" | "patient" | "expert" | "waitingWorker" | "otherWorker" | "admin";
const NOT_ADMINS: Who[] = ["patient", "expert", "waitingWorker", "otherWorker"];
const EVERYONE: Who[] = ["stranger", ...NOT_ADMINS, "admin"];

type Kind = "hwc" | "phc" | "chc" | "clinic" | "csc";
const centreBody = (name: string, over: { kind?: Kind; pinCode?: string; district?: string } = {}) => ({
  name,
  kind: "hwc" as Kind,
  district: "Krishnagiri",
  state: "Tamil Nadu",
  pinCode: "635109",
  ...over,
});

/** A health worker's signup through the API (send-otp, then signup with the centre, role and ID). */
async function signupWorker(email: string, centreId: string, role = "cho") {
  return signupViaApi(api, smtp, codeFrom, {
    email,
    firstName: "Lakshmi",
    extra: { accountType: "HealthWorker", centreId, workerRole: role as "cho", workerId: "CHO-7" } as never,
  });
}

const call = (method: string, path: string, who: Who, body?: unknown) =>
  api.raw(method, path, body, who === "stranger" ? undefined : tok[who]);

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
  const made = await api.post("/centres", centreBody("Ayushman Arogya Mandir, Hosur"), tok.admin);
  expect(made.status).toBe(201);
  ids.centre = made.body.data._id;
  ids.other = (
    await api.post("/centres", centreBody("PHC Bagalur", { kind: "phc" }), tok.admin)
  ).body.data._id;
  tok.patient = (await signupViaApi(api, smtp, codeFrom, { email: "patient@centres.test" })).token;
  const expert = await signupViaApi(api, smtp, codeFrom, {
    email: "expert@centres.test",
    accountType: "Expert",
  });
  await api.post("/expert/approve-expert", { expertId: expert.user._id }, tok.admin);
  tok.expert = expert.token;
  const waiting = await signupWorker("waiting@centres.test", ids.centre, "asha");
  tok.waitingWorker = waiting.token;
  ids.waitingWorker = waiting.user._id;
  const other = await signupWorker("other@centres.test", ids.other);
  tok.otherWorker = other.token;
  ids.otherWorker = other.user._id;
  expect(
    (await api.raw("POST", `/health-workers/${ids.otherWorker}/approve`, undefined, tok.admin)).status,
  ).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("who may call the centre and health worker endpoints", () => {
  const rows: [string, string, () => unknown, Record<Who, number>][] = [
    [
      "GET",
      "/centres/directory",
      () => undefined,
      Object.fromEntries(EVERYONE.map((w) => [w, 200])) as never,
    ],
    ["GET", "/centres", () => undefined, { stranger: 401, ...forbidden(), admin: 200 }],
    [
      "POST",
      "/centres",
      () => centreBody("CSC Thally", { kind: "csc" }),
      { stranger: 401, ...forbidden(), admin: 201 },
    ],
    ["GET", "/centres/:centre", () => undefined, { stranger: 401, ...forbidden(), admin: 200 }],
    [
      "PATCH",
      "/centres/:centre",
      () => ({ district: "Krishnagiri" }),
      { stranger: 401, ...forbidden(), admin: 200 },
    ],
    ["GET", "/centres/:centre/stats", () => undefined, { stranger: 401, ...forbidden(), admin: 200 }],
    ["GET", "/centres/:centre/overdue", () => undefined, { stranger: 401, ...forbidden(), admin: 200 }],
    [
      "GET",
      "/health-workers?status=approved",
      () => undefined,
      { stranger: 401, ...forbidden(), admin: 200 },
    ],
    // Approving an approved worker changes nothing (200); declining one is a conflict.
    [
      "POST",
      "/health-workers/:otherWorker/approve",
      () => undefined,
      { stranger: 401, ...forbidden(), admin: 200 },
    ],
    [
      "POST",
      "/health-workers/:otherWorker/reject",
      () => ({ reason: "No such ID" }),
      { stranger: 401, ...forbidden(), admin: 409 },
    ],
    [
      "PATCH",
      "/health-workers/:otherWorker",
      () => ({ centreId: ids.other }),
      { stranger: 401, ...forbidden(), admin: 200 },
    ],
  ];
  function forbidden() {
    return Object.fromEntries(NOT_ADMINS.map((w) => [w, 403])) as Record<
      Exclude<Who, "stranger" | "admin">,
      number
    >;
  }
  it.each(
    rows.flatMap(([m, p, body, want]) => EVERYONE.map((who) => [`${m} ${p}`, who, body, want[who]] as const)),
  )("%s as %s", async (route, who, body, want) => {
    const [method, p] = route.split(" ");
    const path = p.replace(/:(\w+)/g, (_, k) => ids[k]);
    const res = await call(method, path, who, body());
    expect(res.status, JSON.stringify(res.body)).toBe(want);
    if (want === 401) expect(res.body.success).toBe(false);
  });
});

describe("centres over the API", () => {
  it("creates a centre and refuses bad bodies with the field that is wrong", async () => {
    const bad = await api.raw(
      "POST",
      "/centres",
      { name: "", kind: "hospital", district: "Krishnagiri", state: "Tamil Nadu", pinCode: "63510" },
      tok.admin,
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["kind", "name", "pinCode"]);
    expect(bad.body.errors.pinCode[0]).toMatch(/6 digits/);
    const missing = await api.raw("POST", "/centres", {}, tok.admin);
    expect(Object.keys(missing.body.errors).sort()).toEqual(["district", "kind", "name", "pinCode", "state"]);
    expect(
      (await api.raw("POST", "/centres", "not json", tok.admin, { "Content-Type": "text/plain" })).status,
    ).toBe(400);
    expect((await api.raw("POST", "/centres", [1], tok.admin)).status).toBe(400);
    // In Hindi, the message is Hindi.
    const hi = await api.raw("POST", "/centres", centreBody("X", { pinCode: "1" }), tok.admin, {
      "Accept-Language": "hi",
    });
    expect(hi.body.errors.pinCode[0]).toContain("पिन कोड");

    const made = await api.post(
      "/centres",
      centreBody("  CHC Denkanikottai ", { kind: "chc", pinCode: "635107" }),
      tok.admin,
    );
    expect(made.body.data).toMatchObject({ name: "CHC Denkanikottai", kind: "chc", pinCode: "635107" });
    const listed = await api.get("/centres?pageSize=100", tok.admin);
    const row = listed.body.data.find((c: { _id: string }) => c._id === made.body.data._id);
    // A new centre: nothing yet, no times.
    expect(row.stats).toEqual({
      pending: 0,
      inReview: 0,
      overdue: 0,
      windowDays: 30,
      reviewedInWindow: 0,
      medianMs: null,
      p90Ms: null,
      patients: 0,
      reviewed: 0,
      workers: { approved: 0, pending: 0, suspended: 0 },
    });
    expect(listed.body.pagination).toMatchObject({ page: 1, pageSize: 100 });
  });

  it("edits a centre; an unknown one is 404, bad values 400", async () => {
    const path = `/centres/${ids.centre}` as const;
    const ok = await api.call("PATCH", `/centres/${ids.centre}`, { pinCode: "635110" }, tok.admin);
    expect(ok.status).toBe(200);
    expect(ok.body.data.pinCode).toBe("635110");
    const bad = await api.raw("PATCH", path, { pinCode: "ABCDEF", kind: "x" }, tok.admin);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["kind", "pinCode"]);
    expect((await api.raw("PATCH", path, {}, tok.admin)).status).toBe(400);
    expect((await api.raw("PATCH", "/centres/no-such-centre", { name: "X" }, tok.admin)).status).toBe(404);
    for (const p of [
      "/centres/no-such-centre",
      "/centres/no-such-centre/stats",
      "/centres/no-such-centre/overdue",
    ])
      expect((await api.raw("GET", p, undefined, tok.admin)).status).toBe(404);
    const one = await api.raw("GET", path, undefined, tok.admin);
    expect(one.body.data).toMatchObject({ _id: ids.centre, stats: { workers: { pending: 1 } } });
    expect((await api.raw("GET", `${path}/overdue`, undefined, tok.admin)).body.data).toEqual([]);
  });

  it("the directory names every centre without its PIN code, for anyone", async () => {
    const res = await api.get("/centres/directory");
    expect(res.status).toBe(200);
    const hosur = res.body.data.find((c: { _id: string }) => c._id === ids.centre);
    expect(hosur).toEqual({
      _id: ids.centre,
      name: "Ayushman Arogya Mandir, Hosur",
      kind: "hwc",
      district: "Krishnagiri",
      state: "Tamil Nadu",
    });
  });
});

describe("health workers over the API", () => {
  it("a health worker signs up for an existing centre with a role and an ID; else 400 on the field", async () => {
    const sent = await api.post("/auth/send-otp", { email: "nocentre@centres.test" });
    expect(sent.status).toBe(200);
    const code = codeFrom(await smtp.waitFor("nocentre@centres.test", /verification code/));
    const base = {
      accountType: "HealthWorker",
      firstName: "Sunita",
      lastName: "Kumari",
      email: "nocentre@centres.test",
      contactNumber: "9876543210",
      password: strongPassword,
      confirmPassword: strongPassword,
      otp: code,
    };
    const missing = await api.raw("POST", "/auth/signup", base);
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(["centreId", "workerId", "workerRole"]);
    const unknown = await api.raw("POST", "/auth/signup", {
      ...base,
      centreId: "no-such-centre",
      workerRole: "asha",
      workerId: "AS-1",
    });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.errors)).toEqual(["centreId"]);
    const badRole = await api.raw("POST", "/auth/signup", {
      ...base,
      centreId: ids.centre,
      workerRole: "nurse",
      workerId: "X",
    });
    expect(Object.keys(badRole.body.errors)).toEqual(["workerRole"]);
    // The code was not used up by the refusals: the right body signs up.
    const ok = await api.raw("POST", "/auth/signup", {
      ...base,
      centreId: ids.centre,
      workerRole: "anm",
      workerId: "ANM 22/7",
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ accountType: "HealthWorker", approved: false });
  });

  it("waits for approval: uploads refused, listed as pending; approval opens uploads and tells them", async () => {
    const upload = () =>
      api.call(
        "POST",
        "/report/upload-report",
        uploadForm(
          { reportType: "ECG", phoneNumber: "9876543210", consent: "on" },
          { name: "a.pdf", data: samplePdf() },
        ),
        tok.waitingWorker,
      );
    const before = await upload();
    expect(before.status).toBe(403);
    expect(before.body.message).toMatch(/not approved/);

    const pending = await api.get("/health-workers", tok.admin);
    const me = pending.body.data.find((w: { _id: string }) => w._id === ids.waitingWorker);
    expect(me).toMatchObject({
      role: "asha",
      workerId: "CHO-7",
      status: "pending",
      centre: { _id: ids.centre, name: "Ayushman Arogya Mandir, Hosur" },
    });
    expect(
      (await api.raw("GET", "/health-workers?status=sleeping", undefined, tok.admin)).body.errors,
    ).toHaveProperty("status");

    const approved = await api.raw(
      "POST",
      `/health-workers/${ids.waitingWorker}/approve`,
      undefined,
      tok.admin,
    );
    expect(approved.status).toBe(200);
    expect(approved.body.data.status).toBe("approved");
    const mail = await smtp.waitFor("waiting@centres.test", /health worker account/);
    expect(mail.raw).toContain("Ayushman Arogya Mandir");
    // Now past the approval check: the upload asks whose report it is (one of the centre's patients).
    const after = await upload();
    expect(after.status).toBe(400);
    expect(after.body.errors).toHaveProperty("patientId");
    expect(
      (await api.get("/health-workers?status=pending", tok.admin)).body.data.map(
        (w: { _id: string }) => w._id,
      ),
    ).not.toContain(ids.waitingWorker);
    expect((await api.raw("POST", "/health-workers/no-such-user/approve", undefined, tok.admin)).status).toBe(
      404,
    );
  });

  it("declines with a reason; moves; suspends and reinstates", async () => {
    const w = await signupWorker("decline@centres.test", ids.centre);
    const noReason = await api.raw("POST", `/health-workers/${w.user._id}/reject`, {}, tok.admin);
    expect(noReason.status).toBe(400);
    expect(noReason.body.errors).toHaveProperty("reason");
    const declined = await api.raw(
      "POST",
      `/health-workers/${w.user._id}/reject`,
      { reason: "ID not in the register" },
      tok.admin,
    );
    expect(declined.status).toBe(200);
    expect(declined.body.data.status).toBe("suspended");
    expect((await smtp.waitFor("decline@centres.test", /application/)).raw).toContain(
      "ID not in the register",
    );
    expect((await api.get("/profile/get-user-details", w.token)).status).toBe(401);

    const moveBad = await api.raw(
      "PATCH",
      `/health-workers/${ids.otherWorker}`,
      { centreId: "nowhere" },
      tok.admin,
    );
    expect(moveBad.status).toBe(400);
    expect(moveBad.body.errors).toHaveProperty("centreId");
    const notBool = await api.raw(
      "PATCH",
      `/health-workers/${ids.otherWorker}`,
      { suspended: "yes" },
      tok.admin,
    );
    expect(notBool.body.errors).toHaveProperty("suspended");
    expect((await api.raw("PATCH", "/health-workers/nobody", { suspended: true }, tok.admin)).status).toBe(
      404,
    );
    expect((await api.raw("PATCH", `/health-workers/${ids.otherWorker}`, {}, tok.admin)).status).toBe(400);

    const moved = await api.raw(
      "PATCH",
      `/health-workers/${ids.otherWorker}`,
      { centreId: ids.centre },
      tok.admin,
    );
    expect(moved.body.data.centre._id).toBe(ids.centre);
    const suspended = await api.raw(
      "PATCH",
      `/health-workers/${ids.otherWorker}`,
      { suspended: true },
      tok.admin,
    );
    expect(suspended.body.data.status).toBe("suspended");
    expect((await api.get("/profile/get-user-details", tok.otherWorker)).status).toBe(401);
    const login = await api.raw("POST", "/auth/login", {
      email: "other@centres.test",
      password: strongPassword,
    });
    expect(login.status).toBe(403);
    await api.raw(
      "PATCH",
      `/health-workers/${ids.otherWorker}`,
      { suspended: false, centreId: ids.other },
      tok.admin,
    );
    const back = await api.post("/auth/login", { email: "other@centres.test", password: strongPassword });
    expect(back.status).toBe(200);
    tok.otherWorker = back.body.token;

    const db = await openTestDb(server.dataDir);
    const actions = (
      await db.all<{ action: string }>(
        "select action from audit_events where subject_id = ? order by created_at",
        ids.otherWorker,
      )
    ).map((r) => r.action);
    await db.close();
    expect(actions).toEqual(
      expect.arrayContaining([
        "centre.worker_approve",
        "centre.worker_move",
        "centre.worker_suspend",
        "centre.worker_unsuspend",
      ]),
    );
  });
});

describe("screens without JavaScript", () => {
  it("a health worker signs up on the signup screen for a centre and sees that they wait for approval", async () => {
    const b = new Browserish(server.url);
    const form = await b.fetch("/signup");
    const html = await form.text();
    expect(html).toContain("Ayushman Arogya Mandir, Hosur");
    expect(html).toContain('value="HealthWorker"');
    const fields = {
      accountType: "HealthWorker",
      firstName: "Radha",
      lastName: "Naik",
      email: "radha@centres.test",
      countryCode: "+91",
      contactNumber: "9876543210",
      password: strongPassword,
      confirmPassword: strongPassword,
    };
    const bare = await b.post("/signup", fields);
    expect(bare.status).toBe(400);
    const bareText = pageText(await bare.text());
    expect(bareText).toContain("Choose your centre.");
    expect(bareText).toContain("Choose your role.");
    expect(bareText).toContain("Enter your ID");
    // A patient who looked at the health worker's fields first is not refused over them (they are hidden).
    const asPatient = await new Browserish(server.url).post("/signup", {
      ...fields,
      email: "radha-patient@centres.test",
      accountType: "Patient",
      workerRole: "nurse",
      workerId: "#?",
    });
    expect(asPatient.status).toBe(302);
    const res = await b.post("/signup", {
      ...fields,
      centreId: ids.centre,
      workerRole: "cho",
      workerId: "CHO-HSR-9",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/verify-email");
    const code = codeFrom(await smtp.waitFor("radha@centres.test", /verification code/));
    const ok = await b.post("/verify-email", {
      intent: "verify",
      ...Object.fromEntries(code.split("").map((d, i) => [`d${i + 1}`, d])),
    });
    expect(ok.headers.get("Location")).toBe("/login");
    const login = await b.post("/login", { email: "radha@centres.test", password: strongPassword });
    expect(login.status).toBe(302);
    const home = await b.follow(login);
    const text = pageText(await home.text());
    expect(text).toContain("Waiting for approval");
    expect(text).toContain("Ayushman Arogya Mandir, Hosur");

    const db = await openTestDb(server.dataDir);
    const row = await db.get(
      "select u.approved, h.role, h.worker_id, h.centre_id from users u join health_workers h on h.user_id = u.id where u.email = ?",
      "radha@centres.test",
    );
    await db.close();
    expect({ ...row, approved: Boolean(row!.approved) }).toEqual({
      approved: false,
      role: "cho",
      worker_id: "CHO-HSR-9",
      centre_id: ids.centre,
    });
  });

  it("admins add and edit centres and approve health workers; others get the not-found page", async () => {
    const b = new Browserish(server.url);
    expect((await b.post("/login", ADMIN)).status).toBe(302);
    const list = await b.fetch("/dashboard/centres");
    expect(list.status).toBe(200);
    expect(pageText(await list.text())).toContain("Ayushman Arogya Mandir, Hosur");
    const hindi = await b.inLanguage("hi").fetch("/dashboard/centres");
    expect(pageText(await hindi.text())).toContain("केंद्र जोड़ें");

    const bad = await b.post("/dashboard/centres", {
      intent: "create",
      ...centreBody("Sub-centre Kelamangalam", { pinCode: "63" }),
    });
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(pageText(badHtml)).toContain("A PIN code is 6 digits");
    // Nothing lost: what was typed is still there.
    expect(badHtml).toContain('value="Sub-centre Kelamangalam"');
    const made = await b.post("/dashboard/centres", {
      intent: "create",
      ...centreBody("Sub-centre Kelamangalam", { kind: "clinic" }),
    });
    expect(made.status).toBe(302);
    const where = made.headers.get("Location")!;
    expect(where).toMatch(/^\/dashboard\/centres\/[a-f0-9]{24}$/);
    const page = await b.follow(made);
    expect(pageText(await page.text())).toContain("Sub-centre Kelamangalam");
    const edited = await b.post(where, {
      intent: "update",
      ...centreBody("Sub-centre Kelamangalam", { kind: "clinic", district: "Hosur" }),
    });
    expect(edited.status).toBe(302);
    expect(pageText(await (await b.follow(edited)).text())).toContain("Hosur, Tamil Nadu");
    expect((await b.fetch("/dashboard/centres/no-such-centre")).status).toBe(404);

    const w = await signupWorker("screen-approve@centres.test", ids.other, "vle");
    // The users screen names health workers as such, and says when one waits for approval.
    const users = pageText(await (await b.fetch("/dashboard/users")).text());
    expect(users).toContain("Health worker · awaiting approval");
    const workers = await b.fetch("/dashboard/centres/workers");
    expect(pageText(await workers.text())).toContain("screen-approve@centres.test");
    const approve = await b.post("/dashboard/centres/workers", { intent: "approve", userId: w.user._id });
    expect(approve.status).toBe(302);
    expect(
      (await api.get("/health-workers?status=approved&pageSize=100", tok.admin)).body.data.map(
        (x: { _id: string }) => x._id,
      ),
    ).toContain(w.user._id);
    // The audit log names the approval in the admin's language, never by its recorded name, and
    // its filter offers it.
    const logOf = (html: string) =>
      pageText(/<table[^>]*data-testid="audit-log"[\s\S]*?<\/table>/.exec(html)?.[0] ?? "");
    const approvals = "/dashboard/audit-log?action=centre.worker_approve";
    const logHtml = await (await b.fetch(approvals)).text();
    expect(logHtml).toContain(
      '<option value="centre.worker_approve" selected="">Health worker approved</option>',
    );
    const log = logOf(logHtml);
    expect(log).toContain("Health worker approved");
    expect(log).toContain(`User ${w.user._id}`);
    expect(log).not.toMatch(/centre\.|Centre added/);
    expect(logOf(await (await b.inLanguage("hi").fetch(approvals)).text())).toContain(
      "स्वास्थ्य कार्यकर्ता स्वीकृत किया गया",
    );
    const noReason = await b.post("/dashboard/centres/workers", {
      intent: "reject",
      userId: w.user._id,
      reason: "",
    });
    expect(noReason.status).toBe(302);

    for (const who of ["patient@centres.test", "expert@centres.test", "other@centres.test"]) {
      const o = new Browserish(server.url);
      expect((await o.post("/login", { email: who, password: strongPassword })).status).toBe(302);
      for (const p of [
        "/dashboard/centres",
        `/dashboard/centres/${ids.centre}`,
        "/dashboard/centres/workers",
      ])
        expect((await o.fetch(p)).status, `${who} ${p}`).toBe(404);
      expect((await o.post("/dashboard/centres", { intent: "create", ...centreBody("Sneaky") })).status).toBe(
        404,
      );
    }
    const anon = new Browserish(server.url);
    expect((await anon.fetch("/dashboard/centres")).headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
  });
});
