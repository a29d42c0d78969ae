/**
 * Where a list request's time goes, on one database: seeds one data set (scripts/seed-bench.ts),
 * starts the built server with ONE worker under `node --cpu-prof`, counts the statements each
 * request sends (PostgreSQL: pg_stat_database's committed transactions — every statement outside
 * a transaction is one — over 100 sequential requests), loads each row with autocannon (the
 * server's CPU per request and, on PostgreSQL, its pool's backends' CPU per request, and with
 * PG_SETTINGS="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on"
 * each statement's planning and execution time), stops
 * the server and prints the profile's top functions by self time (and by file).
 *
 *   npx tsx scripts/profile-lists.ts --db pg --reports 100000 --rows pendingApi,patientApi
 *   PROFILE_APP=/work/before npx tsx scripts/profile-lists.ts --db sqlite --rows pendingPage
 *
 * Options: --db pg|sqlite (default pg), --reports N (default 100000), --rows (default
 * pendingApi,patientApi,pendingPage), --seconds per row (default 8), --connections (default 16),
 * --workers (default 1; the profile is then one file per worker), --rate R (after the closed loop,
 * R requests a second at fixed arrivals for the same time, and when the late ones were due).
 * PROFILE_APP: a built checkout to run instead of this one. Profiles and the summary are left in
 * bench/results/profile-<time>/. For figures use `npm run bench`; this is for reading profiles.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { S3_CREDENTIALS, startPostgres, startS3 } from "../tests/helpers/backends";
import { treeCpuMs } from "../tests/helpers/processes";
import { fixedArrivalsApart } from "./fixed-rate";

const require = createRequire(import.meta.url);
const autocannon = require("autocannon") as (o: Record<string, unknown>) => Promise<{
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}>;

const args = process.argv.slice(2);
const opt = (name: string, d: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : d;
};
const DB = opt("db", "pg");
const N = Number(opt("reports", "100000"));
const ROWS = opt("rows", "pendingApi,patientApi,pendingPage").split(",");
const SECONDS = Number(opt("seconds", "8"));
const CONNECTIONS = Number(opt("connections", "16"));
const RATE = Number(opt("rate", "0"));
const WORKERS = opt("workers", "1");
const APP_DIR = path.resolve(process.env.PROFILE_APP ?? process.cwd());
const OUT = path.resolve(`bench/results/profile-${new Date().toISOString().replace(/[:.]/g, "-")}-${DB}`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === "object" && a ? a.port : 0));
    });
  });
}

function run(cmd: string, argv: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    c.stdout.on("data", (d) => (out += d));
    c.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${argv.join(" ")}: ${code}`))));
  });
}

async function login(url: string, email: string, password: string) {
  const r = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body = (await r.json()) as { token?: string };
  if (!body.token) throw new Error(`login failed: ${r.status}`);
  return body.token;
}

async function webLogin(url: string, email: string, password: string) {
  const r = await fetch(`${url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: url,
      "Sec-Fetch-Site": "same-origin",
    },
    body: new URLSearchParams({ email, password, redirectTo: "/dashboard/pending-report" }),
  });
  const c = r.headers
    .getSetCookie()
    .map((s) => s.split(";")[0])
    .find((s) => s.startsWith("cb_session="));
  if (!c) throw new Error(`web login failed: ${r.status}`);
  return c;
}

type Node = {
  callFrame: { functionName: string; url: string; lineNumber: number };
  id: number;
  hitCount?: number;
};
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

/** Self time per function and per file (ms), from the samples. */
function summarise(file: string, skipMs = 0) {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  // Start-up (module loading, compressing the static files) is not a request's cost.
  let at = 0;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    at += dt;
    if (at < skipMs) return;
    const n = byId.get(id)!;
    const f = n.callFrame;
    const where = f.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/build\//, "build/");
    const key = `${f.functionName || "(anonymous)"} ${where}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    const pkg = where.startsWith("build/")
      ? "build/" + where.split("/")[1]
      : where.startsWith("@")
        ? where.split("/").slice(0, 2).join("/")
        : where.split("/")[0] || f.functionName;
    files.set(pkg, (files.get(pkg) ?? 0) + dt);
    total += dt;
  });
  const top = (m: Map<string, number>, k: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(
        ([name, ms]) =>
          `${((100 * ms) / total).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(6)} ms  ${name}`,
      )
      .join("\n");
  return `${path.basename(file)}: ${total.toFixed(0)} ms sampled after the first ${skipMs.toFixed(0)} ms\n-- by package/file\n${top(files, 25)}\n-- by function (self)\n${top(self, 45)}\n`;
}

const children: ChildProcess[] = [];
process.on("exit", () => children.forEach((c) => c.exitCode === null && c.kill("SIGKILL")));

async function startServer(env: Record<string, string>, dir: string) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log = openSync(path.join(dir, "server.log"), "a");
  const server = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, "build/main.js"], {
    cwd: APP_DIR,
    env: {
      ...process.env,
      ...env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      APP_URL: url,
      RATE_LIMIT_DISABLED: "1",
      WEB_CONCURRENCY: WORKERS,
    },
    stdio: ["ignore", log, log],
  });
  children.push(server);
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 600) throw new Error("server not up");
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, server };
}

async function stopServer(server: ChildProcess) {
  const exited = new Promise((r) => server.once("exit", r));
  server.kill("SIGTERM");
  await exited;
  await new Promise((r) => setTimeout(r, 500));
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const root = mkdtempSync(path.join(os.tmpdir(), "carebridge-profile-"));
  const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
  let env: Record<string, string> = {
    DATA_DIR: path.join(root, "data"),
    UPLOADS_DIR: path.join(root, "uploads"),
    LOG_LEVEL: "silent",
    BCRYPT_COST: "",
    DATABASE_URL: "",
    STORAGE_URL: "",
  };
  const pgServer = DB === "pg" ? await startPostgres() : undefined;
  const s3 = DB === "pg" ? await startS3() : undefined;
  try {
    if (pgServer && s3) {
      env = {
        ...env,
        DATABASE_URL: await pgServer.createDatabase("carebridge_profile"),
        STORAGE_URL: await s3.createBucket("carebridge-profile"),
        AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
        SESSION_SECRET: randomBytes(32).toString("hex"),
        ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      };
    }
    const seeded = JSON.parse(
      await run(process.execPath, [tsx, "scripts/seed-bench.ts", "--reports", String(N)], env),
    );
    if (DB === "pg") {
      const c = new pg.Client({ connectionString: env.DATABASE_URL });
      await c.connect();
      await c.query("VACUUM (ANALYZE)");
      await c.end();
    }
    const lines: string[] = [
      `${DB}, ${N} reports, app ${APP_DIR}, load ${os.loadavg().map((l) => l.toFixed(2))}`,
    ];
    const stats = DB === "pg" ? new pg.Client({ connectionString: env.DATABASE_URL }) : undefined;
    // Stopping the cluster (at the end, or after a failure) ends this connection: not an error of
    // its own, and left unhandled it would hide the failure that stopped the run.
    stats?.on("error", () => {});
    await stats?.connect();
    const commits = async () =>
      Number(
        (await stats!.query("select xact_commit from pg_stat_database where datname = current_database()"))
          .rows[0].xact_commit,
      );
    const { emails, password, ids } = seeded;
    // One server per row, so that each profile holds one kind of request.
    for (const key of ROWS) {
      const dir = path.join(OUT, key);
      const spawned = performance.now();
      const { url, server } = await startServer(env, dir);
      const expertToken = await login(url, emails.expert, password);
      const patientToken = await login(url, emails.patient, password);
      const expertCookie = await webLogin(url, emails.expert, password);
      const pageHeaders = { Cookie: expertCookie, Accept: "text/html", "Accept-Encoding": "gzip" };
      const targets: Record<string, { path: string; headers: Record<string, string> }> = {
        pendingApi: {
          path: "/api/v1/report/get-pending-reports",
          headers: { Authorization: `Bearer ${expertToken}` },
        },
        patientApi: {
          path: `/api/v1/report/get-report-by-patientId/${ids.patient}`,
          headers: { Authorization: `Bearer ${patientToken}` },
        },
        reviewedApi: {
          path: "/api/v1/report/get-report-by-expertId",
          headers: { Authorization: `Bearer ${expertToken}` },
        },
        pendingPage: { path: "/dashboard/pending-report", headers: pageHeaders },
        // The same screen past its last page: the frame (header, sidebar, footer) without rows.
        pendingPageEmpty: { path: "/dashboard/pending-report?page=999", headers: pageHeaders },
        healthz: { path: "/healthz", headers: {} },
      };
      const t = targets[key];
      const r0 = await fetch(url + t.path, { headers: t.headers });
      const bytes = (await r0.arrayBuffer()).byteLength;
      if (r0.status !== 200) throw new Error(`${key}: ${r0.status}`);
      let perRequest = "";
      if (stats) {
        // The backends flush their counters now and then; let them settle around the count.
        await new Promise((r) => setTimeout(r, 1200));
        const before = await commits();
        for (let i = 0; i < 100; i++) await (await fetch(url + t.path, { headers: t.headers })).arrayBuffer();
        await new Promise((r) => setTimeout(r, 1200));
        perRequest = `, ${((await commits()) - before - 1) / 100} statements (committed transactions) per request`;
      }
      const loadFrom = performance.now() - spawned;
      // The database's own CPU (its backends serving this server's pool) beside the server's.
      const backends = stats
        ? (
            await stats.query<{ pid: number }>(
              "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
            )
          ).rows.map((r) => r.pid)
        : [];
      const backendsCpu = () => backends.reduce((sum, pid) => sum + treeCpuMs(pid), 0);
      // With PG_SETTINGS="-c shared_preload_libraries=pg_stat_statements -c
      // pg_stat_statements.track_planning=on": each statement's planning and execution time.
      const statements = stats
        ? await stats
            .query("create extension if not exists pg_stat_statements")
            .then(() => stats.query("select pg_stat_statements_reset()"))
            .then(
              () => true,
              () => false,
            )
        : false;
      const db0 = backendsCpu();
      const cpu0 = treeCpuMs(server.pid!);
      const r = await autocannon({
        url: url + t.path,
        headers: t.headers,
        connections: CONNECTIONS,
        duration: SECONDS,
      });
      // The server's own CPU per request: steadier than req/s on a machine shared with other work.
      const cpuPerRequest = (treeCpuMs(server.pid!) - cpu0) / Math.max(1, r.requests.total);
      const dbPerRequest = stats
        ? `, PostgreSQL backends (${backends.length}) ${((backendsCpu() - db0) / Math.max(1, r.requests.total)).toFixed(2)} ms`
        : "";
      lines.push(
        `${key}: ${r.requests.average} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}, ${bytes} bytes, server CPU ${cpuPerRequest.toFixed(2)} ms per request${dbPerRequest}${perRequest}`,
      );
      console.log(lines[lines.length - 1]);
      if (statements) {
        const top = await stats!.query<{
          calls: string;
          plans: string;
          plan: number;
          exec: number;
          query: string;
        }>(
          `select calls, plans, total_plan_time / calls as plan, total_exec_time / calls as exec, query
             from pg_stat_statements where calls > 0 and dbid = (select oid from pg_database where datname = current_database())
             order by total_plan_time + total_exec_time desc limit 8`,
        );
        for (const t of top.rows)
          lines.push(
            `  ${(Number(t.calls) / Math.max(1, r.requests.total)).toFixed(2)} per request, ${(Number(t.plans) / Math.max(1, Number(t.calls))).toFixed(2)} plans per call, plan ${t.plan.toFixed(3)} ms, run ${t.exec.toFixed(3)} ms: ${t.query.replace(/\s+/g, " ").slice(0, 160)}`,
          );
        console.log(lines.slice(-top.rows.length).join("\n"));
      }
      if (RATE > 0) {
        const f = await fixedArrivalsApart({ url: url + t.path, headers: t.headers }, RATE, SECONDS, 64);
        // When the late requests were due: runs of them (gaps under 50 ms joined) with their worst.
        const bar = Math.max(20, 5 * f.p50);
        const runs: { from: number; to: number; worst: number; n: number }[] = [];
        for (const x of f.timeline.filter((x) => x.ms > bar).sort((a, b) => a.at - b.at)) {
          const last = runs.at(-1);
          if (last && x.at - last.to < 50)
            Object.assign(last, { to: x.at, worst: Math.max(last.worst, x.ms), n: last.n + 1 });
          else runs.push({ from: x.at, to: x.at, worst: x.ms, n: 1 });
        }
        lines.push(
          `${key} at ${RATE} req/s (fixed arrivals): p50 ${f.p50} ms, p99 ${f.p99} ms; over ${bar.toFixed(1)} ms: ` +
            (runs
              .map(
                (x) =>
                  `${(x.from / 1000).toFixed(2)}–${(x.to / 1000).toFixed(2)} s ×${x.n} (worst ${x.worst.toFixed(0)} ms)`,
              )
              .join(", ") || "none"),
        );
        console.log(lines[lines.length - 1]);
      }
      await stopServer(server);
      for (const f of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")))
        lines.push(`[${key}] ` + summarise(path.join(dir, f), loadFrom));
    }
    await stats?.end();
    writeFileSync(path.join(OUT, "summary.txt"), lines.join("\n") + "\n");
    console.log(`written: ${OUT}/summary.txt`);
  } finally {
    await Promise.allSettled([pgServer?.stop(), s3?.stop()]);
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
