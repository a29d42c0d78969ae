import Database from "better-sqlite3";
import { chmodSync, existsSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { config } from "~/config.server";
import { pgPool, sqliteConnection } from "./client.server";
import { findPgTool, libpqTarget, runTool } from "./pg-tools.server";

export { findPgTool, libpqTarget, runTool };

/**
 * The database's part of a backup (decisions 0011, 0067), the only dialect code of it: a
 * consistent copy into the backup folder, the keys of the files its rows refer to and the row
 * count of every table — all read from the same snapshot — and, for verification, the same
 * figures read back from a restored copy.
 */

/** Every column that names a stored object (the file sweep's list, files.server.ts), by table. */
const REFERENCES: [table: string, select: string, since?: string][] = [
  ["reports", "select file_key as k from reports"],
  ["users", "select image from users where image is not null"],
  ["patient_consents", "select evidence_key from patient_consents where evidence_key is not null"],
  ["imaging_instances", "select file_key from imaging_instances"],
  ["imaging_previews", "select key from imaging_previews"],
  ["voice_notes", "select file_key from voice_notes"],
  // Telephone copies (decision 0080): the column came with the phone_calls table.
  ["voice_notes", "select phone_file_key from voice_notes where phone_file_key is not null", "phone_calls"],
  ["held_items", "select file_key from held_items where file_key is not null"],
];

/**
 * The referenced keys, from the tables this database has: a database of an earlier version (a
 * backup before an upgrade migrates it) may not have them all yet.
 */
function referencedSql(tables: string[]): string {
  const have = new Set(tables);
  return REFERENCES.filter(([t, , since]) => have.has(t) && (!since || have.has(since)))
    .map(([, q]) => q)
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

/** What a restored database copy holds, read back for verification. */
export type CopyReading = { counts: Record<string, number>; reportFiles: RecordedFile[] };

/**
 * Reads a restored copy without a database server: SQLite's `integrity_check` and counts; a
 * PostgreSQL archive's table of contents (`pg_restore --list`) and then its data as a script
 * (`pg_restore --data-only`), counting each table's COPY lines (one per row in COPY's text form)
 * and taking the reports' file keys and sizes from their rows.
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
      return { counts: sqliteCounts(copy), reportFiles };
    } finally {
      copy.close();
    }
  }
  await runTool("pg_restore", ["--list"], process.env, () => {}, [file]);
  const counts: Record<string, number> = {};
  const reportFiles: RecordedFile[] = [];
  let table: string | null = null;
  let keyAt = -1;
  let sizeAt = -1;
  await runTool(
    "pg_restore",
    ["--data-only", "--file=-"],
    process.env,
    (line) => {
      if (table === null) {
        const m = /^COPY (?:("?)([^".]+)\1\.)?("?)([^" ]+)\3 \((.*)\) FROM stdin;$/.exec(line);
        if (!m || (m[2] && m[2] !== "public")) return;
        table = m[4];
        counts[table] = 0;
        const columns = m[5].split(", ").map((col) => col.replace(/^"|"$/g, ""));
        [keyAt, sizeAt] =
          table === "reports" ? [columns.indexOf("file_key"), columns.indexOf("size")] : [-1, -1];
        return;
      }
      if (line === "\\.") {
        table = null;
        return;
      }
      counts[table]++;
      if (keyAt >= 0) {
        const fields = line.split("\t");
        reportFiles.push({ key: fields[keyAt], size: Number(fields[sizeAt]) });
      }
    },
    [file],
  );
  return { counts, reportFiles };
}
