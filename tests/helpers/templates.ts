import Database from "better-sqlite3";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { migrate as migrateSqlite } from "drizzle-orm/better-sqlite3/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/*
 * Migrated templates (decision 0053): a test server or domain test starts from a database whose
 * migrations have already run, instead of running all of them again at each start. The Vitest
 * global setup makes one SQLite file and, for the pg-s3 project, one PostgreSQL template database
 * per run, with the same migration folders and the same migrator the app uses; the app still
 * checks them at start (nothing pending, so nothing runs). The migrations themselves are tested
 * where they are the subject (tests/domain/migration-profiles.test.ts, tests/unit/
 * migration-signer-backfill.test.ts, schema-parity) and by every app start without a template.
 */

export const PG_TEMPLATE_DB = "cb_template";

/** Makes the migrated SQLite template file and returns its path. */
export function makeSqliteTemplate(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cb-template-"));
  const file = path.join(dir, "app.db");
  const sqlite = new Database(file);
  // As the app migrates (app/db/client.server.ts): foreign keys off around the migrator.
  sqlite.pragma("foreign_keys = OFF");
  migrateSqlite(drizzleSqlite(sqlite), { migrationsFolder: path.resolve("drizzle/sqlite") });
  sqlite.close();
  return file;
}

/** Makes the migrated PostgreSQL template database on the cluster at `adminUrl` (its postgres database). */
export async function makePgTemplate(adminUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${PG_TEMPLATE_DB}"`);
  } finally {
    await admin.end();
  }
  const pool = new pg.Pool({ connectionString: adminUrl.replace(/\/[^/]*$/, `/${PG_TEMPLATE_DB}`), max: 1 });
  try {
    await migratePg(drizzlePg(pool), { migrationsFolder: path.resolve("drizzle/pg") });
  } finally {
    // CREATE DATABASE … TEMPLATE needs the template without connections.
    await pool.end();
  }
  return PG_TEMPLATE_DB;
}

/**
 * Puts a copy of the SQLite template where the app keeps its database (`<dataDir>/app.db`) when the
 * run made one and the folder has no database yet; the modes are the app's own (0700 folder, 0600 file).
 */
export function seedSqlite(dataDir: string) {
  const template = process.env.CB_TEST_SQLITE_TEMPLATE;
  const file = path.join(dataDir, "app.db");
  if (!template || !existsSync(template) || existsSync(file)) return;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  copyFileSync(template, file);
  chmodSync(file, 0o600);
}
