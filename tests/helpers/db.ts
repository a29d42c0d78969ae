import Database from "better-sqlite3";
import path from "node:path";

/** Opens the test server's real SQLite file read-only to check what was stored. */
export function openTestDb(dataDir: string) {
  return new Database(path.join(dataDir, "app.db"), { readonly: true, fileMustExist: true });
}
