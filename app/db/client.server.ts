import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { config } from "~/config.server";
import * as schema from "./schema";

export type DB = BetterSQLite3Database<typeof schema>;

type Handle = { db: DB; sqlite: Database.Database };

const globalForDb = globalThis as unknown as { __carebridgeDb?: Handle };

/** Opens SQLite (WAL, foreign keys, busy timeout) and applies pending migrations. */
/** Only the app's user may read or write the database files (SQLite gives -wal/-shm the file's mode). */
function ownerOnly(file: string) {
  try {
    chmodSync(file, 0o600);
  } catch {
    /* missing, or not ours */
  }
}

export function openDatabase(file: string): Handle {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
  ownerOnly(file);
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  for (const extra of ["-wal", "-shm"]) ownerOnly(file + extra);
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: path.resolve(process.cwd(), "drizzle") });
  return { db, sqlite };
}

function handle(): Handle {
  if (!globalForDb.__carebridgeDb) {
    globalForDb.__carebridgeDb = openDatabase(config().databaseUrl);
  }
  return globalForDb.__carebridgeDb;
}

export function db(): DB {
  return handle().db;
}

export function sqlite(): Database.Database {
  return handle().sqlite;
}

export function closeDatabase() {
  const h = globalForDb.__carebridgeDb;
  if (h) {
    h.sqlite.close();
    globalForDb.__carebridgeDb = undefined;
  }
}
