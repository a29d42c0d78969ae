import type Database from "better-sqlite3";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import { config } from "~/config.server";
import { libpqTarget, runTool } from "./pg-tools.server";

/**
 * An upgrade never loses a row (decision 0070). Before the migrations of a new version run:
 *
 * - a database that has applied migrations this code does not know (a newer version migrated it)
 *   is refused, with what to do — never a silent downgrade;
 * - a database holding data with migrations to apply is first copied into
 *   DATA_DIR/backups/pre-upgrade-<time>/ (SQLite's `VACUUM INTO`, or `pg_dump`), a folder
 *   `npm run restore -- --from` takes; if that copy fails, nothing is migrated and the start stops,
 *   saying why. A new, empty database is simply migrated.
 */

type Journal = { entries: { idx: number; when: number; tag: string }[] };

export class UpgradeRefused extends Error {}

/** Pre-upgrade copies kept; older ones are removed after a new one is made. */
const KEEP = 3;

function journal(folder: string): Journal {
  return JSON.parse(readFileSync(path.join(folder, "meta/_journal.json"), "utf8")) as Journal;
}

type Plan = { pending: number; hasData: boolean };

/** What the migrations would do to a database that has applied `applied` (their `created_at`). */
function plan(folder: string, applied: number[], hasData: boolean, name: string): Plan {
  const known = journal(folder).entries;
  const newest = Math.max(0, ...known.map((e) => e.when));
  const unknown = applied.filter((when) => when > newest);
  if (unknown.length || applied.length > known.length) {
    const last = new Date(Math.max(...applied)).toISOString().slice(0, 10);
    throw new UpgradeRefused(
      `This ${name} database was migrated by a newer version of CareBridge than this one ` +
        `(${Math.max(unknown.length, applied.length - known.length)} migration(s) this version does not know, ` +
        `the latest of ${last}). Start the newer version again, or restore a backup taken before that upgrade ` +
        `(npm run restore). Nothing was changed.`,
    );
  }
  return { pending: known.length - applied.length, hasData };
}

const backupsRoot = () => path.join(config().dataDir, "backups");

function copyFolder(): string {
  const dir = path.join(backupsRoot(), `pre-upgrade-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function finishCopy(dir: string, database: "sqlite" | "postgres", pending: number) {
  const manifest = {
    database,
    storage: config().storage.kind,
    preUpgrade: true,
    pendingMigrations: pending,
    files: 0,
    createdAt: new Date().toISOString(),
  };
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n", { mode: 0o600 });
  const root = path.dirname(dir);
  const copies = readdirSync(root)
    .filter((n) => n.startsWith("pre-upgrade-"))
    .sort()
    .reverse();
  for (const old of copies.slice(KEEP)) rmSync(path.join(root, old), { recursive: true, force: true });
}

function refuseAfterFailedCopy(dir: string | undefined, pending: number, err: unknown): never {
  if (dir) rmSync(dir, { recursive: true, force: true });
  throw new UpgradeRefused(
    `Refusing to apply ${pending} database migration(s): the backup taken first failed ` +
      `(${err instanceof Error ? err.message : String(err)}). Free space in ${backupsRoot()} ` +
      `(or fix the cause) and start again. Nothing was changed.`,
  );
}

/**
 * SQLite, before its migrations: refuses a newer database, copies one with data. Returns how many
 * migrations are to be applied.
 */
export function guardSqliteUpgrade(sqlite: Database.Database, folder: string): number {
  const has = (name: string) =>
    !!sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name);
  const applied = has("__drizzle_migrations")
    ? (sqlite.prepare("SELECT created_at AS w FROM __drizzle_migrations").all() as { w: number }[]).map((r) =>
        Number(r.w),
      )
    : [];
  const p = plan(folder, applied, has("users"), "SQLite");
  if (p.pending <= 0 || !p.hasData) return p.pending;
  let dir: string | undefined;
  try {
    dir = copyFolder();
    sqlite.prepare("VACUUM INTO ?").run(path.join(dir, "app.db"));
  } catch (err) {
    refuseAfterFailedCopy(dir, p.pending, err);
  }
  finishCopy(dir, "sqlite", p.pending);
  return p.pending;
}

/** PostgreSQL, before its migrations (under the migration lock): the same, with pg_dump. */
export async function guardPgUpgrade(client: pg.PoolClient, folder: string): Promise<void> {
  const exists = async (qualified: string) =>
    (await client.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [qualified])).rows[0].t !== null;
  const applied = (await exists("drizzle.__drizzle_migrations"))
    ? (
        await client.query<{ w: string }>("SELECT created_at AS w FROM drizzle.__drizzle_migrations")
      ).rows.map((r) => Number(r.w))
    : [];
  const p = plan(folder, applied, await exists("public.users"), "PostgreSQL");
  if (p.pending <= 0 || !p.hasData) return;
  let dir: string | undefined;
  try {
    dir = copyFolder();
    const target = libpqTarget(config().databaseUrl);
    await runTool(
      "pg_dump",
      ["--format=custom", `--file=${path.join(dir, "database.pgdump")}`, `--dbname=${target.url}`],
      target.env,
    );
  } catch (err) {
    refuseAfterFailedCopy(dir, p.pending, err);
  }
  finishCopy(dir, "postgres", p.pending);
}
