/**
 * npm run bench — performance figures of the BUILT app (run `npm run build` first; this
 * script builds nothing, it runs a private copy of build/).
 *
 * Seeds 1,000 and 100,000 reports into fresh temporary data folders, starts the app on each
 * (our server, `build/main.js`, as `npm start` runs it: production mode, 127.0.0.1,
 * WEB_CONCURRENCY workers — default one per core) next to a bare `node:http` server, and
 * drives them from this process with autocannon; for comparison, remix-serve
 * (`npm run start:basic`) on the small data set too. The list figures are taken in interleaved rounds
 * (bare, 1k, 100k, bare, ...) so that other work on a shared machine weighs on all alike;
 * each figure is the median over the rounds, each ratio is taken within a round. Prints a
 * table and the targets, and writes everything (with EXPLAIN QUERY PLAN of every list
 * query) as JSON to bench/results/.
 *
 * PostgreSQL + S3 (decision 0010): the bench also starts its own PostgreSQL cluster and S3 server
 * (s3rver) through tests/helpers/backends.ts, seeds BENCH_PG_REPORTS reports into them, and runs
 * the same lists, in the same rounds, against ONE node (our server with WEB_CONCURRENCY workers,
 * like the SQLite rows) and against TWO nodes (two servers, WEB_CONCURRENCY=1 each, on two
 * ports, sharing the database and the bucket; autocannon spreads the connections over both).
 * It stops only the cluster, s3rver and servers it started.
 *
 *   npm run bench                          SQLite and PostgreSQL + S3
 *   npm run bench -- --no-postgres         SQLite only (the figures of docs/performance.md)
 *   npm run bench -- --only-postgres       PostgreSQL + S3 only (with the bare reference)
 *
 * Environment: BENCH_DURATION (seconds per figure and round, default 5), BENCH_ROUNDS
 * (default 3), BENCH_SIZES (default "1000,100000"), BENCH_PG_REPORTS (default 100000),
 * CHROMIUM_PATH (for the first-visit JavaScript; default /usr/bin/chromium), WEB_CONCURRENCY
 * (workers of our server; the two-node rows always run 1 per node), PG_BIN (PostgreSQL's server
 * binaries, found under /usr/lib/postgresql by default). Rate limits are off for the run (login
 * is measured many times from one address); password hashing runs at its production cost.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import pg from "pg";
import {
  S3_CREDENTIALS,
  startPostgres,
  startS3,
  type Postgres,
  type S3Server,
} from "../tests/helpers/backends";
import { samplePdf } from "./samples";

const require = createRequire(import.meta.url);
// autocannon ships no types; only the fields used below are relied on.
const autocannon = require("autocannon") as (opts: Record<string, unknown>) => Promise<CannonResult>;

type CannonResult = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  throughput: { average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  "2xx": number;
};

const FLAGS = new Set(process.argv.slice(2));
for (const f of FLAGS) {
  if (f !== "--no-postgres" && f !== "--only-postgres") {
    console.error(`unknown option ${f} (known: --no-postgres, --only-postgres)`);
    process.exit(2);
  }
}
if (FLAGS.has("--no-postgres") && FLAGS.has("--only-postgres")) {
  console.error("--no-postgres and --only-postgres exclude each other");
  process.exit(2);
}
const RUN_SQLITE = !FLAGS.has("--only-postgres");
const RUN_POSTGRES = !FLAGS.has("--no-postgres");
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = 1;
const SIZES = RUN_SQLITE ? (process.env.BENCH_SIZES ?? "1000,100000").split(",").map(Number) : [];
const PG_REPORTS = Number(process.env.BENCH_PG_REPORTS ?? 100_000);
const LIST_CONNECTIONS = 32;
const MB = 1024 * 1024;
const NODE = process.execPath;
const CWD = process.cwd();

/**
 * The app runs from a private copy of build/ (with links to node_modules, drizzle and
 * public), so a rebuild in the working tree during the run changes nothing under test.
 */
function snapshotBuild() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "carebridge-bench-app-"));
  cpSync(path.join(CWD, "build"), path.join(dir, "build"), { recursive: true });
  for (const link of ["node_modules", "drizzle", "public"])
    symlinkSync(path.join(CWD, link), path.join(dir, link));
  return dir;
}
let APP_DIR = CWD;

// ---------------------------------------------------------------------------------------
// Processes

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

async function waitFor(url: string, child: ChildProcess, log: () => string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited early:\n${log()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`not up after 60 s:\n${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type App = { url: string; child: ChildProcess; root: string; logFile: string };

/** Every process this script starts, so that a failure half-way still stops each of them. */
const children = new Set<ChildProcess>();
function killLeftovers() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}
process.on("exit", killLeftovers);

/**
 * Our server (`npm start`), or remix-serve (`npm run start:basic`) with `basic`; `env` is added
 * to (and overrides) the defaults below — the database, the file store and the secrets of a
 * PostgreSQL + S3 node. Without it the server runs on SQLite in `root`.
 */
async function startApp(
  root: string,
  opts: { basic?: boolean; env?: Record<string, string>; name?: string } = {},
): Promise<App> {
  const port = await freePort();
  const logFile = path.join(root, `${opts.name ?? (opts.basic ? "server-basic" : "server")}.log`);
  const out = openSync(logFile, "a");
  const child = spawn(
    NODE,
    opts.basic
      ? [path.join(APP_DIR, "node_modules/@remix-run/serve/dist/cli.js"), "build/server/index.js"]
      : ["build/main.js"],
    {
      cwd: APP_DIR,
      env: {
        ...process.env,
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: path.join(root, "data"),
        UPLOADS_DIR: path.join(root, "uploads"),
        APP_URL: `http://127.0.0.1:${port}`,
        RATE_LIMIT_DISABLED: "1",
        LOG_LEVEL: "silent",
        BCRYPT_COST: "",
        SMTP_URL: "",
        DATABASE_URL: "",
        STORAGE_URL: "",
        ...opts.env,
      },
      stdio: ["ignore", out, out],
    },
  );
  children.add(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, child, () => readFileSync(logFile, "utf8"));
  return { url, child, root, logFile };
}

/** SIGTERM, then the exit code and whether the WAL was checkpointed away. */
async function stopApp(app: App) {
  const exited = new Promise<number | null>((r) => app.child.once("exit", (code) => r(code)));
  app.child.kill("SIGTERM");
  const code = await Promise.race([
    exited,
    new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 20_000)),
  ]);
  if (code === "timeout") app.child.kill("SIGKILL");
  const wal = path.join(app.root, "data", "app.db-wal");
  return { exitCode: code, walBytesLeft: existsSync(wal) ? statSync(wal).size : 0 };
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: CWD,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(" ")} exited ${code}`)),
    );
  });
}

// ---------------------------------------------------------------------------------------
// Measurements

type Figure = {
  cpuPressure?: number | null;
  rps: number;
  p50: number;
  p99: number;
  avg: number;
  non2xx: number;
  errors: number;
  requests: number;
};

async function cannon(opts: Record<string, unknown>, warmup = true): Promise<Figure> {
  if (warmup) await autocannon({ ...opts, duration: WARMUP, amount: undefined });
  const r = await autocannon({ duration: DURATION, ...opts });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    avg: Math.round(r.latency.average * 100) / 100,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    requests: r.requests.total,
  };
}

function rssKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

/** The process and its children (the cluster's workers), from /proc. */
function processTree(pid: number): number[] {
  const out = [pid];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const kids = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (kids) for (const k of kids.split(/\s+/)) out.push(...processTree(Number(k)));
    }
  } catch {
    /* gone */
  }
  return out;
}

/**
 * The server's resident memory before and at its peak while `fn` runs, per process (the primary
 * and each worker); the figure is the largest growth of any one process — the worker that took
 * the upload. The kernel's high-water mark is reset first (clear_refs 5); a 5 ms sampler backs it up.
 */
async function peakMemory(rootPid: number, fn: () => Promise<unknown>) {
  await new Promise((r) => setTimeout(r, 500));
  const pids = processTree(rootPid);
  const before = new Map(pids.map((p) => [p, rssKb(p, "VmRSS")]));
  let hwmReset = true;
  for (const p of pids) {
    try {
      writeFileSync(`/proc/${p}/clear_refs`, "5");
    } catch {
      hwmReset = false;
    }
  }
  const sampled = new Map(before);
  const timer = setInterval(() => {
    for (const p of pids) {
      try {
        sampled.set(p, Math.max(sampled.get(p) ?? 0, rssKb(p, "VmRSS")));
      } catch {
        /* process gone */
      }
    }
  }, 5);
  const result = await fn();
  clearInterval(timer);
  let growth = -Infinity;
  let at = rootPid;
  for (const p of pids) {
    let peak = sampled.get(p) ?? 0;
    try {
      if (hwmReset) peak = Math.max(peak, rssKb(p, "VmHWM"));
    } catch {
      /* gone */
    }
    const g = peak - (before.get(p) ?? peak);
    if (g > growth) {
      growth = g;
      at = p;
    }
  }
  return {
    result,
    processes: pids.length,
    beforeMb: round1((before.get(at) ?? 0) / 1024),
    peakMb: round1(((before.get(at) ?? 0) + growth) / 1024),
    growthMb: round1(growth / 1024),
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Share of the last minute in which runnable tasks waited for a CPU (Linux PSI), or null. */
function cpuPressure(): number | null {
  try {
    return Number(/some avg10=[\d.]+ avg60=([\d.]+)/.exec(readFileSync("/proc/pressure/cpu", "utf8"))![1]);
  } catch {
    return null;
  }
}

const BOUNDARY = "----carebridge-bench-boundary";
function multipart(file: Buffer, name = "report.pdf") {
  const field = (k: string, v: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  return Buffer.concat([
    Buffer.from(
      field("reportType", "Blood Test") + field("phoneNumber", "9876543210") + field("countryCode", "+91"),
    ),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="report"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}
const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A real PDF padded with random bytes to `bytes` (the type is sniffed from the start). */
let noise: Buffer | undefined;
function pdfOf(bytes: number) {
  const head = samplePdf("CareBridge benchmark");
  noise ??= randomBytes(50 * MB + 1024);
  return Buffer.concat([head, noise.subarray(0, bytes - head.length)]);
}

async function login(url: string, email: string, password: string) {
  const r = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body = (await r.json()) as { token?: string };
  if (!body.token) throw new Error(`login of ${email} failed: ${r.status}`);
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
  const cookie = r.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => c.startsWith("cb_session="));
  if (!cookie) throw new Error(`web login failed: ${r.status}`);
  return cookie;
}

/** Every JavaScript file a first visit to / loads, gzip-compressed (level 6, like the server). */
async function firstVisitJs(url: string) {
  const files = new Map<string, Buffer>();
  let method = "chromium";
  try {
    const { chromium } = await import("@playwright/test");
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const page = await browser.newPage();
      const pending: Promise<void>[] = [];
      page.on("response", (res) => {
        if (res.request().resourceType() === "script" && res.ok()) {
          pending.push(res.body().then((b) => void files.set(res.url(), b)));
        }
      });
      await page.goto(`${url}/`, { waitUntil: "networkidle" });
      await page.waitForTimeout(500);
      await Promise.all(pending);
    } finally {
      await browser.close();
    }
  } catch (err) {
    // No browser: follow the page's module scripts and their static imports instead.
    method = `static imports (no browser: ${String((err as Error).message).split("\n")[0]})`;
    const html = await (await fetch(`${url}/`)).text();
    const queue = [
      ...html.matchAll(/(?:href|src)="(\/assets\/[^"]+\.js)"|import[^"']*["'](\/assets\/[^"']+\.js)["']/g),
    ].map((m) => m[1] ?? m[2]);
    while (queue.length) {
      const p = queue.shift()!;
      const abs = new URL(p, url).href;
      if (files.has(abs)) continue;
      const body = Buffer.from(await (await fetch(abs)).arrayBuffer());
      files.set(abs, body);
      for (const m of body.toString("utf8").matchAll(/(?:from|import)\s*["'](\.\/[^"']+\.js)["']/g))
        queue.push(new URL(m[1], abs).pathname);
    }
  }
  let raw = 0;
  let gz = 0;
  const list = [...files].map(([u, b]) => {
    const g = gzipSync(b, { level: 6 }).length;
    raw += b.length;
    gz += g;
    return { file: new URL(u).pathname, bytes: b.length, gzip: g };
  });
  return { method, files: list.length, rawKb: round1(raw / 1024), gzipKb: round1(gz / 1024), list };
}

// ---------------------------------------------------------------------------------------
// The run

const BARE_SERVER = `
const http = require("node:http");
const body = JSON.stringify({ success: true, message: "ok" });
http.createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), "127.0.0.1");
`;

async function startBare() {
  const port = await freePort();
  const child = spawn(NODE, ["-e", BARE_SERVER], {
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore",
  });
  children.add(child);
  await waitFor(`http://127.0.0.1:${port}/`, child, () => "");
  return { url: `http://127.0.0.1:${port}/`, child };
}

type Plans = {
  counts: Record<string, number>;
  queries: { name: string; statements: { sql: string; plan: string[]; medianMs: number }[] }[];
};
type Memory = Awaited<ReturnType<typeof peakMemory>> & { status: number };

/** A seeded, running app with its accounts logged in. */
async function prepareDataset(n: number) {
  const root = mkdtempSync(path.join(os.tmpdir(), `carebridge-bench-${n}-`));
  const env = {
    DATA_DIR: path.join(root, "data"),
    UPLOADS_DIR: path.join(root, "uploads"),
    LOG_LEVEL: "silent",
    BCRYPT_COST: "",
    DATABASE_URL: "",
    STORAGE_URL: "",
  };
  const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
  const t0 = performance.now();
  const seeded = JSON.parse(await run(NODE, [tsx, "scripts/seed-bench.ts", "--reports", String(n)], env));
  const seedSeconds = round1((performance.now() - t0) / 1000);
  const plans = JSON.parse(await run(NODE, [tsx, "scripts/seed-bench.ts", "--plans"], env)) as Plans;
  const app = await startApp(root);
  const { emails, password, ids } = seeded;
  const expertToken = await login(app.url, emails.expert, password);
  const patientToken = await login(app.url, emails.patient, password);
  const cookie = await webLogin(app.url, emails.expert, password);
  const targets = {
    pendingApi: {
      url: `${app.url}/api/v1/report/get-pending-reports`,
      headers: { Authorization: `Bearer ${expertToken}` },
    },
    patientApi: {
      url: `${app.url}/api/v1/report/get-report-by-patientId/${ids.patient}`,
      headers: { Authorization: `Bearer ${patientToken}` },
    },
    // Like a browser: HTML, gzip.
    pendingPage: {
      url: `${app.url}/dashboard/pending-report`,
      headers: { Cookie: cookie, Accept: "text/html", "Accept-Encoding": "gzip" },
    },
  };
  const responseBytes: Record<string, number> = {};
  for (const [name, t] of Object.entries(targets)) {
    const r = await fetch(t.url, { headers: t.headers, redirect: "manual" });
    if (r.status !== 200) throw new Error(`${name} at ${n} reports: ${r.status}`);
    responseBytes[name] = (await r.arrayBuffer()).byteLength;
  }
  console.log(
    `${n.toLocaleString("en")} reports: ${seeded.pending} pending, seeded in ${seedSeconds} s; response bytes ${JSON.stringify(responseBytes)}`,
  );
  return { n, root, app, seeded, seedSeconds, plans, patientToken, targets, responseBytes };
}
type Dataset = Awaited<ReturnType<typeof prepareDataset>>;

// ---------------------------------------------------------------------------------------
// PostgreSQL + S3 (decision 0010)

type Target = { url: string | string[]; headers?: Record<string, string> };
const LIST_KEYS = ["pendingApi", "patientApi", "pendingPage"] as const;

/** What the PostgreSQL part started, so that it is stopped whatever happens. */
const pgRun: { pg?: Postgres; s3?: S3Server; apps: App[]; roots: string[] } = { apps: [], roots: [] };

async function stopPostgresPart() {
  for (const a of pgRun.apps)
    if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill("SIGKILL");
  await Promise.allSettled([pgRun.pg?.stop(), pgRun.s3?.stop()]);
  for (const r of pgRun.roots) rmSync(r, { recursive: true, force: true });
}

/**
 * A PostgreSQL cluster and an S3 server of our own, one database and one bucket seeded with `n`
 * reports (VACUUM ANALYZE after the bulk load, as autovacuum would leave it), and three servers
 * on them: ONE node (WEB_CONCURRENCY workers, like the SQLite rows) and TWO nodes (one process
 * each). Every node has its own data folder; they share only the database, the bucket and the
 * two secrets (SESSION_SECRET, ENCRYPTION_KEY), as a real deployment would.
 */
async function preparePostgres(n: number, workers: number) {
  const t0 = performance.now();
  await Promise.all([startPostgres().then((p) => (pgRun.pg = p)), startS3().then((s) => (pgRun.s3 = s))]);
  const databaseUrl = await pgRun.pg!.createDatabase("carebridge_bench");
  const storageUrl = await pgRun.s3!.createBucket("carebridge-bench");
  const startSeconds = round1((performance.now() - t0) / 1000);
  const shared = {
    DATABASE_URL: databaseUrl,
    STORAGE_URL: storageUrl,
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    SESSION_SECRET: randomBytes(32).toString("hex"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  };
  const root = mkdtempSync(path.join(os.tmpdir(), `carebridge-bench-pg-${n}-`));
  pgRun.roots.push(root);
  const seedEnv = {
    ...shared,
    DATA_DIR: path.join(root, "seed", "data"),
    UPLOADS_DIR: path.join(root, "seed", "uploads"),
    LOG_LEVEL: "silent",
    BCRYPT_COST: "",
  };
  const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
  const t1 = performance.now();
  const seeded = JSON.parse(await run(NODE, [tsx, "scripts/seed-bench.ts", "--reports", String(n)], seedEnv));
  const seedSeconds = round1((performance.now() - t1) / 1000);
  // A bulk load leaves no statistics and no visibility map until autovacuum passes (within a
  // minute or two, at a moment of its choosing); without them a count scans the table.
  const t2 = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("VACUUM (ANALYZE)");
  } finally {
    await client.end();
  }
  const vacuumSeconds = round1((performance.now() - t2) / 1000);
  const plans = JSON.parse(await run(NODE, [tsx, "scripts/seed-bench.ts", "--plans"], seedEnv)) as Plans;

  const node = async (name: string, concurrency: number) => {
    const dir = path.join(root, name);
    mkdirSync(dir, { recursive: true });
    const app = await startApp(dir, { name, env: { ...shared, WEB_CONCURRENCY: String(concurrency) } });
    pgRun.apps.push(app);
    return app;
  };
  // The two nodes start at the same moment (both wait for the migration lock, as a rolling
  // deployment's would); the single node after them.
  const [nodeA, nodeB] = await Promise.all([node("node-a", 1), node("node-b", 1)]);
  const one = await node("one-node", workers);
  const { emails, password, ids } = seeded;
  // Signed in on different nodes; every token and the cookie are then used on every node.
  const expertToken = await login(nodeA.url, emails.expert, password);
  const patientToken = await login(nodeB.url, emails.patient, password);
  const cookie = await webLogin(one.url, emails.expert, password);
  const targetsOn = (urls: string[]) => {
    const at = (p: string) => (urls.length === 1 ? `${urls[0]}${p}` : urls.map((u) => `${u}${p}`));
    return {
      healthz: { url: at("/healthz") },
      pendingApi: {
        url: at("/api/v1/report/get-pending-reports"),
        headers: { Authorization: `Bearer ${expertToken}` },
      },
      patientApi: {
        url: at(`/api/v1/report/get-report-by-patientId/${ids.patient}`),
        headers: { Authorization: `Bearer ${patientToken}` },
      },
      pendingPage: {
        url: at("/dashboard/pending-report"),
        headers: { Cookie: cookie, Accept: "text/html", "Accept-Encoding": "gzip" },
      },
    } satisfies Record<string, Target>;
  };
  const targets = { one: targetsOn([one.url]), two: targetsOn([nodeA.url, nodeB.url]) };
  // Each node answers each list, and the JSON lists are the same on every node.
  const responseBytes: Record<string, number> = {};
  const answers: Record<string, Set<string>> = {};
  for (const [name, t] of Object.entries(targets.one)) {
    for (const base of [one.url, nodeA.url, nodeB.url]) {
      const url = (t.url as string).replace(one.url, base);
      const r = await fetch(url, { headers: "headers" in t ? t.headers : undefined, redirect: "manual" });
      if (r.status !== 200) throw new Error(`PostgreSQL ${name} at ${base}: ${r.status}`);
      const body = await r.text();
      responseBytes[name] = Buffer.byteLength(body);
      if (name.endsWith("Api")) (answers[name] ??= new Set()).add(body);
    }
  }
  const sameListsOnEveryNode = Object.values(answers).every((set) => set.size === 1);
  if (!sameListsOnEveryNode) throw new Error("the nodes answer the same list differently");
  console.log(
    `PostgreSQL + S3, ${n.toLocaleString("en")} reports: ${seeded.pending} pending, cluster and s3rver up in ${startSeconds} s, ` +
      `seeded in ${seedSeconds} s, VACUUM ANALYZE ${vacuumSeconds} s; one node (${workers} worker(s)) ${one.url}, ` +
      `two nodes (1 worker each) ${nodeA.url} ${nodeB.url}; response bytes ${JSON.stringify(responseBytes)}`,
  );
  return {
    n,
    seeded,
    seedSeconds,
    vacuumSeconds,
    startSeconds,
    plans,
    one,
    nodes: [nodeA, nodeB] as const,
    expertToken,
    patientToken,
    targets,
    responseBytes,
    sameListsOnEveryNode,
  };
}
type PgSetup = Awaited<ReturnType<typeof preparePostgres>>;

/**
 * That the two nodes share state, not only a database: a report uploaded through node B (its
 * file into the bucket) is counted by node A's pending list at once (PostgreSQL totals are not
 * cached), listed for its patient by the single node, and its file read back through node A is
 * the same bytes.
 */
async function crossNodeCheck(p: PgSetup) {
  const [a, b] = p.nodes;
  const pendingTotal = async (base: string) => {
    const r = await fetch(`${base}/api/v1/report/get-pending-reports`, {
      headers: { Authorization: `Bearer ${p.expertToken}` },
    });
    return ((await r.json()) as { pagination: { total: number } }).pagination.total;
  };
  const before = await pendingTotal(a.url);
  const pdf = pdfOf(300 * 1024);
  const up = await fetch(`${b.url}/api/v1/report/upload-report`, {
    method: "POST",
    headers: { Authorization: `Bearer ${p.patientToken}`, "Content-Type": MULTIPART_TYPE },
    body: multipart(pdf, "cross-node.pdf"),
  });
  const uploaded = (await up.json()) as { data?: { _id: string } };
  const id = uploaded.data?._id;
  const after = await pendingTotal(a.url);
  const listed = (await (
    await fetch(`${p.one.url}/api/v1/report/get-report-by-patientId/${p.seeded.ids.patient}`, {
      headers: { Authorization: `Bearer ${p.patientToken}` },
    })
  ).json()) as { data: { _id: string }[] };
  const file = await fetch(`${a.url}/api/v1/report/${id}/file`, {
    headers: { Authorization: `Bearer ${p.patientToken}` },
  });
  const bytes = Buffer.from(await file.arrayBuffer());
  const result = {
    uploadStatusOnB: up.status,
    pendingTotalOnABefore: before,
    pendingTotalOnAAfter: after,
    newestOfPatientOnOneNode: listed.data[0]?._id === id,
    fileStatusOnA: file.status,
    fileIdenticalOnA: bytes.equals(pdf),
  };
  const ok =
    up.status === 201 &&
    after === before + 1 &&
    result.newestOfPatientOnOneNode &&
    file.status === 200 &&
    result.fileIdenticalOnA;
  console.log(`two nodes share state: ${ok ? "yes" : "NO"} ${JSON.stringify(result)}`);
  return { ...result, ok };
}

function uploadOnce(d: Dataset, bytes: number) {
  return fetch(`${d.app.url}/api/v1/report/upload-report`, {
    method: "POST",
    headers: { Authorization: `Bearer ${d.patientToken}`, "Content-Type": MULTIPART_TYPE },
    body: multipart(pdfOf(bytes)),
  }).then(async (r) => (await r.arrayBuffer(), r.status));
}

/**
 * Server memory around single uploads, on a server that has only served small requests:
 * the first large upload after start (which also grows the JavaScript heap once), a
 * rejected 50 MB upload, and a later 9 MB upload (steady state).
 */
async function measureMemory(d: Dataset) {
  const pid = d.app.child.pid!;
  await uploadOnce(d, 256 * 1024);
  const m = async (bytes: number): Promise<Memory> => {
    const r = await peakMemory(pid, () => uploadOnce(d, bytes));
    return { ...r, status: r.result as number };
  };
  const first9mb = await m(9 * MB);
  const rejected50mb = await m(50 * MB);
  const again9mb = await m(9 * MB);
  console.log(
    `${d.n} reports, server memory growth: first 9 MB upload (${first9mb.status}) +${first9mb.growthMb} MB, ` +
      `50 MB upload (${rejected50mb.status}) +${rejected50mb.growthMb} MB, next 9 MB upload +${again9mb.growthMb} MB`,
  );
  return { first9mb, rejected50mb, again9mb };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (!existsSync("build/server/index.js")) {
  console.error("No build found: run `npm run build` first (npm run bench builds nothing).");
  process.exit(1);
}
APP_DIR = snapshotBuild();
process.on("exit", () => rmSync(APP_DIR, { recursive: true, force: true }));

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const started = new Date();
const machine = {
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
  memGb: round1(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
};
console.log(
  `CareBridge bench — ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}; ` +
    `${ROUNDS} interleaved rounds of ${DURATION} s per figure; cpu pressure ${cpuPressure()} %`,
);
/** Which code is measured: the commit, and files of the app changed in the working tree since. */
const git = await run("git", ["rev-parse", "HEAD"], {})
  .then(async (commit) => ({
    commit: commit.trim(),
    uncommitted: (
      await run("git", ["status", "--porcelain", "--", "app", "server", "scripts/build-server.mjs"], {})
    )
      .split("\n")
      .filter(Boolean),
  }))
  .catch(() => undefined);
const workers = Number(process.env.WEB_CONCURRENCY || os.availableParallelism());
console.log(`our server: ${workers} worker process(es) (WEB_CONCURRENCY)`);

const bare = await startBare();
const datasets: Dataset[] = [];
const memory: Record<number, Awaited<ReturnType<typeof measureMemory>>> = {};
const rounds: Record<string, Figure>[] = [];
const other: Record<number, { login: Figure; upload5mb: Figure }> = {};
let js: Awaited<ReturnType<typeof firstVisitJs>> | undefined;
const stops: Record<string, Awaited<ReturnType<typeof stopApp>>> = {};
let basic: App | undefined;
let pgSetup: PgSetup | undefined;
let pgOther: { upload5mbOneNode: Figure; upload5mbTwoNodes: Figure } | undefined;
let sharedState: Awaited<ReturnType<typeof crossNodeCheck>> | undefined;
// Ctrl-C: stop the PostgreSQL cluster and s3rver too (they would outlive this process).
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    console.error(`\n${sig}: stopping what the bench started`);
    killLeftovers();
    void stopPostgresPart().finally(() => process.exit(130));
  });
}
try {
  for (const n of SIZES) {
    const d = await prepareDataset(n);
    datasets.push(d);
    memory[n] = await measureMemory(d); // before any load, so the first upload is the first
  }
  if (RUN_POSTGRES) pgSetup = await preparePostgres(PG_REPORTS, workers);

  // The same list measured on every dataset and on the bare server one after the other, in
  // several rounds, so that other work on the machine weighs on all of them alike.
  const small = datasets[0] as Dataset | undefined;
  const plan: [string, Target][] = [["bare", { url: bare.url }]];
  if (small) {
    // remix-serve on the same data (SQLite lets two servers share it), for comparison.
    basic = await startApp(small.root, { basic: true });
    const onBasic = (t: { url: string; headers?: Record<string, string> }) => ({
      ...t,
      url: t.url.replace(small.app.url, basic!.url),
    });
    plan.push(
      ["healthz", { url: `${small.app.url}/healthz` }],
      ["basic:healthz", { url: `${basic.url}/healthz` }],
      [`basic:pendingApi@${small.n}`, onBasic(small.targets.pendingApi)],
    );
  }
  // pg1: PostgreSQL + S3, one node; pg2: two nodes, half of the connections to each.
  if (pgSetup) plan.push(["pg1:healthz", pgSetup.targets.one.healthz]);
  for (const k of LIST_KEYS) {
    for (const d of datasets) plan.push([`${k}@${d.n}`, d.targets[k]]);
    if (pgSetup) {
      plan.push([`pg1:${k}@${pgSetup.n}`, pgSetup.targets.one[k]]);
      plan.push([`pg2:${k}@${pgSetup.n}`, pgSetup.targets.two[k]]);
    }
  }
  const loginBody = small
    ? JSON.stringify({ email: small.seeded.emails.patient, password: small.seeded.password })
    : "";
  for (let r = 0; r < ROUNDS; r++) {
    const round: Record<string, Figure> = {};
    for (const [name, t] of plan) {
      round[name] = await cannon({ ...t, connections: LIST_CONNECTIONS }, true);
      round[name].cpuPressure = cpuPressure();
    }
    if (small) {
      // The pending list again while 4 clients log in all the time (password hashing off the event loop).
      const [withLogin, loginsMeanwhile] = await Promise.all([
        cannon({ ...small.targets.pendingApi, connections: LIST_CONNECTIONS }, false),
        cannon(
          {
            url: `${small.app.url}/api/v1/auth/login`,
            method: "POST",
            connections: 4,
            headers: { "Content-Type": "application/json" },
            body: loginBody,
          },
          false,
        ),
      ]);
      round[`pendingApiDuringLogins@${small.n}`] = withLogin;
      round[`loginsDuringList@${small.n}`] = loginsMeanwhile;
    }
    rounds.push(round);
    console.log(
      `round ${r + 1}: ` +
        plan.map(([name]) => `${name} ${round[name].rps}/s p99 ${round[name].p99}`).join(", "),
    );
  }

  for (const d of datasets) {
    const loginFig = await cannon(
      {
        url: `${d.app.url}/api/v1/auth/login`,
        method: "POST",
        connections: 4,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: d.seeded.emails.patient, password: d.seeded.password }),
      },
      false,
    );
    const upload5mb = await cannon(
      {
        url: `${d.app.url}/api/v1/report/upload-report`,
        method: "POST",
        connections: 4,
        amount: 60,
        timeout: 60,
        headers: { Authorization: `Bearer ${d.patientToken}`, "Content-Type": MULTIPART_TYPE },
        body: multipart(pdfOf(5 * MB)),
      },
      false,
    );
    other[d.n] = { login: loginFig, upload5mb };
    console.log(
      `${d.n} reports: login ${JSON.stringify(loginFig)}; 5 MB upload ${JSON.stringify(upload5mb)}`,
    );
  }
  if (pgSetup) {
    // 5 MB uploads into the bucket (multipart upload to s3rver), one node, then both nodes.
    const uploads = (url: string | string[]) =>
      cannon(
        {
          url,
          method: "POST",
          connections: 4,
          amount: 60,
          timeout: 60,
          headers: { Authorization: `Bearer ${pgSetup!.patientToken}`, "Content-Type": MULTIPART_TYPE },
          body: multipart(pdfOf(5 * MB)),
        },
        false,
      );
    const path_ = "/api/v1/report/upload-report";
    pgOther = {
      upload5mbOneNode: await uploads(`${pgSetup.one.url}${path_}`),
      upload5mbTwoNodes: await uploads(pgSetup.nodes.map((a) => `${a.url}${path_}`)),
    };
    console.log(`PostgreSQL + S3: 5 MB uploads ${JSON.stringify(pgOther)}`);
    sharedState = await crossNodeCheck(pgSetup);
  }
  if (small) {
    js = await firstVisitJs(small.app.url);
    console.log(`first visit JS: ${js.files} files, ${js.gzipKb} KB gzip (${js.method})`);
    stops.basic = await stopApp(basic!); // first: it shares the small data set's database
  }
  for (const d of datasets) stops[d.n] = await stopApp(d.app);
  if (pgSetup) {
    stops[`pg1@${pgSetup.n}`] = await stopApp(pgSetup.one);
    stops[`pg2a@${pgSetup.n}`] = await stopApp(pgSetup.nodes[0]);
    stops[`pg2b@${pgSetup.n}`] = await stopApp(pgSetup.nodes[1]);
  }
} finally {
  bare.child.kill("SIGTERM");
  if (basic && basic.child.exitCode === null) basic.child.kill("SIGKILL");
  for (const d of datasets) {
    if (d.app.child.exitCode === null) d.app.child.kill("SIGKILL");
    rmSync(d.root, { recursive: true, force: true });
  }
  await stopPostgresPart();
}

// ---------------------------------------------------------------------------------------
// Report

/** Per figure, the median over the rounds of each measure. */
const summary: Record<string, Figure> = {};
for (const name of Object.keys(rounds[0])) {
  const all = rounds.map((r) => r[name]);
  summary[name] = {
    rps: Math.round(median(all.map((f) => f.rps))),
    p50: median(all.map((f) => f.p50)),
    p99: median(all.map((f) => f.p99)),
    avg: round1(median(all.map((f) => f.avg))),
    non2xx: all.reduce((a, f) => a + f.non2xx, 0),
    errors: all.reduce((a, f) => a + f.errors, 0),
    requests: all.reduce((a, f) => a + f.requests, 0),
  };
}
const lists = LIST_KEYS;
/** Ratios are taken within each round (same machine load), then the median over rounds. */
const perRound = (f: (r: Record<string, Figure>) => number) => Math.round(median(rounds.map(f)) * 100) / 100;
const sharePct = (key: string) =>
  Math.round(median(rounds.map((r) => r[key].rps / r.bare.rps)) * 10000) / 100;
const fig = (f: Figure) =>
  `${f.rps} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms${f.non2xx || f.errors ? ` (${f.non2xx} non-2xx, ${f.errors} errors)` : ""}`;
const printTable = (table: string[][]) =>
  console.log("\n" + table.map((r) => `| ${r.join(" | ")} |`).join("\n"));

let targets: Record<string, unknown> | undefined;
if (RUN_SQLITE) {
  const small = SIZES[0];
  const large = SIZES[SIZES.length - 1];
  targets = {
    /** Shares of bare node:http req/s in the same round, at 32 connections. */
    healthzVsBare: { sharePct: sharePct("healthz"), ok: sharePct("healthz") >= 6 },
    pendingApiVsBare: Object.fromEntries(
      SIZES.map((n) => {
        const pct = sharePct(`pendingApi@${n}`);
        const p99 = summary[`pendingApi@${n}`].p99;
        return [`@${n}`, { sharePct: pct, p99, ok: pct >= 4 && p99 <= 35 }];
      }),
    ),
    pendingPageVsBare: Object.fromEntries(
      SIZES.map((n) => [
        `@${n}`,
        { sharePct: sharePct(`pendingPage@${n}`), ok: sharePct(`pendingPage@${n}`) >= 0.9 },
      ]),
    ),
    listDuringLogins: (() => {
      const ratio = perRound((r) => r[`pendingApiDuringLogins@${small}`].rps / r[`pendingApi@${small}`].rps);
      return {
        listThroughputKept: ratio,
        loginsPerSecond: summary[`loginsDuringList@${small}`].rps,
        ok: ratio >= 0.75,
      };
    })(),
    /** For the record: the same figures under remix-serve (`npm run start:basic`). */
    remixServe: {
      healthzSharePct: sharePct("basic:healthz"),
      pendingApiSharePct: sharePct(`basic:pendingApi@${small}`),
      ok: true,
    },
    listsP99: Object.fromEntries(
      SIZES.flatMap((n) =>
        lists.map((k) => [
          `${k}@${n}`,
          { p99: summary[`${k}@${n}`].p99, ok: summary[`${k}@${n}`].p99 <= 50 },
        ]),
      ),
    ),
    scaling: Object.fromEntries(
      lists.map((k) => {
        const p50Ratio = perRound((r) => r[`${k}@${large}`].p50 / r[`${k}@${small}`].p50);
        const p99Ratio = perRound((r) => r[`${k}@${large}`].p99 / r[`${k}@${small}`].p99);
        return [k, { p50Ratio, p99Ratio, ok: p50Ratio <= 1.5 }];
      }),
    ),
    uploadMemory: Object.fromEntries(
      SIZES.flatMap((n) =>
        (["first9mb", "rejected50mb", "again9mb"] as const).map((k) => [
          `${k}@${n}`,
          { growthMb: memory[n][k].growthMb, ok: memory[n][k].growthMb <= 16 },
        ]),
      ),
    ),
    firstVisitJs: { gzipKb: js?.gzipKb, ok: (js?.gzipKb ?? Infinity) <= 150 },
  };

  const table: string[][] = [["measure", ...SIZES.map((n) => `${n.toLocaleString("en")} reports`)]];
  table.push(["bare node:http, 32 conns (reference)", fig(summary.bare)]);
  table.push(["GET /healthz, 32 conns (framework floor)", fig(summary.healthz)]);
  table.push(["GET /healthz under remix-serve (start:basic)", fig(summary["basic:healthz"])]);
  table.push([
    "GET pending-reports API under remix-serve",
    ...SIZES.map((n) => (summary[`basic:pendingApi@${n}`] ? fig(summary[`basic:pendingApi@${n}`]) : "")),
  ]);
  for (const [k, label] of [
    ["pendingApi", "GET pending-reports API, 32 conns"],
    ["patientApi", "GET patient's reports API, 32 conns"],
    ["pendingPage", "GET /dashboard/pending-report, 32 conns"],
  ] as const) {
    table.push([label, ...SIZES.map((n) => fig(summary[`${k}@${n}`]))]);
  }
  table.push(["POST login, 4 conns", ...SIZES.map((n) => fig(other[n].login))]);
  table.push([
    "GET pending-reports API, 32 conns, during 4 conns of logins",
    ...SIZES.map((n) =>
      summary[`pendingApiDuringLogins@${n}`] ? fig(summary[`pendingApiDuringLogins@${n}`]) : "",
    ),
  ]);
  table.push([
    "POST login, 4 conns, during the list above",
    ...SIZES.map((n) => (summary[`loginsDuringList@${n}`] ? fig(summary[`loginsDuringList@${n}`]) : "")),
  ]);
  table.push(["POST 5 MB upload, 4 conns", ...SIZES.map((n) => fig(other[n].upload5mb))]);
  for (const [k, label] of [
    ["first9mb", "memory growth, first 9 MB upload"],
    ["rejected50mb", "memory growth, 50 MB upload (rejected)"],
    ["again9mb", "memory growth, next 9 MB upload"],
  ] as const) {
    table.push([label, ...SIZES.map((n) => `+${memory[n][k].growthMb} MB (${memory[n][k].status})`)]);
  }
  table.push(["first-visit JavaScript (gzip)", `${js?.gzipKb} KB in ${js?.files} files`]);
  printTable(table);
  console.log("\nTargets:");
  for (const [group, entries] of Object.entries(targets)) {
    const list = "ok" in (entries as object) ? { "": entries } : entries;
    for (const [k, v] of Object.entries(list as Record<string, { ok: boolean }>)) {
      console.log(
        `  ${v.ok ? "MET   " : "MISSED"} ${group}${k ? ` ${k}` : ""}: ${JSON.stringify({ ...v, ok: undefined })}`,
      );
    }
  }
}

/**
 * PostgreSQL + S3: each figure with its share of bare node:http in the same round, and (when
 * SQLite ran at the same size) the per-round ratio to the SQLite figure.
 */
let postgres: Record<string, unknown> | undefined;
if (pgSetup) {
  const n = pgSetup.n;
  const withSqlite = SIZES.includes(n);
  const rows: Record<string, Record<string, unknown>> = {};
  const keys: [string, string | null][] = [
    ["healthz", RUN_SQLITE ? "healthz" : null],
    ...lists.map((k) => [`${k}@${n}`, withSqlite ? `${k}@${n}` : null] as [string, string | null]),
  ];
  for (const [key, sqliteKey] of keys) {
    const row: Record<string, unknown> = {};
    if (sqliteKey) row.sqlite = { ...summary[sqliteKey], sharePct: sharePct(sqliteKey) };
    for (const setup of ["pg1", "pg2"] as const) {
      const k = `${setup}:${key}`;
      if (!summary[k]) continue;
      row[setup === "pg1" ? "oneNode" : "twoNodes"] = {
        ...summary[k],
        sharePct: sharePct(k),
        ...(sqliteKey ? { vsSqlite: perRound((r) => r[k].rps / r[sqliteKey].rps) } : {}),
      };
    }
    rows[key.replace(/@\d+$/, "")] = row;
  }
  postgres = {
    reports: n,
    nodes: {
      oneNode: { webConcurrency: workers },
      twoNodes: { webConcurrency: 1, count: 2, connectionsPerNode: LIST_CONNECTIONS / 2 },
    },
    seeded: {
      pending: pgSetup.seeded.pending,
      patients: pgSetup.seeded.patients,
      benchPatientReports: pgSetup.seeded.benchPatientReports,
    },
    startSeconds: pgSetup.startSeconds,
    seedSeconds: pgSetup.seedSeconds,
    vacuumSeconds: pgSetup.vacuumSeconds,
    responseBytes: pgSetup.responseBytes,
    sameListsOnEveryNode: pgSetup.sameListsOnEveryNode,
    figures: rows,
    uploads: pgOther,
    sharedState,
    plans: pgSetup.plans,
  };
  const label: Record<string, string> = {
    healthz: "GET /healthz (pings the database and the bucket)",
    pendingApi: "GET pending-reports API",
    patientApi: "GET patient's reports API",
    pendingPage: "GET /dashboard/pending-report",
  };
  const cell = (f: unknown) => {
    if (!f) return "";
    const x = f as Figure & { sharePct: number; vsSqlite?: number };
    return `${fig(x)}, ${x.sharePct} % of bare${x.vsSqlite !== undefined ? `, ×${x.vsSqlite} of SQLite` : ""}`;
  };
  const table: string[][] = [
    [
      `32 conns, ${n.toLocaleString("en")} reports`,
      "SQLite",
      `PostgreSQL + S3, one node (${workers} worker(s))`,
      "PostgreSQL + S3, two nodes (1 worker each)",
    ],
    ["bare node:http (reference)", fig(summary.bare)],
  ];
  for (const [k, row] of Object.entries(rows))
    table.push([label[k], cell(row.sqlite), cell(row.oneNode), cell(row.twoNodes)]);
  if (pgOther) {
    table.push([
      "POST 5 MB upload, 4 conns",
      RUN_SQLITE && other[n] ? fig(other[n].upload5mb) : "",
      fig(pgOther.upload5mbOneNode),
      fig(pgOther.upload5mbTwoNodes),
    ]);
  }
  console.log("\nPostgreSQL + S3 (issue 11):");
  printTable(table);
  console.log(`two nodes share state: ${JSON.stringify(sharedState)}`);
}
console.log(`stop (SIGTERM): ${JSON.stringify(stops)}`);

const out = path.join("bench", "results", `bench-${started.toISOString().replace(/[:.]/g, "-")}.json`);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      startedAt: started.toISOString(),
      command: `npm run bench${FLAGS.size ? ` -- ${[...FLAGS].join(" ")}` : ""}`,
      secondsPerFigure: DURATION,
      rounds: ROUNDS,
      machine,
      git,
      workers,
      summary,
      targets,
      memory,
      other,
      firstVisitJs: js,
      datasets: datasets.map((d) => ({
        reports: d.n,
        seeded: {
          pending: d.seeded.pending,
          patients: d.seeded.patients,
          benchPatientReports: d.seeded.benchPatientReports,
        },
        seedSeconds: d.seedSeconds,
        responseBytes: d.responseBytes,
        plans: d.plans,
      })),
      postgres,
      perRound: rounds,
      stops,
    },
    null,
    2,
  ) + "\n",
);
console.log(`\nWritten ${out}`);
