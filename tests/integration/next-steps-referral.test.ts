import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/**
 * An opinion's next steps at the centre and the facility (decision 0114), over HTTP against the
 * built server: the referral page's code + year-of-birth gate (a wrong code and a wrong year answer
 * alike; wrong tries limited per code and per address, X-Forwarded-For from an untrusted peer
 * ignored), the facility's acknowledgement seen on the worklist, the referral letter's PDF and who
 * may fetch it, the worklist (her centre's steps only; closing with a reason when declined), the
 * weekly figures as CSV (admins only) and in /metrics.
 */
const ADMIN = { email: "admin@referral.test", password: "Admin-pass-123" };
const METRICS_TOKEN = "referral-metrics-token-0123456789";
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
let code = "";
let stepId = "";

async function referralPost(c: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/referral/${encodeURIComponent(c)}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: server.url,
      "Sec-Fetch-Site": "same-origin",
      ...headers,
    },
    redirect: "manual",
  });
  return { status: res.status, headers: res.headers, text: pageText(await res.text()) };
}

/** The one line the page says about a refused try (what differs nowhere else on the page). */
const errorOf = (text: string) => /No referral matches[^.]*\.[^.]*\./.exec(text)?.[0] ?? null;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    METRICS_TOKEN,
    // Small budgets so the suite reaches them: 4 wrong tries per code, 12 per address.
    RATE_LIMITS: JSON.stringify({
      referralTry: { address: { points: 12, duration: 3600 }, account: { points: 4, duration: 86400 } },
    }),
  });
  const api = apiClient(server.url);
  tok.admin = (await api.post("/auth/login", ADMIN)).body.token;
  const centre = async (name: string) =>
    (
      await api.post(
        "/centres",
        { name, kind: "hwc", district: "Nashik", state: "Maharashtra", pinCode: "422001" },
        tok.admin,
      )
    ).body.data._id as string;
  ids.centre = await centre("HWC Sinnar");
  ids.otherCentre = await centre("PHC Igatpuri");
  const worker = async (role: string, email: string, centreId: string) => {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email,
      firstName: "Sunita",
      extra: { accountType: "HealthWorker", centreId, workerRole: "asha", workerId: `W-${role}` } as never,
    });
    tok[role] = r.token;
    expect(
      (await api.raw("POST", `/health-workers/${r.user._id}/approve`, undefined, tok.admin)).status,
    ).toBe(200);
  };
  await worker("worker", "worker@referral.test", ids.centre);
  await worker("otherWorker", "other.worker@referral.test", ids.otherCentre);
  const expert = await signupViaApi(api, smtp, codeFrom, {
    email: "expert@referral.test",
    accountType: "Expert",
  });
  tok.expert = expert.token;
  expect((await api.post("/expert/approve-expert", { expertId: expert.user._id }, tok.admin)).status).toBe(
    200,
  );
  const other = await signupViaApi(api, smtp, codeFrom, {
    email: "other.expert@referral.test",
    accountType: "Expert",
  });
  tok.otherExpert = other.token;
  await api.post("/expert/approve-expert", { expertId: other.user._id }, tok.admin);
  tok.patient = (await signupViaApi(api, smtp, codeFrom, { email: "patient@referral.test" })).token;

  const registered = await api.call(
    "POST",
    "/centre/patients",
    uploadForm({
      firstName: "Kamla",
      lastName: "Pawar",
      sex: "female",
      birthYear: "1961",
      locality: "Sinnar",
      preferredLanguage: "hi",
      phoneOwner: "none",
      consent: "granted",
      consentMethod: "verbal",
    }) as never,
    tok.worker,
  );
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  ids.cp = registered.body.data._id;
  const up = await api.call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "ECG", phoneNumber: "9876543210", patientId: ids.cp },
      { name: "a.pdf", data: samplePdf() },
    ) as never,
    tok.worker,
  );
  expect(up.status).toBe(201);
  ids.report = up.body.data._id;
  expect((await api.raw("POST", `/report/claim/${ids.report}`, undefined, tok.expert)).status).toBe(200);
  const reviewed = await api.raw(
    "POST",
    `/report/add-review/${ids.report}`,
    {
      review: "ST changes in the ECG; needs a cardiologist's examination.",
      nextSteps: [
        { kind: "facility", facility: "District Hospital Nashik", urgency: "week", reason: "Chest pain" },
      ],
    },
    tok.expert,
  );
  expect(reviewed.status, JSON.stringify(reviewed.body)).toBe(200);
  const list = await api.raw("GET", "/centre/steps?when=week", undefined, tok.worker);
  expect(list.status).toBe(200);
  const step = list.body.data.find((s: { reportId: string }) => s.reportId === ids.report);
  expect(step).toBeTruthy();
  stepId = step._id;
  code = step.referral.code;
  expect(code).toMatch(/^R-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("the referral page", () => {
  it("shows nothing about the patient before the code and the year of birth match", async () => {
    const res = await fetch(`${server.url}/referral/${code}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-robots-tag")).toBe("noindex");
    // Its code never leaves as a referrer, yet its form posts carry their Origin (a browser sends
    // `Origin: null` under "no-referrer", which the cross-site check refuses).
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    const text = pageText(await res.text());
    for (const secret of ["Kamla", "Pawar", "District Hospital", "Chest pain", "ST changes"])
      expect(text).not.toContain(secret);
  });

  it("answers a wrong year and an unknown code alike, and a year that is no year with a field error", async () => {
    const wrongYear = await referralPost(code, { intent: "open", birthYear: "1962" });
    const wrongCode = await referralPost("R-2222-3333", { intent: "open", birthYear: "1961" });
    expect(wrongYear.status).toBe(wrongCode.status);
    expect(wrongYear.status).toBe(404);
    expect(errorOf(wrongYear.text)).toBeTruthy();
    expect(errorOf(wrongYear.text)).toBe(errorOf(wrongCode.text));
    for (const r of [wrongYear, wrongCode]) expect(r.text).not.toContain("Chest pain");
    const junk = await referralPost(code, { intent: "open", birthYear: "nineteen" });
    expect(junk.status).toBe(400);
    expect(junk.text).toContain("Give the patient's year of birth.");
  });

  it("shows the least the facility needs once they match, and records its acknowledgement", async () => {
    const open = await referralPost(code.toLowerCase().replace(/-/g, " "), {
      intent: "open",
      birthYear: "1961",
    });
    expect(open.status).toBe(200);
    expect(open.text).toContain("Chest pain");
    expect(open.text).toContain("District Hospital Nashik");
    expect(open.text).toContain("Referral for patient K.");
    expect(open.text).not.toContain("Kamla");
    expect(open.text).not.toContain("ST changes");
    const ack = await referralPost(code, { intent: "ack", birthYear: "1961", note: "Admitted to ward 3" });
    expect(ack.status).toBe(200);
    expect(ack.text).toMatch(/Seen at the facility on/);
    const list = await apiClient(server.url).raw("GET", "/centre/steps?when=week", undefined, tok.worker);
    const step = list.body.data.find((s: { _id: string }) => s._id === stepId);
    expect(step.referral.seenAt).toBeTruthy();
    expect(step.referral.note).toBe("Admitted to ward 3");
    // The worker's screen says so too.
    const b = new Browserish(server.url);
    expect(
      (await b.post("/login", { email: "worker@referral.test", password: "Sturdy-pass-2026" })).status,
    ).toBe(302);
    const page = pageText(await (await b.fetch("/dashboard/centre/steps")).text());
    expect(page).toContain("Referral seen at the facility on");
    expect(page).toContain("Admitted to ward 3");
  });

  it("locks a code after its wrong tries (429 with Retry-After), even for the right year", async () => {
    // One wrong year was spent above; three more use up the code's four.
    for (let i = 0; i < 3; i++)
      expect((await referralPost(code, { intent: "open", birthYear: String(1950 + i) })).status).toBe(404);
    const locked = await referralPost(code, { intent: "open", birthYear: "1961" });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(locked.text).not.toContain("Chest pain");
  });

  it("limits one address's wrong tries whatever X-Forwarded-For it claims", async () => {
    let status = 0;
    let retryAfter: string | null = null;
    for (let i = 0; i < 14 && status !== 429; i++) {
      const r = await referralPost(
        `R-${"23456789ABCDEFGH"[i]}ZZZ-ZZZZ`,
        { intent: "open", birthYear: "1961" },
        { "X-Forwarded-For": `203.0.113.${i + 1}` },
      );
      status = r.status;
      retryAfter = r.headers.get("retry-after");
    }
    expect(status).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});

describe("the referral letter", () => {
  const get = (token?: string) =>
    raw(`${server.url}/api/v1/steps/${stepId}/referral.pdf`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  it("is a PDF for her centre's worker and the expert who asked", async () => {
    for (const who of ["worker", "expert"]) {
      const r = await get(tok[who]);
      expect(r.status, who).toBe(200);
      expect(r.headers["content-type"]).toMatch(/^application\/pdf/);
      expect(r.body.subarray(0, 5).toString()).toBe("%PDF-");
    }
  });

  it("is not found for another centre's worker, another expert and another patient; 401 without a token", async () => {
    for (const who of ["otherWorker", "otherExpert", "patient"])
      expect((await get(tok[who])).status, who).toBe(404);
    expect((await get()).status).toBe(401);
    expect((await get(tok.admin)).status).toBe(404);
  });
});

describe("the centre's worklist", () => {
  const api = () => apiClient(server.url);

  it("lists her centre's steps only; other people are refused", async () => {
    const other = await api().raw("GET", "/centre/steps?when=week", undefined, tok.otherWorker);
    expect(other.status).toBe(200);
    expect(other.body.data.some((s: { _id: string }) => s._id === stepId)).toBe(false);
    for (const who of ["patient", "expert", "admin"])
      expect((await api().raw("GET", "/centre/steps", undefined, tok[who])).status, who).toBe(403);
    expect((await api().raw("GET", "/centre/steps")).status).toBe(401);
    const bad = await api().raw("GET", "/centre/steps?when=someday", undefined, tok.worker);
    expect(bad.status).toBe(400);
    const overdue = await api().raw("GET", "/centre/steps?when=overdue&pageSize=5", undefined, tok.worker);
    expect(overdue.status).toBe(200);
    expect(overdue.body.pagination).toMatchObject({ page: 1, pageSize: 5 });
  });

  it("records how a step ended; declined needs the reason; another centre's worker cannot", async () => {
    const mark = (body: unknown, token = tok.worker) =>
      api().raw("POST", `/centre/steps/${stepId}/state`, body, token);
    const noReason = await mark({ state: "declined" });
    expect(noReason.status).toBe(400);
    expect(Object.keys(noReason.body.errors ?? {})).toContain("reason");
    expect((await mark({ state: "someday" })).status).toBe(400);
    expect((await mark({ state: "visited" }, tok.otherWorker)).status).toBe(404);
    expect((await mark({ state: "visited" }, tok.expert)).status).toBe(403);
    const declined = await mark({ state: "declined", reason: "Too far to travel" });
    expect(declined.status).toBe(200);
    expect(declined.body.data).toMatchObject({ state: "declined", stateReason: "Too far to travel" });
    const visited = await mark({ state: "visited" });
    expect(visited.status).toBe(200);
    const done = await api().raw("GET", "/centre/steps?when=done", undefined, tok.worker);
    expect(done.body.data.find((s: { _id: string }) => s._id === stepId)?.state).toBe("visited");
    const week = await api().raw("GET", "/centre/steps?when=week", undefined, tok.worker);
    expect(week.body.data.some((s: { _id: string }) => s._id === stepId)).toBe(false);
  });
});

describe("the figures", () => {
  it("exports the weekly figures as CSV for admins only", async () => {
    const admin = new Browserish(server.url);
    expect((await admin.post("/login", ADMIN)).status).toBe(302);
    const csv = await admin.fetch("/dashboard/service/steps.csv");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const text = await csv.text();
    expect(text.split("\r\n")[0]).toBe('"week","due","overdue","closed","closed_on_time","on_time_share"');
    expect(text.split("\r\n").filter(Boolean).length).toBe(13);
    const worker = new Browserish(server.url);
    await worker.post("/login", { email: "worker@referral.test", password: "Sturdy-pass-2026" });
    expect((await worker.fetch("/dashboard/service/steps.csv")).status).toBe(404);
    expect((await new Browserish(server.url).fetch("/dashboard/service/steps.csv")).status).toBe(302);
    const screen = pageText(await (await admin.fetch("/dashboard/service")).text());
    expect(screen).toContain("Next steps per week");
  });

  it("shows the next steps' gauges in /metrics", async () => {
    const r = await raw(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(r.status).toBe(200);
    const text = r.body.toString();
    for (const name of [
      "carebridge_next_steps_due_week",
      "carebridge_next_steps_closed_week",
      "carebridge_next_steps_overdue",
      "carebridge_next_steps_on_time_ratio",
    ])
      expect(text).toMatch(new RegExp(`^${name} \\d`, "m"));
  });
});
