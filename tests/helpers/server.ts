import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { seedSqlite } from "./templates";

export type TestServer = {
  url: string;
  port: number;
  /** The server process (with workers: the primary). */
  pid: number;
  dataDir: string;
  uploadsDir: string;
  output: () => string;
  stop: () => Promise<void>;
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

export type AppProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  dataDir: string;
  uploadsDir: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/** The build under test: `BUILD_DIR` (default build/), so parallel work can keep separate builds. */
export const BUILD_DIR = path.resolve(process.env.BUILD_DIR || "build");

/**
 * The database and file store of the app kept in `root`: nothing extra on SQLite; on a
 * TEST_BACKEND=pg-s3 run a database and a bucket of its own, made on first use and remembered in
 * `root/backend.json`, so an app restarted on the same root finds its data again.
 */
export async function rootBackend(
  root: string,
  opts: { fresh?: boolean } = {},
): Promise<Record<string, string>> {
  const { backendEnv, onPostgres } = await import("./backends");
  if (!onPostgres) return {};
  const file = path.join(root, "backend.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  const env = await backendEnv({ template: !opts.fresh });
  mkdirSync(root, { recursive: true });
  writeFileSync(file, JSON.stringify(env));
  return env;
}

/**
 * Spawns the built app (`npm run build` first) with our server (build/main.js; one process
 * unless `WEB_CONCURRENCY` is given, or remix-serve with `{ basic: true }`) on 127.0.0.1 and a free port,
 * with its data folder and uploads folder under `root`, and waits until /healthz answers.
 */
export async function spawnApp(
  root: string,
  env: Record<string, string> = {},
  /**
   * fresh: an empty database that the app migrates itself, instead of the run's migrated template;
   * port: this port rather than a free one (an app started again at the same origin);
   * buildDir: another build than BUILD_DIR (a second release).
   */
  opts: { basic?: boolean; fresh?: boolean; port?: number; buildDir?: string } = {},
): Promise<AppProcess> {
  const dataDir = path.join(root, "data");
  const uploadsDir = path.join(root, "uploads");
  const port = opts.port ?? (await freePort());
  const buildDir = opts.buildDir ?? BUILD_DIR;
  const backend = env.DATABASE_URL || env.STORAGE_URL ? {} : await rootBackend(root, opts);
  // A SQLite app starts from the run's migrated template (tests/helpers/templates.ts).
  if (!env.DATABASE_URL && !backend.DATABASE_URL && !opts.fresh) seedSqlite(dataDir);
  let out = "";
  const child: ChildProcess = spawn(
    process.execPath,
    opts.basic
      ? [path.resolve("node_modules/@remix-run/serve/dist/cli.js"), path.join(buildDir, "server/index.js")]
      : [path.join(buildDir, "main.js")],
    {
      cwd: path.resolve("."),
      env: {
        ...process.env,
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: dataDir,
        UPLOADS_DIR: uploadsDir,
        APP_URL: `http://127.0.0.1:${port}`,
        BCRYPT_COST: "4",
        ARGON2_MEMORY_KIB: "1024",
        ARGON2_TIME_COST: "1",
        WEB_CONCURRENCY: "1",
        // Two-step login is required for admins by default (decision 0017); the suites that log in as the
        // bootstrap admin with a password run without it unless they turn it on.
        MFA_REQUIRED_FOR_ADMINS: "false",
        // No scheduled backup at start (decision 0067); the backup suites turn it on.
        BACKUP_AT: "off",
        // The lab reader reads text-layer PDFs; OCR of pictures and scans (a second or two of CPU
        // each) only where the suite is about it (lab-upload-read, the bench: LAB_OCR=1).
        LAB_OCR: "0",
        // The start is seen by the line saying where it listens (below): a suite's own
        // LOG_LEVEL=silent (freshDomain sets it in the process) must not hide it.
        LOG_LEVEL: "info",
        ...backend,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once("exit", (code, signal) => r({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  // 100 s: on a two-core machine busy with three test files, two workers on PostgreSQL have taken
  // over 60 s to answer (ratelimit-http's start, CI of 2026-11-28; 30 s alone); a start that fails
  // still fails here, and a server that exits says so at once.
  const deadline = Date.now() + 100_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      // The free port was taken between the look and the listen (another test's server): another one.
      if (!opts.port && /EADDRINUSE/.test(out)) return spawnApp(root, env, opts);
      throw new Error(`server exited early:\n${out}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      // Ours, not another test's server that took the port: ours said it listens there.
      if (res.ok && out.includes(`:${port}`)) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, port, child, dataDir, uploadsDir, output: () => out, exited };
}

/**
 * Starts the built app with a fresh temporary data folder (SQLite file, secrets, outbox) and
 * uploads folder; `stop()` ends it and removes the folder (unless `keep`).
 */
export async function startServer(
  env: Record<string, string> = {},
  opts: { root?: string; keep?: boolean; basic?: boolean; fresh?: boolean } = {},
): Promise<TestServer & { root: string }> {
  const root = opts.root ?? mkdtempSync(path.join(os.tmpdir(), "carebridge-test-"));
  const app = await spawnApp(root, env, { basic: opts.basic, fresh: opts.fresh });
  return {
    root,
    url: app.url,
    port: app.port,
    pid: app.child.pid!,
    dataDir: app.dataDir,
    uploadsDir: app.uploadsDir,
    output: app.output,
    stop: async () => {
      // A 500 is a bug: whatever the test asserted, the reason reaches the run's log (the server's
      // own output is otherwise dropped with it).
      const unhandled = app
        .output()
        .split("\n")
        .filter((l) => /"msg":"(unhandled|api fault|upload fault)"/.test(l));
      if (unhandled.length) console.error(`server ${app.url} answered 500:\n${unhandled.join("\n")}`);
      // So is why a part was found down (the 503's cause), once per outage.
      const down = app
        .output()
        .split("\n")
        .filter((l) => /"msg":"(store|database) unavailable"/.test(l));
      if (down.length) console.error(`server ${app.url} found a part down:\n${down.join("\n")}`);
      if (app.child.exitCode === null && app.child.signalCode === null) {
        app.child.kill("SIGTERM");
        await Promise.race([app.exited, new Promise((r) => setTimeout(r, 5000))]);
        if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL");
      }
      if (!opts.keep) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A tiny cookie jar for HTTP-level tests of the screens. */
export class Browserish {
  cookies = new Map<string, string>();
  constructor(public base: string) {}

  cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async fetch(pathname: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("Cookie", this.cookieHeader());
    const res = await fetch(this.base + pathname, { ...init, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i);
      const value = pair.slice(i + 1);
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(c) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Posts a form like a browser without JavaScript (same-origin headers); pairs may repeat a field. */
  post(pathname: string, fields: Record<string, string> | [string, string][]) {
    return this.fetch(pathname, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: this.base,
        "Sec-Fetch-Site": "same-origin",
      },
    });
  }

  /** Follows redirects by hand (keeping cookies) and returns the final response. */
  async follow(res: Response): Promise<Response> {
    let r = res;
    for (let i = 0; i < 10 && r.status >= 300 && r.status < 400; i++) {
      const loc = r.headers.get("Location")!;
      r = await this.fetch(loc.startsWith("http") ? new URL(loc).pathname + new URL(loc).search : loc);
    }
    return r;
  }

  /** The same session with the language cookie set (`hi`, `bn`, `ta`, `en`), as the switcher sets it. */
  inLanguage(lng: string): Browserish {
    const other = new Browserish(this.base);
    other.cookies = new Map(this.cookies);
    other.cookies.set("lng", encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64")));
    return other;
  }
}

/** A page's visible text, roughly: scripts and tags dropped, apostrophes decoded, white space folded. */
export function pageText(html: string) {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");
}
