import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { backendEnv, onPostgres } from "../helpers/backends";
import { raw } from "../helpers/raw";
import { freePort, spawnApp, type AppProcess } from "../helpers/server";
import { onlyWith, requirePrometheus } from "../helpers/requires";

// Needs prometheus and promtool: skipped without them, naming the package, except under CI.
const { afterAll, beforeAll, describe, it } = onlyWith(requirePrometheus(), vitest);

/*
 * A real Prometheus (Debian's package, /usr/bin/prometheus) scraping two app nodes, as operations
 * would run it (decision 0033). On PostgreSQL + S3 the two nodes share one database and bucket (a
 * real two-node deployment); on SQLite each node has its own data folder (what is tested here is
 * the scrape, not the sharing). One node is scraped on its METRICS_PORT, the other on its main
 * port with the bearer token. One process each: the summing of a node's workers is
 * tests/integration/metrics.test.ts's, and two clusters at once start slowly on a loaded machine. Prometheus runs on a free port with its data in a temporary folder
 * and is stopped by its process handle.
 */

const PROMETHEUS = "/usr/bin/prometheus";
const TOKEN = "prometheus-test-token-0123456789";

let root = "";
const nodes: AppProcess[] = [];
let prometheus: ChildProcess | undefined;
let promUrl = "";
let promOutput = "";

async function query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; data: { result: never[] } };
  if (body.status !== "success") throw new Error(`query ${expr}: ${JSON.stringify(body)}`);
  return body.data.result;
}

/** Polls until `check` accepts the query's result (the first samples come a few seconds after start). */
async function eventually<T>(expr: string, check: (r: Awaited<ReturnType<typeof query>>) => T | undefined) {
  const deadline = Date.now() + 40_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const r = await query(expr);
      last = r;
      const ok = check(r);
      if (ok !== undefined && ok !== false) return ok;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(
    `${expr} never satisfied; last: ${JSON.stringify(last)}\nprometheus:\n${promOutput.slice(-2000)}`,
  );
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), "cb-prom-"));
  const shared = onPostgres ? await backendEnv() : {};
  const metricsPort = await freePort();
  nodes.push(
    await spawnApp(path.join(root, "a"), {
      ...shared,
      METRICS_PORT: String(metricsPort),
    }),
  );
  nodes.push(await spawnApp(path.join(root, "b"), { ...shared, METRICS_TOKEN: TOKEN }));
  for (const n of nodes) for (let i = 0; i < 3; i++) expect((await raw(`${n.url}/login`)).status).toBe(200);

  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  const config = path.join(root, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  evaluation_interval: 1s",
      "scrape_configs:",
      "  - job_name: carebridge-port",
      "    static_configs:",
      `      - targets: ["127.0.0.1:${metricsPort}"]`,
      "        labels: { node: a }",
      "  - job_name: carebridge-token",
      "    authorization:",
      `      credentials: ${TOKEN}`,
      "    static_configs:",
      `      - targets: ["127.0.0.1:${nodes[1]!.port}"]`,
      "        labels: { node: b }",
      "",
    ].join("\n"),
  );
  prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(root, "tsdb")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  prometheus.stdout?.on("data", (d) => (promOutput += d));
  prometheus.stderr?.on("data", (d) => (promOutput += d));
}, 90_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null && prometheus.signalCode === null) {
    const exited = new Promise((r) => prometheus!.once("exit", r));
    prometheus.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (prometheus.exitCode === null && prometheus.signalCode === null) prometheus.kill("SIGKILL");
  }
  for (const n of nodes) {
    if (n.child.exitCode === null && n.child.signalCode === null) {
      n.child.kill("SIGTERM");
      await Promise.race([n.exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill("SIGKILL");
    }
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("a real Prometheus scraping two nodes", () => {
  it("sees both targets up", async () => {
    const up = await eventually("up", (r) =>
      r.length === 2 && r.every((s) => s.value[1] === "1") ? r : undefined,
    );
    expect(up.map((s) => s.metric.node).sort()).toEqual(["a", "b"]);
  });

  it("sums the request histograms of both nodes and reads a product gauge", async () => {
    const perNode = await eventually("sum by (node) (http_request_duration_seconds_count)", (r) =>
      r.length === 2 && r.every((s) => Number(s.value[1]) > 0) ? r : undefined,
    );
    expect(perNode.map((s) => s.metric.node).sort()).toEqual(["a", "b"]);
    const [sum] = await query("sum(http_request_duration_seconds_count)");
    expect(Number(sum!.value[1])).toBeGreaterThan(0);
    const logins = await query('sum(http_request_duration_seconds_count{route="/login"})');
    expect(Number(logins[0]!.value[1])).toBeGreaterThanOrEqual(6);
    const pending = await eventually('carebridge_pending_reports{urgency="normal"}', (r) =>
      r.length === 2 ? r : undefined,
    );
    for (const s of pending) expect(s.value[1]).toBe("0");
    const lag = await query("nodejs_eventloop_lag_seconds");
    expect(lag.length).toBe(2);
  });
});
