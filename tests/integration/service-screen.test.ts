import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * The admin's Service screen over HTTP against the built app (decision 0034): the server counts
 * the requests it answers and adds them to the rollups every SERVICE_ROLLUP_FLUSH_MS (short here),
 * so requests made now show on the screen — SVG charts with a table of the same figures, drawn in
 * the HTML itself (no JavaScript needed), in the visitor's language. Anyone but an admin gets the
 * not-found page; a stranger is sent to log in.
 */

const ADMIN = { email: "admin@service.test", password: "Admin-pass-2026" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const browsers: Record<string, Browserish> = {};
const tok: Record<string, string> = {};

async function browserFor(email: string, password: string) {
  const b = new Browserish(server.url);
  const res = await b.post("/login", { email, password });
  expect(res.status, `login ${email}`).toBe(302);
  return b;
}

/** The cells of a table's rows (header cell first), from the page's HTML. */
function tableRows(html: string, testId: string): string[][] {
  const table = html.match(new RegExp(`<table[^>]*data-testid="${testId}"[\\s\\S]*?</table>`))?.[0];
  if (!table) return [];
  const body = table.slice(table.indexOf("<tbody"));
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => pageText(c[1]).trim()),
  );
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    SERVICE_ROLLUP_FLUSH_MS: "200",
  });
  const api = apiClient(server.url);
  const admin = (await api.post("/auth/login", ADMIN)).body.token;
  tok.admin = admin;
  tok.patient = (await signupViaApi(api, smtp, codeFrom, { email: "patient@service.test" })).token;
  const expert = await signupViaApi(api, smtp, codeFrom, {
    email: "expert@service.test",
    accountType: "Expert",
  });
  await api.post("/expert/approve-expert", { expertId: expert.user._id }, admin);
  const centre = await api.post(
    "/centres",
    { name: "HWC Service", kind: "hwc", district: "Hosur", state: "Tamil Nadu", pinCode: "635109" },
    admin,
  );
  const worker = await signupViaApi(api, smtp, codeFrom, {
    email: "worker@service.test",
    extra: {
      accountType: "HealthWorker",
      centreId: centre.body.data._id,
      workerRole: "cho",
      workerId: "CHO-1",
    } as never,
  });
  await api.raw("POST", `/health-workers/${worker.user._id}/approve`, undefined, admin);
  browsers.admin = await browserFor(ADMIN.email, ADMIN.password);
  browsers.patient = await browserFor("patient@service.test", strongPassword);
  browsers.expert = await browserFor("expert@service.test", strongPassword);
  browsers.worker = await browserFor("worker@service.test", strongPassword);
  browsers.stranger = new Browserish(server.url);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

describe("the Service screen", () => {
  it("counts the requests the server answered and draws them with their table", async () => {
    // Refused API calls (4xx) and a few pages, on top of the logins above.
    for (let i = 0; i < 7; i++)
      expect((await fetch(`${server.url}/api/v1/report/get-pending-reports`)).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/about-us`)).status).toBe(200);

    // The counts reach the database at the next flush (every 200 ms here).
    let html = "";
    let rows: string[][] = [];
    for (let tries = 0; tries < 50; tries++) {
      const res = await browsers.admin.fetch("/dashboard/service");
      expect(res.status).toBe(200);
      html = await res.text();
      rows = tableRows(html, "table-requests");
      const refused = rows.reduce((a, r) => a + Number(r[3] ?? 0), 0);
      if (refused >= 7) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // Columns: hour, all, answered, refused (4xx), server errors (5xx).
    const total = rows.reduce((a, r) => a + Number(r[1]), 0);
    const refused = rows.reduce((a, r) => a + Number(r[3]), 0);
    expect(refused).toBeGreaterThanOrEqual(7);
    expect(total).toBeGreaterThanOrEqual(7 + 3 + 4);
    expect(rows.reduce((a, r) => a + Number(r[4]), 0)).toBe(0);

    // The API's response times have figures; uploads (none made) have none.
    const latency = tableRows(html, "table-latency");
    expect(latency.map((r) => r[0])).toEqual([
      "API",
      "Pages",
      "Uploads",
      "Files and downloads",
      "Static files and checks",
    ]);
    const apiRow = latency.find((r) => r[0] === "API")!;
    expect(Number(apiRow[1])).toBeGreaterThanOrEqual(7);
    expect(apiRow[2]).toMatch(/^\d+ ms$/);
    expect(latency.find((r) => r[0] === "Uploads")).toEqual(["Uploads", "0", "–", "–"]);

    // The queues were sampled at start-up; the weekly turnaround has its twelve rows.
    expect(tableRows(html, "table-queues").length).toBeGreaterThanOrEqual(1);
    expect(tableRows(html, "table-turnaround")).toHaveLength(12);

    // Charts are images with a name and a description, in the HTML itself.
    for (const id of ["chart-requests", "chart-latency", "chart-turnaround"]) {
      const svg = html.match(new RegExp(`<svg[^>]*data-testid="${id}"[^>]*>[\\s\\S]*?</svg>`))?.[0];
      expect(svg, id).toBeTruthy();
      expect(svg).toMatch(/role="img"/);
      expect(svg).toMatch(/aria-labelledby="[^"]+ [^"]+"/);
      expect(svg).toMatch(/<title[^>]*>[^<]+<\/title><desc[^>]*>[^<]+<\/desc>/);
    }
    expect(html.match(/<rect /g)?.length ?? 0).toBeGreaterThan(3);
    expect(pageText(html)).toContain("Requests and errors per hour (48 hours)");
    // The admin's sidebar leads here.
    expect(html).toMatch(
      /href="\/dashboard\/service"[^>]*aria-current="page"|aria-current="page"[^>]*href="\/dashboard\/service"/,
    );
  });

  it("speaks the visitor's language", async () => {
    const html = await (await browsers.admin.inLanguage("hi").fetch("/dashboard/service")).text();
    expect(pageText(html)).toContain("हर घंटे के अनुरोध और त्रुटियाँ");
    const ta = await (await browsers.admin.inLanguage("ta").fetch("/dashboard/service")).text();
    expect(pageText(ta)).toContain("காலப்போக்கில் வரிசைகள்");
  });

  it("is refused to everyone but admins", async () => {
    for (const who of ["patient", "expert", "worker"]) {
      const res = await browsers[who].fetch("/dashboard/service");
      expect(res.status, who).toBe(404);
      expect(await res.text()).not.toContain("chart-requests");
    }
    const res = await browsers.stranger.fetch("/dashboard/service");
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
    // Not in anyone else's sidebar either.
    const home = await (await browsers.expert.fetch("/dashboard/home")).text();
    expect(home).not.toContain('href="/dashboard/service"');
  });
});

describe("the background work on the Service screen", () => {
  /** A job that failed after every attempt, as the runner leaves it. */
  async function deadJob(id: string, kind: string) {
    const tdb = await openTestDb(server.dataDir, { write: true });
    try {
      const now = Date.now();
      await tdb.run(
        `insert into jobs (id, kind, key, payload, state, attempts, failures, run_at, last_error, created_at, finished_at)
         values (?, ?, ?, '{"to":"+919800000000"}', 'dead', 5, 5, ?, ?, ?, ?)`,
        id,
        kind,
        `key-${id}`,
        tdb.time(now),
        "gateway answered 503\n    at send (sms.server.ts:1)",
        tdb.time(now - 60_000),
        tdb.time(now),
      );
    } finally {
      await tdb.close();
    }
  }
  const row = async (id: string) => {
    const tdb = await openTestDb(server.dataDir);
    try {
      return await tdb.get("select state, attempts from jobs where id = ?", id);
    } finally {
      await tdb.close();
    }
  };
  const trail = async (action: string, id: string) => {
    const tdb = await openTestDb(server.dataDir);
    try {
      return await tdb.all(
        "select actor_id from audit_events where action = ? and subject_id = ?",
        action,
        id,
      );
    } finally {
      await tdb.close();
    }
  };

  it("lists each kind's queue and the failed jobs, first line of the error only, never the payload", async () => {
    await deadJob("job-dead-1", "retired-kind");
    const html = await (await browsers.admin.fetch("/dashboard/service")).text();
    const text = pageText(html);
    expect(text).toContain("Background work");
    // The runner's own kinds, each with its row, whether or not any work is waiting.
    const kinds = tableRows(html, "table-work").map((r) => r[0]);
    expect(kinds).toEqual(expect.arrayContaining(["E-mail", "SMS", "Next-step reminders", "retired-kind"]));
    expect(text).toContain("Last error: gateway answered 503");
    expect(text).not.toContain("sms.server.ts");
    expect(text).not.toContain("+919800000000");
    const hi = pageText(await (await browsers.admin.inLanguage("hi").fetch("/dashboard/service")).text());
    expect(hi).toContain("पृष्ठभूमि का काम");
    expect(hi).toContain("फिर से चलाएँ");
  });

  it("an admin retries a failed job (its attempts start over) or drops one; each is in the audit log", async () => {
    await deadJob("job-dead-2", "retired-kind");
    await deadJob("job-dead-3", "retired-kind");
    // Anyone else posting the same form: refused, nothing changes.
    for (const who of ["patient", "expert", "worker", "stranger"]) {
      const res = await browsers[who].post("/dashboard/service", {
        intent: "job-retry",
        jobId: "job-dead-2",
      });
      expect([302, 403, 404], who).toContain(res.status);
      expect(res.headers.get("location") ?? "", who).not.toContain("service-work");
    }
    expect(await row("job-dead-2")).toMatchObject({ state: "dead", attempts: 5 });

    const retried = await browsers.admin.post("/dashboard/service", {
      intent: "job-retry",
      jobId: "job-dead-2",
    });
    expect(retried.status).toBe(302);
    expect(retried.headers.get("location")).toContain("#service-work");
    // A kind no runner runs any more: queued again, its attempts from nought.
    expect(await row("job-dead-2")).toMatchObject({ state: "queued", attempts: 0 });
    expect(await trail("job.retried", "job-dead-2")).toHaveLength(1);
    // Asked again: it is not failed any more; said so, nothing recorded twice.
    const again = await browsers.admin.post("/dashboard/service", {
      intent: "job-retry",
      jobId: "job-dead-2",
    });
    expect(again.status).toBe(302);
    const page = pageText(await (await browsers.admin.fetch(again.headers.get("location")!)).text());
    expect(page).toContain("That job is not waiting for an admin any more.");
    expect(await trail("job.retried", "job-dead-2")).toHaveLength(1);

    const dropped = await browsers.admin.post("/dashboard/service", {
      intent: "job-drop",
      jobId: "job-dead-3",
    });
    expect(dropped.status).toBe(302);
    expect(await row("job-dead-3")).toBeUndefined();
    expect(await trail("job.dropped", "job-dead-3")).toHaveLength(1);
    // Junk ids: a clear refusal, never a 5xx.
    for (const jobId of ["", "x".repeat(5000), "job-dead-2' or 1=1 --"]) {
      const res = await browsers.admin.post("/dashboard/service", { intent: "job-drop", jobId });
      expect(res.status, jobId.slice(0, 20)).toBe(302);
    }
    expect(await row("job-dead-2")).toMatchObject({ state: "queued" });
  });
});

describe("GET /api/v1/service/summary", () => {
  it("gives admins the same figures as JSON", async () => {
    const api = apiClient(server.url);
    const res = await api.get("/service/summary", tok.admin);
    expect(res.status).toBe(200);
    const data = res.body.data!;
    expect(data.hours).toBe(48);
    expect(data.requests).toHaveLength(48);
    expect(
      data.requests.reduce((a: number, r: { clientErrors: number }) => a + r.clientErrors, 0),
    ).toBeGreaterThanOrEqual(7);
    expect(new Date(data.requests[47].hour).getTime()).toBeLessThanOrEqual(Date.now());
    expect(data.latency.map((g: { group: string }) => g.group)).toEqual([
      "api",
      "pages",
      "uploads",
      "files",
      "other",
    ]);
    expect(data.turnaround).toHaveLength(12);
    expect(Object.keys(data.queues[47].values)).toContain('carebridge_pending_reports{urgency="urgent"}');
  });

  it("refuses everyone else", async () => {
    const api = apiClient(server.url);
    expect((await api.raw("GET", "/service/summary", undefined, tok.patient)).status).toBe(403);
    expect((await api.raw("GET", "/service/summary")).status).toBe(401);
  });
});
