/**
 * DATABASE_URL=postgres://… [STORAGE_URL=s3://…] ENCRYPTION_KEY=… SESSION_SECRET=… \
 *   npm run migrate:to-postgres -- --from data/app.db [--uploads uploads] [--skip-missing-files]
 *
 * Moves a clinic from its SQLite database and local uploads folder to PostgreSQL (and, with
 * STORAGE_URL, an S3 bucket) (decision 0011). Stop the app first. ENCRYPTION_KEY and SESSION_SECRET
 * are the clinic's (data/secrets/): PostgreSQL setups take them from the environment.
 *
 * 1. Migrates the target schema (drizzle/pg) and refuses a target that already holds data.
 * 2. Copies every referenced encrypted file (reports.file_key, users.image) from the uploads folder
 *    into the configured store, bytes unchanged and streamed (nothing to copy when the store is that
 *    same folder), after decrypting the smallest one through the store with ENCRYPTION_KEY, and
 *    checks that each one is there. A referenced file missing from the folder stops the run unless
 *    --skip-missing-files.
 * 3. Copies every table in foreign-key order, 500 rows per insert, inside ONE PostgreSQL
 *    transaction, compares the row counts and only then commits. Rows are read with the SQLite
 *    schema (epoch ms → Date, 0/1 → boolean) and written with the PostgreSQL one. Rate-limit
 *    counters are not copied.
 *
 * Any failure rolls the transaction back (the target database keeps no row of the clinic), removes
 * the files this run put into the store, and says what went wrong.
 */
import { count, getTableColumns, getTableName, is, isNotNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { getTableConfig as getPgTableConfig, PgTable } from "drizzle-orm/pg-core";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { createReadStream, existsSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { config } from "../app/config.server";
import { closeDatabase, migrateDatabase, openSqlite, pgPool } from "../app/db/client.server";
import * as pgSchema from "../app/db/schema.pg";
import * as lite from "../app/db/schema.sqlite";
import { openDecrypted } from "../app/domain/records/files.server";
import { blobStore } from "../app/storage/factory.server";

const USAGE =
  "Usage: DATABASE_URL=postgres://… [STORAGE_URL=s3://…] ENCRYPTION_KEY=$(cat data/secrets/encryption-key) " +
  "SESSION_SECRET=$(cat data/secrets/session-secret) npm run migrate:to-postgres -- --from data/app.db " +
  "[--uploads uploads] [--skip-missing-files]";
const BATCH = 500;
/** The rowid's name among a page's columns (no column of ours starts with two underscores). */
const ROWID = "__rowid";
const PARALLEL = 4;
const KEY_RE = /^[a-f0-9]{32}$/;

/**
 * Not moved: rate-limit counters are short-lived (a minute to a day) and rebuild themselves; the
 * lists' totals (decision 0031) are kept by the target's own triggers as the rows arrive.
 */
const SKIPPED = new Set(["rate_limits", "list_counts"]);
/** The order the tables are copied in when foreign keys allow it (the rest follow, by name). */
const PREFERRED = [
  "users",
  "profiles",
  "verification_codes",
  "password_reset_tokens",
  "sessions",
  "reports",
  "audit_events",
  "contact_messages",
  "callback_requests",
];

/**
 * Every table of the schema (so a table added later moves too), each after the tables its foreign
 * keys refer to. Both schemas must hold the same tables (tests/unit/schema-parity.test.ts).
 */
function tablesInForeignKeyOrder(): { name: string; lite: SQLiteTable; pg: PgTable }[] {
  const liteTables = new Map(
    (Object.values(lite) as unknown[])
      .filter((v): v is SQLiteTable => is(v, SQLiteTable))
      .map((t) => [getTableName(t), t]),
  );
  const pgTables = new Map(
    (Object.values(pgSchema) as unknown[])
      .filter((v): v is PgTable => is(v, PgTable))
      .map((t) => [getTableName(t), t]),
  );
  const rank = (n: string) => (PREFERRED.includes(n) ? PREFERRED.indexOf(n) : PREFERRED.length);
  const pending = [...pgTables.keys()]
    .filter((n) => !SKIPPED.has(n))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const n of pending) {
    if (!liteTables.has(n)) throw new Error(`table ${n} is in schema.pg.ts but not in schema.sqlite.ts`);
  }
  const ordered: { name: string; lite: SQLiteTable; pg: PgTable }[] = [];
  const done = new Set<string>();
  while (pending.length) {
    const i = pending.findIndex((n) =>
      getPgTableConfig(pgTables.get(n)!).foreignKeys.every((fk) => {
        const target = getTableName(fk.reference().foreignTable);
        return target === n || done.has(target) || SKIPPED.has(target);
      }),
    );
    if (i < 0) throw new Error(`the foreign keys of ${pending.join(", ")} form a cycle`);
    const [n] = pending.splice(i, 1);
    ordered.push({ name: n, lite: liteTables.get(n)!, pg: pgTables.get(n)! });
    done.add(n);
  }
  return ordered;
}

const TABLES = tablesInForeignKeyOrder();
const names = TABLES.map((t) => t.name);

/**
 * What went wrong, in the database's own words. Drizzle wraps a driver error in "Failed query: …
 * params: …", and those parameters are the clinic's rows (names, e-mails, password hashes): never printed.
 */
function reason(err: unknown): string {
  let e = err as { message?: string; cause?: unknown; detail?: string; code?: string } | undefined;
  while (e && e.cause && /^Failed query:/.test(e.message ?? "")) e = e.cause as typeof e;
  if (!e) return String(err);
  return [e.message ?? String(e), e.detail, e.code && `(${e.code})`].filter(Boolean).join(" ");
}

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

let args;
try {
  args = parseArgs({
    options: {
      from: { type: "string" },
      uploads: { type: "string", default: "uploads" },
      "skip-missing-files": { type: "boolean", default: false },
    },
  }).values;
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
if (!args.from) fail(`--from is required: the clinic's SQLite database (e.g. data/app.db).\n${USAGE}`, 2);
const from = path.resolve(args.from);
const uploads = path.resolve(args.uploads!);
if (!existsSync(from)) fail(`There is no SQLite database at ${from}.`);

const c = config();
if (c.databaseKind !== "postgres") {
  fail(
    `DATABASE_URL must be the target PostgreSQL database (postgres://user:pass@host:port/db).\n${USAGE}`,
    2,
  );
}
const store = blobStore();
/** Where the clinic's generated secrets live, next to its SQLite database (data/secrets). */
const clinicSecrets = path.join(path.dirname(from), "secrets");
const target = c.storage.kind === "s3" ? `bucket ${c.storage.bucket}` : c.storage.dir;
const sameFolder = c.storage.kind === "local" && path.resolve(c.storage.dir) === uploads;

// The app's own opening: WAL, foreign keys, and the source brought to this version's SQLite schema.
let source: ReturnType<typeof openSqlite>;
try {
  source = openSqlite(from);
} catch (err) {
  fail(`${from} cannot be opened as the clinic's SQLite database: ${reason(err)}`);
}
const src = source.raw;
// One read transaction: every file list and row below comes from the same snapshot of the source.
source.sqlite.exec("BEGIN");

const rowCount = (table: SQLiteTable) => src.select({ n: count() }).from(table).get()!.n;

async function targetCounts(q: (sql: string) => Promise<{ rows: { n: number }[] }>) {
  const out: Record<string, number> = {};
  for (const name of names) out[name] = Number((await q(`SELECT count(*) AS n FROM "${name}"`)).rows[0].n);
  return out;
}

async function forEachParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

const put: string[] = [];
let began = false;
let step = "migrating the target schema";
let exitCode = 0;
try {
  await migrateDatabase();
  const pool = pgPool()!;

  step = "checking that the target is empty";
  const before = await targetCounts((q) => pool.query(q));
  const held = Object.entries(before).filter(([, n]) => n > 0);
  if (held.length) {
    throw new Error(
      `the target database already holds data (${held.map(([t, n]) => `${t}: ${n}`).join(", ")}). ` +
        `Migrate into an empty database: create a new one (CREATE DATABASE …) and point DATABASE_URL at it. ` +
        `(Starting the app on it first with ADMIN_EMAIL set creates an admin, so migrate before the first start.)`,
    );
  }

  // --- Files first: nothing in the database refers to them until the transaction commits. ---
  step = "listing the referenced files";
  const keys = [
    ...new Set([
      ...src
        .select({ k: lite.reports.fileKey })
        .from(lite.reports)
        .all()
        .map((r) => r.k),
      ...src
        .select({ k: lite.users.image })
        .from(lite.users)
        .where(isNotNull(lite.users.image))
        .all()
        .map((r) => r.k!),
    ]),
  ];
  const missingInSource = keys.filter((k) => !KEY_RE.test(k) || !existsSync(path.join(uploads, `${k}.enc`)));
  if (missingInSource.length && !args["skip-missing-files"]) {
    throw new Error(
      `${missingInSource.length} of ${keys.length} referenced files are not in ${uploads}` +
        ` (${missingInSource.slice(0, 5).join(", ")}${missingInSource.length > 5 ? ", …" : ""}).` +
        ` Is --uploads the clinic's uploads folder? To migrate without them, add --skip-missing-files.`,
    );
  }
  const skipped = new Set(missingInSource);
  const present = keys.filter((k) => !skipped.has(k));
  const copy = async (key: string) => {
    if (sameFolder) return;
    // Encrypted already (the key is bound into each file): the bytes move unchanged, streamed.
    await store.put(key, createReadStream(path.join(uploads, `${key}.enc`)));
    put.push(key);
  };

  // The app must read the files with the key it is given now: decrypt the smallest one through the
  // target store before copying the rest (a wrong ENCRYPTION_KEY would leave every file unreadable).
  const probe = present.reduce<{ key: string; size: number } | undefined>((best, key) => {
    const size = statSync(path.join(uploads, `${key}.enc`)).size;
    return best && best.size <= size ? best : { key, size };
  }, undefined);
  if (probe) {
    step = "checking that ENCRYPTION_KEY reads the clinic's files";
    await copy(probe.key);
    try {
      for await (const _chunk of await openDecrypted(probe.key)) {
        /* reading to the end checks the authentication tag */
      }
    } catch (err) {
      throw new Error(
        `ENCRYPTION_KEY does not decrypt the clinic's files (${probe.key}: ${reason(err)}). Use the clinic's key — ` +
          `${path.join(clinicSecrets, "encryption-key")} unless it was set in the environment — and the same SESSION_SECRET.`,
      );
    }
  }

  step = "copying files";
  let done = probe ? 1 : 0;
  await forEachParallel(
    present.filter((k) => k !== probe?.key),
    PARALLEL,
    async (key) => {
      await copy(key);
      if (++done % 100 === 0) console.log(`  files: ${done} of ${present.length}`);
    },
  );
  step = "checking the files in the target store";
  const absent: string[] = [];
  await forEachParallel(present, PARALLEL, async (key) => {
    if (!(await store.exists(key))) absent.push(key);
  });
  if (absent.length)
    throw new Error(`${absent.length} files are not in ${target} after copying: ${absent.join(", ")}`);
  console.log(`Files: ${sameFolder ? "already in" : `${present.length} copied into`} ${target}.`);

  // --- Rows: one transaction, so a failure leaves the target database as it was. ---
  const client = await pool.connect();
  const sourceCounts: Record<string, number> = {};
  let after: Record<string, number>;
  try {
    await client.query("BEGIN");
    began = true;
    step = "checking that the target is empty";
    const again = await targetCounts((q) => client.query(q));
    if (Object.values(again).some((n) => n > 0))
      throw new Error("the target database received data meanwhile");
    const tx = drizzle(client, { schema: pgSchema });
    for (const t of TABLES) {
      step = `copying ${t.name}`;
      sourceCounts[t.name] = rowCount(t.lite);
      // Pages by SQLite's rowid (every table has one; some keys span two columns).
      const columns = { ...getTableColumns(t.lite), [ROWID]: sql<number>`rowid` };
      let last: number | undefined;
      let copied = 0;
      for (;;) {
        const page = src
          .select(columns)
          .from(t.lite)
          .where(last === undefined ? undefined : sql`rowid > ${last}`)
          .orderBy(sql`rowid`)
          .limit(BATCH)
          .all() as Record<string, unknown>[];
        if (!page.length) break;
        last = page[page.length - 1][ROWID] as number;
        const rows = page.map(({ [ROWID]: _rowid, ...row }) => row);
        await tx.insert(t.pg).values(rows as never[]);
        copied += rows.length;
      }
      console.log(`  ${t.name}: ${copied} rows`);
    }
    step = "comparing row counts";
    after = await targetCounts((q) => client.query(q));
    const wrong = names.filter((n) => after[n] !== sourceCounts[n]);
    if (wrong.length) {
      throw new Error(
        `row counts differ: ${wrong.map((n) => `${n} ${sourceCounts[n]} → ${after[n]}`).join(", ")}`,
      );
    }
    step = "committing";
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }

  const w = Math.max(...names.map((n) => n.length));
  console.log(`\nMigrated ${from} into PostgreSQL:`);
  console.log(`  ${"table".padEnd(w)}  ${"SQLite".padStart(8)}  ${"PostgreSQL".padStart(10)}`);
  for (const n of names) {
    console.log(`  ${n.padEnd(w)}  ${String(sourceCounts[n]).padStart(8)}  ${String(after[n]).padStart(10)}`);
  }
  console.log(
    `  files: ${present.length} of ${keys.length} referenced in ${target}` +
      (missingInSource.length ? ` (${missingInSource.length} were already missing in ${uploads})` : ""),
  );
  console.log(
    `\nSecrets: the files stay encrypted with the clinic's key. Every node of the app on PostgreSQL must ` +
      `run with the ENCRYPTION_KEY and SESSION_SECRET used here (the clinic's, in ${clinicSecrets} ` +
      `unless they were set in the environment); keep them with your backups.`,
  );
} catch (err) {
  exitCode = 1;
  console.error(`\nMigration failed while ${step}: ${reason(err)}`);
  console.error(
    `No rows were written to the target database${began ? " (the transaction was rolled back)" : ""}.`,
  );
  if (put.length) {
    let removed = 0;
    for (const key of put) {
      try {
        await store.delete(key);
        removed++;
      } catch {
        /* best effort; the app's sweep removes unreferenced files later */
      }
    }
    console.error(`Removed the ${removed} files this run had put into ${target}.`);
  }
} finally {
  source.sqlite.close();
  await closeDatabase().catch(() => {});
}
process.exit(exitCode);
