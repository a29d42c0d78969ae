import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./server";

/*
 * Real PostgreSQL and a real S3-protocol server for tests (../shared/notes/postgres-s3.md).
 *
 * - PostgreSQL: Debian's server binaries (apt-get install postgresql), a throwaway cluster in a
 *   temporary folder owned by the `postgres` user (the server refuses root), on a free port,
 *   fsync off. Stopped by its data folder, never by process name.
 * - S3: s3rver (npm) in a child process on a free port, keeping objects in a temporary folder.
 *
 * With TEST_BACKEND=pg-s3, tests/helpers/global-backends.ts starts one of each for the whole
 * Vitest run and every test server gets its own database and bucket (`backendEnv()`).
 */

const PG_BIN = process.env.PG_BIN ?? findPgBin();

function findPgBin(): string {
  const base = "/usr/lib/postgresql";
  if (existsSync(base)) {
    const versions = execFileSync("ls", [base]).toString().trim().split("\n").filter(Boolean).sort();
    for (const v of versions.reverse())
      if (existsSync(path.join(base, v, "bin/initdb"))) return path.join(base, v, "bin");
  }
  return "";
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary as the `postgres` user when we are root (the server refuses root). */
function pgRun(bin: string, args: string[]) {
  const exe = path.join(PG_BIN, bin);
  if (asRoot) execFileSync("runuser", ["-u", "postgres", "--", exe, ...args], { stdio: "pipe" });
  else execFileSync(exe, args, { stdio: "pipe" });
}

export type Postgres = {
  port: number;
  /** The connection URL of a database (default: postgres). */
  url: (database?: string) => string;
  /** Creates an empty database and returns its URL. */
  createDatabase: (name?: string) => Promise<string>;
  stop: () => Promise<void>;
  /** Stops the server (fast shutdown: every connection is cut) and keeps its data, for fault tests. */
  pause: () => void;
  /** Starts it again on the same port with the same data. */
  resume: () => void;
  /**
   * Freezes the server without closing anything (SIGSTOP to its postmaster, then to every backend
   * it started): connections stay open and nothing answers, as on a hung host. `thaw` continues them.
   */
  freeze: () => void;
  thaw: () => void;
};

export async function startPostgres(): Promise<Postgres> {
  if (!PG_BIN) {
    throw new Error(
      "PostgreSQL server binaries not found (apt-get install -y postgresql, or set PG_BIN to the folder holding initdb)",
    );
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "cb-pg-"));
  if (asRoot) chownSync(dir, ...postgresIds());
  const data = path.join(dir, "data");
  const port = await freePort();
  pgRun("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const start = () =>
    pgRun("pg_ctl", [
      "-D",
      data,
      "-l",
      path.join(dir, "log"),
      "-w",
      "-t",
      "60",
      "start",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 ${process.env.PG_SETTINGS ?? ""}`,
    ]);
  start();
  const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let stopped = false;
  let frozen: number[] = [];
  return {
    port,
    url,
    async createDatabase(name = `cb_${randomBytes(6).toString("hex")}`) {
      const c = new pg.Client({ connectionString: url() });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE "${name}"`);
      } finally {
        await c.end();
      }
      return url(name);
    },
    pause: () => pgRun("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    resume: start,
    freeze() {
      // The postmaster first, so it starts no backend after the list below is read.
      const postmaster = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
      process.kill(postmaster, "SIGSTOP");
      frozen = [postmaster, ...childrenOf(postmaster)];
      for (const pid of frozen.slice(1)) process.kill(pid, "SIGSTOP");
    },
    thaw() {
      for (const pid of frozen.reverse()) process.kill(pid, "SIGCONT");
      frozen = [];
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        pgRun("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The processes whose parent is `pid` (from /proc: a process's parent is the 4th field of its stat). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The name (2nd field) is in parentheses and may hold spaces: count from its end.
      const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(after[1]) === pid) found.push(Number(entry));
    } catch {
      /* ended meanwhile */
    }
  }
  return found;
}

function postgresIds(): [number, number] {
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  return [uid, gid];
}

export type S3Server = {
  endpoint: string;
  /** Creates an empty bucket and returns the app's STORAGE_URL for it. */
  createBucket: (name?: string) => Promise<string>;
  client: () => S3Client;
  stop: () => Promise<void>;
  /** Stops the server and keeps its objects, for fault tests. */
  pause: () => Promise<void>;
  /** Starts it again on the same port with the same objects. */
  resume: () => Promise<void>;
  /** Freezes the server's process (SIGSTOP): connections stay open and nothing answers. `thaw` continues it. */
  freeze: () => void;
  thaw: () => void;
};

export const S3_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export async function startS3(): Promise<S3Server> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cb-s3-"));
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const start = async () => {
    const started: ChildProcess = spawn(
      process.execPath,
      [
        "-e",
        `const S3rver = require("s3rver");
         new S3rver({ port: ${port}, address: "127.0.0.1", silent: true, directory: ${JSON.stringify(dir)} })
           .run().then(() => console.log("S3 READY"), (e) => { console.error(e); process.exit(1); });`,
      ],
      { cwd: path.resolve("."), stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`s3rver did not start: ${out}`)), 20_000);
      started.stdout!.on("data", (d) => {
        out += d;
        if (out.includes("S3 READY")) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.stderr!.on("data", (d) => (out += d));
      started.once("exit", (code) => reject(new Error(`s3rver exited (${code}): ${out}`)));
    });
    return started;
  };
  let child = await start();
  const end = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  };
  const endpoint = `http://127.0.0.1:${port}`;
  const client = () =>
    new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials: S3_CREDENTIALS });
  return {
    endpoint,
    client,
    async createBucket(name = `cb-${randomBytes(6).toString("hex")}`) {
      const c = client();
      await c.send(new CreateBucketCommand({ Bucket: name }));
      c.destroy();
      return `s3://${name}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`;
    },
    pause: end,
    async resume() {
      child = await start();
    },
    freeze: () => void child.kill("SIGSTOP"),
    thaw: () => void child.kill("SIGCONT"),
    async stop() {
      await end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Which backend the app under test runs on: "sqlite" (default) or "pg-s3" (TEST_BACKEND=pg-s3). */
export const BACKEND = process.env.TEST_BACKEND === "pg-s3" ? "pg-s3" : "sqlite";
export const onPostgres = BACKEND === "pg-s3";

/**
 * The environment that points a test server at a fresh database and bucket when the run is on
 * PostgreSQL + S3 (the shared servers started by global-backends.ts); empty on SQLite.
 */
export async function backendEnv(opts: { template?: boolean } = {}): Promise<Record<string, string>> {
  if (!onPostgres) return {};
  const pgUrl = process.env.CB_TEST_PG_URL;
  const s3 = process.env.CB_TEST_S3_ENDPOINT;
  if (!pgUrl || !s3)
    throw new Error("TEST_BACKEND=pg-s3 needs the global setup (tests/helpers/global-backends.ts)");
  const name = `cb_${randomBytes(6).toString("hex")}`;
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    // From the run's migrated template (tests/helpers/templates.ts) when there is one.
    const template = opts.template === false ? undefined : process.env.CB_TEST_PG_TEMPLATE;
    await c.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
  } finally {
    await c.end();
  }
  const bucket = name.replace(/_/g, "-");
  const client = new S3Client({
    region: "us-east-1",
    endpoint: s3,
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    DATABASE_URL: pgUrl.replace(/\/[^/]*$/, `/${name}`),
    STORAGE_URL: `s3://${bucket}?endpoint=${encodeURIComponent(s3)}&region=us-east-1`,
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    ...sharedSecrets(),
  };
}

/** The secrets every node of one deployment shares (required with PostgreSQL or a bucket). */
export function sharedSecrets() {
  return { SESSION_SECRET: randomBytes(32).toString("hex"), ENCRYPTION_KEY: randomBytes(32).toString("hex") };
}
