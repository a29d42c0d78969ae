import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRetries } from "../helpers/again";
import { apiClient, signupViaApi } from "../helpers/api";
import { onPostgres } from "../helpers/backends";
import { samplePdf, uploadForm } from "../helpers/files";
import { raw } from "../helpers/raw";
import { BUILD_DIR, freePort, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { requirePromtool } from "../helpers/requires";

/*
 * /metrics (decision 0033): Prometheus text from the built server, never public — on the main
 * port only with the bearer METRICS_TOKEN, or on METRICS_PORT's own listener — with request
 * durations by route pattern, database and store timings, the product gauges, and one answer for
 * all of a node's workers.
 */

const TOKEN = "metrics-token-0123456789abcdef";
const PROMTOOL = "/usr/bin/promtool";
// promtool lints the exposition. Without it (never under CI, where it fails the run) the lint is
// left out, saying which package to install; the rest of each test still runs.
const hasPromtool = requirePromtool();

/** `promtool check metrics` on the exposition: exit 0 and no complaint. */
function promtoolCheck(text: string) {
  if (!hasPromtool) return { code: 0, output: "" };
  const r = spawnSync(PROMTOOL, ["check", "metrics"], { input: text });
  return { code: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/** The sum of every sample of `name` whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/**
 * The route patterns of the build under test (its route manifest), plus paths no route names as
 * such: frames, assets, API calls and pages that do not exist.
 */
function routeFamilies(): string[] {
  const dir = path.join(BUILD_DIR, "client/assets");
  const file = readdirSync(dir).find((f) => /^manifest-.*\.js$/.test(f))!;
  const text = readFileSync(path.join(dir, file), "utf8");
  const manifest = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as {
    routes: Record<string, { path?: string; parentId?: string }>;
  };
  const patterns = new Set<string>();
  for (const r of Object.values(manifest.routes)) {
    const parts: string[] = [];
    for (let at: typeof r | undefined = r; at; at = at.parentId ? manifest.routes[at.parentId] : undefined)
      if (at.path) parts.unshift(at.path);
    patterns.add(`/${parts.join("/")}`);
  }
  return [
    ...patterns,
    "/reports/:id/images/:instance/:n.png",
    "/api/v1/report/:id/study/frames/:instance/:n.png.data",
    "/assets/:name.js",
    "/api/v1/:a/:b",
    "/:a.data",
    "/:a/:b/:c.png",
  ];
}

async function scrape(url: string, token?: string) {
  const res = await raw(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, headers: res.headers, text: res.body.toString() };
}

describe("/metrics on the main port, one process", () => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const secretToken = "aVeryPrivateResetToken9f8e7d6c5b4a";
  let reportId = "";

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startServer({ METRICS_TOKEN: TOKEN, SMTP_URL: smtp.url, RATE_LIMIT_DISABLED: "1" });
    // A pending urgent report, made before the first scrape (the product gauges are cached ~10 s).
    const api = apiClient(server.url);
    const { token } = await signupViaApi(api, smtp, codeFrom, { email: "metrics-patient@m.test" });
    const r = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        {
          reportType: "ECG",
          phoneNumber: "9876543210",
          urgent: "true",
          urgentReason: "Chest pain since morning",
        },
        { name: "ecg.pdf", data: samplePdf(), type: "application/pdf" },
      ),
      token,
    );
    expect(r.status).toBe(201);
    reportId = r.body.data._id;
    // A file opened: one store read (and a refused open by someone without a token: no read).
    expect(
      (
        await raw(`${server.url}/api/v1/report/${reportId}/file`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
  });

  it("refuses a scrape without the token or with a wrong one (401), and never answers it as a page", async () => {
    for (const token of [undefined, "wrong-token-0123456789abcdef", `${TOKEN}x`]) {
      const r = await scrape(server.url, token);
      expect(r.status).toBe(401);
      expect(r.headers["www-authenticate"]).toMatch(/^Bearer/);
      expect(r.text).not.toContain("http_request_duration_seconds");
    }
    const basic = await raw(`${server.url}/metrics`, {
      headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` },
    });
    expect(basic.status).toBe(401);
  });

  it("serves Prometheus text with the token, clean for promtool, with route patterns and never ids or tokens", async () => {
    const before = await scrape(server.url, TOKEN);
    expect(before.status).toBe(200);
    const loginsBefore =
      sample(before.text, "http_request_duration_seconds_count", {
        route: "/login",
        method: "GET",
        status_class: "2xx",
      }) ?? 0;
    for (let i = 0; i < 5; i++) expect((await raw(`${server.url}/login`)).status).toBe(200);
    expect((await raw(`${server.url}/update-password/${secretToken}`)).status).toBeLessThan(500);
    expect((await raw(`${server.url}/api/v1/report/${reportId}/file`)).status).toBe(401);
    expect((await raw(`${server.url}/no-such-page-${secretToken}`)).status).toBe(404);

    const r = await scrape(server.url, TOKEN);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(promtoolCheck(r.text)).toEqual({ code: 0, output: "" });

    // The histogram counted exactly the five page views since the last scrape.
    expect(
      sample(r.text, "http_request_duration_seconds_count", {
        route: "/login",
        method: "GET",
        status_class: "2xx",
      }),
    ).toBe(loginsBefore + 5);
    expect(
      sample(r.text, "http_request_duration_seconds_count", { route: "/update-password/:token" }),
    ).toBeGreaterThan(0);
    expect(
      sample(r.text, "http_request_duration_seconds_count", {
        route: "/api/v1/report/:reportId/file",
        status_class: "4xx",
      }),
    ).toBe(1);
    expect(
      sample(r.text, "http_request_duration_seconds_count", { route: "/metrics", status_class: "4xx" }),
    ).toBeGreaterThan(0);
    expect(sample(r.text, "http_request_duration_seconds_bucket", { route: "/login", le: "+Inf" })).toBe(
      loginsBefore + 5,
    );
    expect(r.text).not.toContain(secretToken);
    expect(r.text).not.toContain(reportId);
    expect(r.text).not.toContain(TOKEN);
    // Every route label is a pattern or one of the server's own names, never a raw path.
    const routes = new Set([...r.text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]!));
    for (const route of routes)
      expect(route).toMatch(/^(\/[\w.:*$-]*)+$|^\/$|^\((static|unknown|unmatched|bad request)\)$/);

    // The database and the store, on the backend this run uses.
    const system = onPostgres ? "postgresql" : "sqlite";
    const store = onPostgres ? "s3" : "local";
    expect(sample(r.text, "carebridge_db_query_duration_seconds_count", { system })).toBeGreaterThan(0);
    expect(
      sample(r.text, "carebridge_store_operation_duration_seconds_count", { store, operation: "put" }),
    ).toBeGreaterThan(0);
    expect(
      sample(r.text, "carebridge_store_operation_duration_seconds_count", { store, operation: "get" }),
    ).toBeGreaterThan(0);
    if (onPostgres) {
      expect(sample(r.text, "carebridge_db_pool_connections", { state: "max" })).toBe(8);
      expect(sample(r.text, "carebridge_db_pool_waiting")).toBe(0);
    } else {
      expect(r.text).not.toContain("carebridge_db_pool_connections");
    }

    // Event-loop lag and process figures (prom-client's defaults).
    expect(sample(r.text, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(r.text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sample(r.text, "carebridge_worker_restarts_total")).toBe(0);

    // The product gauges: the urgent report waits; nothing else is queued.
    expect(sample(r.text, "carebridge_pending_reports", { urgency: "urgent" })).toBe(1);
    expect(sample(r.text, "carebridge_pending_reports", { urgency: "normal" })).toBe(0);
    expect(sample(r.text, "carebridge_overdue_reports")).toBe(0);
    expect(sample(r.text, "carebridge_claims_held")).toBe(0);
    expect(sample(r.text, "carebridge_sms_messages", { state: "failed" })).toBe(0);
    expect(sample(r.text, "carebridge_mail_messages", { state: "failed" })).toBe(0);
    expect(sample(r.text, "carebridge_uploads_in_progress")).toBe(0);
    // The runner's figures, the same for every kind (decision 0113): nothing given up, nothing old.
    for (const kind of ["mail", "sms"]) {
      expect(sample(r.text, "carebridge_jobs", { kind, state: "dead" }), kind).toBe(0);
      expect(sample(r.text, "carebridge_job_oldest_waiting_seconds", { kind }), kind).toBeLessThan(60);
      expect(sample(r.text, "carebridge_job_failed_attempts", { kind }), kind).toBe(0);
    }
  });

  it("keeps the same series whatever paths anonymous clients ask for: labels come from the route table", async () => {
    // Every route family of the build (from its route manifest), each parameter a random value,
    // plus frame-like, asset-like, API-like and unknown paths: the first round makes each label
    // (route, method, status class) once; a thousand more random paths add none.
    const families = routeFamilies();
    const rand = () => randomBytes(5).toString("hex");
    const fill = (pattern: string) =>
      pattern
        .replace(/:\w+\??/g, () => rand())
        .replace(/\*$/, () => `${rand()}/${rand()}`)
        .replace(/\/+/g, "/");
    const paths = (n: number) => Array.from({ length: n }, (_, i) => fill(families[i % families.length]!));
    const seriesAfter = async (list: string[]) => {
      for (let i = 0; i < list.length; i += 16)
        await Promise.all(
          list.slice(i, i + 16).map(async (p) => {
            const res = await raw(`${server.url}${p}`);
            expect(res.status, p).toBeLessThan(500);
          }),
        );
      const text = (await scrape(server.url, TOKEN)).text;
      return text.split("\n").filter((l) => l.startsWith("http_request_duration_seconds_count")).length;
    };
    await scrape(server.url, TOKEN); // a scrape is a request too: its own series exists from here on
    const warm = await seriesAfter(paths(families.length * 2));
    const many = paths(1000);
    expect(await seriesAfter(many)).toBe(warm);
    const text = (await scrape(server.url, TOKEN)).text;
    expect(text).toContain('route="/api/v1/report/:reportId/study/frames/:instance/:frame.png"');
    for (const p of many.slice(0, 100))
      for (const [token] of p.matchAll(/[0-9a-f]{10}/g)) expect(text).not.toContain(token);
  }, 120_000);
});

describe("/metrics without a token, one process with METRICS_PORT", () => {
  let server: TestServer;
  let metricsUrl = "";
  beforeAll(async () => {
    // Both ports come from the OS's free ports: when it hands the server's PORT the one just picked
    // here, the server refuses the configuration (METRICS_PORT must differ); pick again then.
    server = await withRetries(
      3,
      (err) => String(err).includes("must differ from PORT"),
      async () => {
        const port = await freePort();
        metricsUrl = `http://127.0.0.1:${port}`;
        return startServer({ METRICS_PORT: String(port) });
      },
    );
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("is not there on the main port (404), whatever the client sends", async () => {
    for (const token of [undefined, TOKEN]) {
      const r = await scrape(server.url, token);
      expect(r.status).toBe(404);
      expect(r.text).not.toContain("http_request_duration_seconds");
    }
  });

  it("serves the process's metrics on its own port without a token", async () => {
    expect((await raw(`${server.url}/about-us`)).status).toBe(200);
    expect((await scrape(server.url, TOKEN)).status).toBe(404);
    const r = await scrape(metricsUrl);
    expect(r.status).toBe(200);
    expect(promtoolCheck(r.text)).toEqual({ code: 0, output: "" });
    expect(sample(r.text, "http_request_duration_seconds_count", { route: "/about-us" })).toBe(1);
    // Without a token the main port's /metrics is an ordinary unknown page (Remix's 404), never metrics.
    expect(sample(r.text, "http_request_duration_seconds_count", { route: "/metrics" })).toBeUndefined();
    expect(total(r.text, "http_request_duration_seconds_count", { status_class: "4xx" })).toBeGreaterThan(0);
  });
});

describe("a node of two workers, with METRICS_PORT", () => {
  let server: TestServer;
  let metricsUrl = "";
  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}`;
    server = await startServer({
      WEB_CONCURRENCY: "2",
      METRICS_PORT: String(port),
      METRICS_TOKEN: TOKEN,
      RATE_LIMIT_DISABLED: "1",
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** The pids of the workers that logged a request line for `route`. */
  function workersThatServed(route: string): Set<number> {
    const pids = new Set<number>();
    for (const line of server.output().split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        const l = JSON.parse(line) as { msg?: string; route?: string; pid?: number };
        if (l.msg === "request" && l.route === route && l.pid) pids.add(l.pid);
      } catch {
        /* not a log line */
      }
    }
    return pids;
  }

  it("answers one scrape for both workers: the counts of both are summed", async () => {
    // A fresh connection per request: the cluster hands connections to the workers in turn, once
    // both listen (on a busy machine the second may start a little after the first answered).
    let n = 0;
    const deadline = Date.now() + 15_000;
    while (n < 20 || (workersThatServed("/about-us").size < 2 && Date.now() < deadline)) {
      expect((await raw(`${server.url}/about-us`)).status).toBe(200);
      n++;
    }
    const servedBy = workersThatServed("/about-us");
    expect(servedBy.size).toBe(2);

    const r = await scrape(metricsUrl);
    expect(r.status).toBe(200);
    expect(promtoolCheck(r.text)).toEqual({ code: 0, output: "" });
    expect(
      sample(r.text, "http_request_duration_seconds_count", { route: "/about-us", status_class: "2xx" }),
    ).toBe(n);
    // The same answer through a worker on the main port (it asks the primary).
    const viaMain = await scrape(server.url, TOKEN);
    expect(viaMain.status).toBe(200);
    expect(
      sample(viaMain.text, "http_request_duration_seconds_count", {
        route: "/about-us",
        status_class: "2xx",
      }),
    ).toBe(n);
    // Each worker's process metrics are in the sum (two processes' open file descriptors, at least).
    expect(total(r.text, "process_open_fds")).toBeGreaterThan(0);
    expect(sample(r.text, "carebridge_pending_reports", { urgency: "normal" })).toBe(0);
  });

  it("serves nothing else on the metrics port", async () => {
    expect((await raw(`${metricsUrl}/`)).status).toBe(404);
    expect((await raw(`${metricsUrl}/login`)).status).toBe(404);
    expect((await raw(`${metricsUrl}/metrics`, { method: "POST", body: "" })).status).toBe(404);
  });

  it("counts a worker the primary had to replace", async () => {
    const victim = [...workersThatServed("/about-us")][0]!;
    process.kill(victim, "SIGKILL");
    const deadline = Date.now() + 20_000;
    let restarts = 0;
    while (Date.now() < deadline) {
      restarts = sample((await scrape(metricsUrl)).text, "carebridge_worker_restarts_total") ?? 0;
      if (restarts === 1) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(restarts).toBe(1);
    // The node keeps serving, and later scrapes still answer (the new worker joins when ready).
    expect((await raw(`${server.url}/about-us`)).status).toBe(200);
    expect((await scrape(metricsUrl)).status).toBe(200);
  });
});

describe.skipIf(!hasPromtool)("the tool", () => {
  it("promtool is installed (Debian package prometheus; .ci/run installs it)", () => {
    expect(existsSync(PROMTOOL)).toBe(true);
    expect(execFileSync(PROMTOOL, ["--version"]).toString()).toMatch(/promtool/);
  });
});
