import Database from "better-sqlite3";
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { config } from "~/config.server";
import { pgPool, sqliteConnection } from "./client.server";
import { FILE_COLUMN_NAMES } from "./file-columns";
import { findPgTool, libpqTarget, runTool } from "./pg-tools.server";

export { findPgTool, libpqTarget, runTool };

/**
 * The database's part of a backup (decisions 0011, 0067), the only dialect code of it: a
 * consistent copy into the backup folder, the keys of the files its rows refer to and the row
 * count of every table — all read from the same snapshot — and, for verification, the same
 * figures read back from a restored copy.
 */

/**
 * The referenced keys, from the tables this database has: a database of an earlier version (a
 * backup before an upgrade migrates it) may not have them all yet.
 */
function referencedSql(tables: string[]): string {
  const have = new Set(tables);
  return FILE_COLUMN_NAMES.filter(({ table, since }) => have.has(table) && (!since || have.has(since)))
    .map(
      ({ table, column }) =>
        `select ${quoteIdent(column)} as k from ${quoteIdent(table)} where ${quoteIdent(column)} is not null`,
    )
    .join(" union ");
}

/** Report files a verification decrypts: their key and the plaintext size the row records. */
export type RecordedFile = { key: string; size: number };

export type DatabaseCopy = {
  /** The file in the backup folder: app.db or database.pgdump. */
  file: string;
  keys: string[];
  /** Rows per table, counted in the snapshot the copy is. */
  counts: Record<string, number>;
};

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Row counts of every table `names` lists, in one statement. */
function countSql(names: string[]): string {
  return `select ${names.map((n, i) => `(select count(*) from ${quoteIdent(n)}) as c${i}`).join(", ")}`;
}

function sqliteCounts(file: Database.Database): Record<string, number> {
  const names = (
    file
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
  const row = file.prepare(countSql(names)).get() as Record<string, number>;
  return Object.fromEntries(names.map((n, i) => [n, Number(row[`c${i}`])]));
}

/** The database into `out`; the keys and counts read in the same snapshot as the copy. */
export async function copyDatabase(out: string): Promise<DatabaseCopy> {
  const c = config();
  if (c.databaseKind === "sqlite") {
    const source = sqliteConnection()!;
    source.pragma("busy_timeout = 10000");
    const file = path.join(out, "app.db");
    await source.backup(file);
    chmodSync(file, 0o600);
    // Keys and counts come from the copy, so they are exactly what the copied rows hold.
    const copy = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const counts = sqliteCounts(copy);
      const keys = copy.prepare(referencedSql(Object.keys(counts))).all() as { k: string }[];
      return { file: "app.db", keys: keys.map((r) => r.k), counts };
    } finally {
      copy.close();
      // Reading the WAL-mode copy left an empty log and its index beside it: not part of the backup.
      for (const extra of [`${file}-wal`, `${file}-shm`])
        if (existsSync(extra) && (extra.endsWith("-shm") || statSync(extra).size === 0)) rmSync(extra);
    }
  }
  findPgTool("pg_dump"); // missing: said before the snapshot is taken
  const file = path.join(out, "database.pgdump");
  // One snapshot for the dump, the list of files and the counts: pg_dump joins the snapshot this
  // transaction exports, so the files copied are exactly those the dumped rows refer to.
  const client = await pgPool()!.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    // Idle while pg_dump reads the snapshot, however long that takes (decision 0075).
    await client.query("SET LOCAL idle_in_transaction_session_timeout = 0");
    const snapshot = (await client.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0].id;
    const target = libpqTarget(c.databaseUrl);
    const dumped = runTool(
      "pg_dump",
      ["--format=custom", `--snapshot=${snapshot}`, `--file=${file}`, `--dbname=${target.url}`],
      target.env,
    );
    dumped.catch(() => {}); // awaited below; meanwhile the counts are read in the same snapshot
    const names = (
      await client.query<{ name: string }>(
        "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1",
      )
    ).rows.map((r) => r.name);
    const keys = (await client.query<{ k: string }>(referencedSql(names))).rows.map((r) => r.k);
    const row = (await client.query<Record<string, string>>(countSql(names))).rows[0];
    await dumped;
    await client.query("COMMIT");
    chmodSync(file, 0o600);
    return {
      file: "database.pgdump",
      keys,
      counts: Object.fromEntries(names.map((n, i) => [n, Number(row[`c${i}`])])),
    };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** What a restored database copy holds, read back for verification and before a restore. */
export type CopyReading = {
  counts: Record<string, number>;
  reportFiles: RecordedFile[];
  /** Every key its file-bearing columns name (app/db/file-columns.ts), distinct. */
  keys: string[];
};

/**
 * Reads a restored copy without a database server: SQLite's `integrity_check` and counts; a
 * PostgreSQL archive's table of contents (`pg_restore --list`) and then its data as a script
 * (`pg_restore --data-only`), counting each table's COPY lines (one per row in COPY's text form)
 * and taking the reports' file keys and sizes, and every file-bearing column's keys, from their rows.
 */
export async function readDatabaseCopy(file: string): Promise<CopyReading> {
  if (file.endsWith(".db")) {
    const copy = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const check = copy.pragma("integrity_check") as { integrity_check: string }[];
      if (check.length !== 1 || check[0].integrity_check !== "ok")
        throw new Error(
          `integrity_check: ${check
            .slice(0, 3)
            .map((r) => r.integrity_check)
            .join("; ")}`,
        );
      const reportFiles = copy.prepare("select file_key as key, size from reports").all() as RecordedFile[];
      const counts = sqliteCounts(copy);
      const keys = copy.prepare(referencedSql(Object.keys(counts))).all() as { k: string }[];
      return { counts, reportFiles, keys: keys.map((r) => r.k) };
    } finally {
      copy.close();
    }
  }
  await runTool("pg_restore", ["--list"], process.env, () => {}, [file]);
  const counts: Record<string, number> = {};
  const reportFiles: RecordedFile[] = [];
  const keys = new Set<string>();
  let table: string | null = null;
  let keyAt = -1;
  let sizeAt = -1;
  let fileAt: number[] = [];
  await runTool(
    "pg_restore",
    ["--data-only", "--file=-"],
    process.env,
    (line) => {
      if (table === null) {
        const m = /^COPY (?:("?)([^".]+)\1\.)?("?)([^" ]+)\3 \((.*)\) FROM stdin;$/.exec(line);
        if (!m || (m[2] && m[2] !== "public")) return;
        const name = m[4];
        table = name;
        counts[name] = 0;
        const columns = m[5].split(", ").map((col) => col.replace(/^"|"$/g, ""));
        [keyAt, sizeAt] =
          name === "reports" ? [columns.indexOf("file_key"), columns.indexOf("size")] : [-1, -1];
        fileAt = FILE_COLUMN_NAMES.filter((c) => c.table === name)
          .map((c) => columns.indexOf(c.column))
          .filter((i) => i >= 0);
        return;
      }
      if (line === "\\.") {
        table = null;
        return;
      }
      counts[table]++;
      if (keyAt < 0 && !fileAt.length) return;
      const fields = line.split("\t");
      if (keyAt >= 0) reportFiles.push({ key: fields[keyAt], size: Number(fields[sizeAt]) });
      // COPY's text form writes a null as \N; keys are hex, never escaped.
      for (const i of fileAt) if (fields[i] !== "\\N") keys.add(fields[i]);
    },
    [file],
  );
  return { counts, reportFiles, keys: [...keys] };
}

/** Every key the live database's file-bearing columns name (a restore checks each is in the store). */
export async function liveReferencedKeys(): Promise<string[]> {
  const sqlite = sqliteConnection();
  if (sqlite) {
    const names = (
      sqlite.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]
    ).map((r) => r.name);
    return (sqlite.prepare(referencedSql(names)).all() as { k: string }[]).map((r) => r.k);
  }
  const pool = pgPool()!;
  const names = (
    await pool.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = current_schema()",
    )
  ).rows.map((r) => r.name);
  return (await pool.query<{ k: string }>(referencedSql(names))).rows.map((r) => r.k);
}

/**
 * A backup's database put in place of the configured one (decision 0069), the dialect part of a
 * restore. SQLite: the copy checked (integrity_check), then it replaces the database file.
 * PostgreSQL: the archive read once (`pg_restore --list`) before anything is touched, then
 * `pg_restore --clean --if-exists --no-owner` in one transaction, so a restore that fails changes nothing.
 */
export async function loadDatabaseCopy(file: string): Promise<void> {
  const c = config();
  if (c.databaseKind === "sqlite") {
    const check = new Database(file, { readonly: true, fileMustExist: true });
    const ok = check.pragma("integrity_check", { simple: true });
    check.close();
    if (ok !== "ok") throw new Error(`The backup's database failed its integrity check: ${ok}`);
    mkdirSync(path.dirname(c.databaseUrl), { recursive: true });
    const tmp = `${c.databaseUrl}.restoring`;
    copyFileSync(file, tmp);
    for (const suffix of ["-wal", "-shm"]) rmSync(c.databaseUrl + suffix, { force: true });
    renameSync(tmp, c.databaseUrl);
    return;
  }
  findPgTool("pg_restore");
  const target = libpqTarget(c.databaseUrl);
  // Reads the whole archive's table of contents: a damaged or foreign file stops here, untouched.
  await runTool("pg_restore", ["--list"], target.env, undefined, [file]);
  try {
    await runTool(
      "pg_restore",
      [
        "--clean",
        "--if-exists",
        "--no-owner",
        "--no-privileges",
        "--single-transaction",
        "--exit-on-error",
        `--dbname=${target.url}`,
      ],
      target.env,
      undefined,
      [file],
    );
  } catch (err) {
    throw new Error(
      `${(err as Error).message}. Nothing was changed (one transaction). A database holding tables the ` +
        `backup does not know (a newer version's) cannot be cleaned: restore into a new, empty database.`,
    );
  }
}
