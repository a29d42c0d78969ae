import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import path from "node:path";

/** The SQLite migrations (drizzle/sqlite), for tests of what one of them does to the rows before it. */
const dir = path.join(__dirname, "../../drizzle/sqlite");
const journal = JSON.parse(readFileSync(path.join(dir, "meta/_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};

/** Runs the migration `tag`'s statements on `db`. */
export function applyMigration(db: Database.Database, tag: string): void {
  for (const statement of readFileSync(path.join(dir, `${tag}.sql`), "utf8").split(
    "--> statement-breakpoint",
  ))
    if (statement.trim()) db.exec(statement);
}

/** An in-memory database migrated up to, not including, `tag`. */
export function databaseBefore(tag: string): Database.Database {
  const tags = journal.entries.map((e) => e.tag);
  const at = tags.indexOf(tag);
  if (at <= 0) throw new Error(`no migration ${tag} after the first`);
  const db = new Database(":memory:");
  for (const t of tags.slice(0, at)) applyMigration(db, t);
  return db;
}
