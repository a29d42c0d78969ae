/**
 * npm run backup [-- --out DIR]
 * Online backup while the app runs, for either setup (decision 0011):
 *
 * - the database: SQLite's backup API into `app.db` (a consistent copy even with writers), or for
 *   PostgreSQL `pg_dump --format=custom` into `database.pgdump`, taken from a snapshot that the
 *   list of referenced files below is read from too;
 * - every referenced encrypted file (reports.file_key, users.image), read through the configured
 *   store (a local folder or an S3 bucket) into `uploads/<key>.enc`, bytes unchanged, streamed;
 * - the secrets (decision 0006: without the encryption key the files cannot be read): the
 *   generated ones in DATA_DIR/secrets, and the encryption key and session secret in effect;
 * - `manifest.json`, written last, saying which database and store the backup came from.
 *
 * Writes backups/<timestamp>/ (mode 0700) unless --out is given.
 */
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { config } from "../app/config.server";
import { closeDatabase, migrateDatabase, pgPool, sqliteConnection } from "../app/db/client.server";
import { blobStore } from "../app/storage/factory.server";

const KEY_RE = /^[a-f0-9]{32}$/;
const REFERENCED_SQL =
  "select file_key as k from reports union select image from users where image is not null";
/** Objects read from the store at once (an S3 bucket answers faster with a few requests in flight). */
const PARALLEL = 4;

const { values } = parseArgs({ options: { out: { type: "string" } } });
const c = config();
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const out = path.resolve(values.out ?? path.join("backups", stamp));
if (existsSync(out) && readdirSync(out).length) {
  console.error(`${out} exists and is not empty`);
  process.exit(1);
}

/** A PostgreSQL client tool: on PATH, else in Debian's /usr/lib/postgresql/<version>/bin (newest first). */
function findPgTool(name: "pg_dump" | "pg_restore"): string {
  const candidates = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a) || b.localeCompare(a));
    candidates.push(...versions.map((v) => path.join(debian, v, "bin")));
  }
  for (const dir of candidates) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* not here */
    }
  }
  throw new Error(
    `${name} was not found on PATH or in /usr/lib/postgresql/*/bin. Install the PostgreSQL client tools ` +
      `(Debian/Ubuntu: apt-get install postgresql-client), in the same or a newer major version than the server.`,
  );
}

/**
 * libpq's view of DATABASE_URL: the password moves to PGPASSWORD (never on a command line, where
 * other users of the machine could read it) and node-postgres's `ssl=true` becomes `sslmode=require`.
 */
function libpqTarget(url: string): { url: string; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (u.password) {
    env.PGPASSWORD = decodeURIComponent(u.password);
    u.password = "";
  }
  const ssl = u.searchParams.get("ssl");
  if (ssl !== null) {
    u.searchParams.delete("ssl");
    if (/^(1|true|require)$/i.test(ssl) && !u.searchParams.has("sslmode"))
      u.searchParams.set("sslmode", "require");
  }
  return { url: u.toString(), env };
}

/** Runs a tool, passing its messages through; rejects with them when it fails. */
function runTool(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ["ignore", "inherit", "pipe"] });
    let errors = false;
    child.stderr!.on("data", (d) => {
      errors = true;
      process.stderr.write(d);
    });
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `${path.basename(file)} failed (${signal ?? `exit ${code}`})${errors ? "; its message is above" : ""}`,
            ),
          ),
    );
  });
}

async function forEachParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/** Database into the folder; returns the keys of the files it refers to. */
async function backupDatabase(pgDump: string | undefined): Promise<{ file: string; keys: string[] }> {
  if (!pgDump) {
    await migrateDatabase();
    const source = sqliteConnection()!;
    source.pragma("busy_timeout = 10000");
    const file = path.join(out, "app.db");
    await source.backup(file);
    chmodSync(file, 0o600);
    // The keys come from the copy, so they are exactly the files the copied rows refer to.
    const copy = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return {
        file: "app.db",
        keys: (copy.prepare(REFERENCED_SQL).all() as { k: string }[]).map((r) => r.k),
      };
    } finally {
      copy.close();
    }
  }
  await migrateDatabase();
  const file = path.join(out, "database.pgdump");
  // One snapshot for the dump and the list of files: pg_dump joins the snapshot this transaction
  // exports, so the files copied are exactly those the dumped rows refer to.
  const client = await pgPool()!.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    // Idle while pg_dump reads the snapshot, however long that takes (decision 0075).
    await client.query("SET LOCAL idle_in_transaction_session_timeout = 0");
    const snapshot = (await client.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0].id;
    const target = libpqTarget(c.databaseUrl);
    await runTool(
      pgDump,
      ["--format=custom", `--snapshot=${snapshot}`, `--file=${file}`, `--dbname=${target.url}`],
      target.env,
    );
    const keys = (await client.query<{ k: string }>(REFERENCED_SQL)).rows.map((r) => r.k);
    await client.query("COMMIT");
    chmodSync(file, 0o600);
    return { file: "database.pgdump", keys };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

// Before a folder is made: what would stop the backup at once.
let pgDump: string | undefined;
try {
  if (c.databaseKind === "postgres") pgDump = findPgTool("pg_dump");
  else if (!existsSync(c.databaseUrl)) throw new Error(`there is no database at ${c.databaseUrl}`);
} catch (err) {
  console.error(`Backup failed: ${(err as Error).message}`);
  process.exit(1);
}

try {
  mkdirSync(path.join(out, "uploads"), { recursive: true, mode: 0o700 });
  chmodSync(out, 0o700);

  const database = await backupDatabase(pgDump);
  const keys = [...new Set(database.keys)];

  const store = blobStore();
  const missing: string[] = [];
  let copied = 0;
  await forEachParallel(keys, PARALLEL, async (key) => {
    const object = KEY_RE.test(key) ? await store.get(key) : null;
    if (!object) {
      missing.push(key);
      return;
    }
    // Already encrypted: the bytes go into the backup unchanged, chunk by chunk.
    await pipeline(
      object.stream,
      createWriteStream(path.join(out, "uploads", `${key}.enc`), { flags: "wx", mode: 0o600 }),
    );
    copied++;
  });

  // Decision 0006: a backup carries the keys that read it. The generated ones are copied as they
  // are; the values in effect are written too, since with PostgreSQL or a bucket they come from
  // the environment (SESSION_SECRET/ENCRYPTION_KEY, shared by every node) and not from the folder.
  const secrets = path.join(c.dataDir, "secrets");
  mkdirSync(path.join(out, "secrets"), { mode: 0o700 });
  for (const f of existsSync(secrets) ? readdirSync(secrets) : []) {
    copyFileSync(path.join(secrets, f), path.join(out, "secrets", f));
    chmodSync(path.join(out, "secrets", f), 0o600);
  }
  for (const [name, value] of [
    ["encryption-key", c.encryptionKey.toString("hex")],
    ["session-secret", c.sessionSecret],
  ]) {
    writeFileSync(path.join(out, "secrets", name), `${value}\n`, { mode: 0o600 });
    chmodSync(path.join(out, "secrets", name), 0o600);
  }
  writeFileSync(
    path.join(out, "manifest.json"),
    JSON.stringify(
      {
        createdAt: new Date().toISOString(),
        database: c.databaseKind,
        databaseFile: database.file,
        storage: c.storage.kind,
        files: copied,
        referenced: keys.length,
        missing: missing.sort(),
      },
      null,
      2,
    ),
    { mode: 0o600 },
  );
  await closeDatabase();
  console.log(
    `Backup written to ${out}: database + ${copied} files${missing.length ? ` (${missing.length} referenced files were missing)` : ""}.`,
  );
  process.exit(0);
} catch (err) {
  await closeDatabase().catch(() => {});
  console.error(`Backup failed: ${err instanceof Error ? err.message : String(err)}`);
  console.error(`${out} is incomplete (it has no manifest.json); delete it.`);
  process.exit(1);
}
