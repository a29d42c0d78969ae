/**
 * npm run restore -- FOLDER
 * Restores a folder written by `npm run backup` into the configured DATA_DIR / UPLOADS_DIR.
 * Stop the app first. The backup's database is checked (integrity_check) before anything is replaced.
 */
import Database from "better-sqlite3";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../app/config.server";

const folder = process.argv[2];
if (!folder || !existsSync(path.join(folder, "app.db"))) {
  console.error("Usage: npm run restore -- FOLDER   (a folder written by npm run backup)");
  process.exit(2);
}
const c = loadConfig();
const check = new Database(path.join(folder, "app.db"), { readonly: true, fileMustExist: true });
const ok = check.pragma("integrity_check", { simple: true });
check.close();
if (ok !== "ok") {
  console.error(`The backup's database failed its integrity check: ${ok}`);
  process.exit(1);
}

mkdirSync(path.dirname(c.databaseUrl), { recursive: true });
const tmp = `${c.databaseUrl}.restoring`;
copyFileSync(path.join(folder, "app.db"), tmp);
for (const suffix of ["-wal", "-shm"]) rmSync(c.databaseUrl + suffix, { force: true });
renameSync(tmp, c.databaseUrl);

mkdirSync(c.uploadsDir, { recursive: true });
let files = 0;
for (const f of readdirSync(path.join(folder, "uploads"))) {
  if (!/^[a-f0-9]{32}\.enc$/.test(f)) continue;
  copyFileSync(path.join(folder, "uploads", f), path.join(c.uploadsDir, f));
  files++;
}
const secrets = path.join(folder, "secrets");
if (existsSync(secrets)) {
  mkdirSync(path.join(c.dataDir, "secrets"), { recursive: true, mode: 0o700 });
  for (const f of readdirSync(secrets)) {
    copyFileSync(path.join(secrets, f), path.join(c.dataDir, "secrets", f));
    chmodSync(path.join(c.dataDir, "secrets", f), 0o600);
  }
}
console.log(`Restored database and ${files} files from ${path.resolve(folder)}. Start the app to use it.`);
export {};
