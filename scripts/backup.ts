/**
 * npm run backup [-- --out DIR]
 * Online backup while the app runs: SQLite's backup API (a consistent copy even with writers),
 * the encrypted report files, and the generated secrets (without the encryption key the files
 * cannot be read). Writes backups/<timestamp>/ (mode 0700) unless --out is given.
 */
import Database from "better-sqlite3";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../app/config.server";

const { values } = parseArgs({ options: { out: { type: "string" } } });
const c = loadConfig();
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const out = path.resolve(values.out ?? path.join("backups", stamp));
if (existsSync(out) && readdirSync(out).length) {
  console.error(`${out} exists and is not empty`);
  process.exit(1);
}
mkdirSync(path.join(out, "uploads"), { recursive: true, mode: 0o700 });
chmodSync(out, 0o700);

const source = new Database(c.databaseUrl, { fileMustExist: true });
source.pragma("busy_timeout = 10000");
await source.backup(path.join(out, "app.db"));
const keys = new Set(
  (
    source
      .prepare("select file_key as k from reports union select image from users where image is not null")
      .all() as { k: string }[]
  ).map((r) => r.k),
);
source.close();

let copied = 0;
for (const key of keys) {
  const file = path.join(c.uploadsDir, `${key}.enc`);
  if (existsSync(file)) {
    copyFileSync(file, path.join(out, "uploads", `${key}.enc`));
    copied++;
  }
}
const secrets = path.join(c.dataDir, "secrets");
if (existsSync(secrets)) {
  mkdirSync(path.join(out, "secrets"), { mode: 0o700 });
  for (const f of readdirSync(secrets)) {
    copyFileSync(path.join(secrets, f), path.join(out, "secrets", f));
    chmodSync(path.join(out, "secrets", f), 0o600);
  }
}
writeFileSync(
  path.join(out, "manifest.json"),
  JSON.stringify({ createdAt: new Date().toISOString(), files: copied, referenced: keys.size }, null, 2),
);
console.log(
  `Backup written to ${out}: database + ${copied} files${keys.size !== copied ? ` (${keys.size - copied} referenced files were missing)` : ""}.`,
);
export {};
