/**
 * npm run restore -- --repository REPO [--snapshot latest|ID] --password-file FILE
 * npm run restore -- [--from] FOLDER
 * Restores a backup into the configured database and file store (decisions 0011, 0069): a snapshot
 * of the restic repository the scheduled backups go to (on a new machine: a fresh clone, then this,
 * then `npm start`), or a folder written by `npm run backup -- --out`. Stop the app first.
 *
 * - SQLite backup (`app.db`): checked (integrity_check), then it replaces the SQLite file.
 * - PostgreSQL backup (`database.pgdump`): read once (`pg_restore --list`) before anything is
 *   touched, then `pg_restore --clean --if-exists --no-owner` into DATABASE_URL in one transaction,
 *   so a restore that fails changes nothing.
 * - Files: every `uploads/<key>.enc` is written, unchanged and streamed, into whichever store is
 *   configured now (UPLOADS_DIR or the STORAGE_URL bucket) — the store the backup came from does not matter.
 * - Secrets into DATA_DIR/secrets (decision 0006). With PostgreSQL or a bucket the app takes them
 *   from SESSION_SECRET/ENCRYPTION_KEY instead; a restore whose ENCRYPTION_KEY is not the backup's
 *   is refused before anything is touched.
 *
 * A backup of one kind of database is never restored into the other: moving a clinic from SQLite
 * to PostgreSQL is `npm run migrate:to-postgres`.
 */
import Database from "better-sqlite3";
import { isNotNull } from "drizzle-orm";
import {
  chmodSync,
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { config, loadConfig, type DatabaseKind } from "../app/config.server";
import { closeDatabase, db, migrateDatabase } from "../app/db/client.server";
import { reports, users } from "../app/db/schema";
import { restic, RESTIC_TAG, SNAPSHOT_FOLDER } from "../app/domain/operations/index.server";
import { findPgTool, libpqTarget, runTool } from "../app/db/pg-tools.server";
import { blobStore } from "../app/storage/factory.server";

const OBJECT_RE = /^([a-f0-9]{32})\.enc$/;
const DATABASE_FILE: Record<DatabaseKind, string> = { sqlite: "app.db", postgres: "database.pgdump" };
const NAME: Record<DatabaseKind, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };

function usage(why?: string): never {
  if (why) console.error(why);
  console.error(
    "Usage: npm run restore -- --repository REPO [--snapshot latest|ID] --password-file FILE\n" +
      "       npm run restore -- [--from] FOLDER   (a folder written by npm run backup -- --out)",
  );
  process.exit(2);
}

const { values: args, positionals } = parseArgs({
  options: {
    repository: { type: "string" },
    snapshot: { type: "string" },
    "password-file": { type: "string" },
    from: { type: "string" },
  },
  allowPositionals: true,
  strict: false,
});
const repository = typeof args.repository === "string" ? args.repository : undefined;
const folder = repository
  ? await fromRepository(repository)
  : ((typeof args.from === "string" ? args.from : undefined) ?? positionals[0] ?? usage());

/**
 * A snapshot of the restic repository (decision 0067) restored into a scratch folder (mode 0700,
 * removed at exit): the backup folder inside it is then restored like any other. The password
 * comes from --password-file or RESTIC_PASSWORD_FILE (the recovery sheet's), never from this
 * machine's own generated one.
 */
async function fromRepository(repo: string): Promise<string> {
  const passwordFile =
    (typeof args["password-file"] === "string" ? args["password-file"] : undefined) ??
    process.env.RESTIC_PASSWORD_FILE;
  if (!passwordFile || !existsSync(passwordFile))
    usage(
      "Give the repository's password in a file: --password-file FILE (the password on the recovery sheet).",
    );
  const snapshot = typeof args.snapshot === "string" ? args.snapshot : "latest";
  const scratch = mkdtempSync(path.join(os.tmpdir(), "carebridge-restore-"));
  process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
  const started = Date.now();
  try {
    // The snapshot is the operator's word: after `--`, never read as an option.
    await restic(
      [
        "restore",
        ...(snapshot === "latest" ? ["--tag", RESTIC_TAG] : []),
        "--target",
        path.join(scratch, "snapshot"),
      ],
      { repository: repo, passwordFile, noCache: true, operands: [snapshot] },
    );
  } catch (err) {
    console.error(
      `Could not restore snapshot ${snapshot} from ${repo}: ${(err as Error).message}. Nothing was changed.`,
    );
    process.exit(1);
  }
  const found = findBackupFolder(path.join(scratch, "snapshot"));
  if (!found)
    usage(`Snapshot ${snapshot} of ${repo} holds no backup folder (${SNAPSHOT_FOLDER}/manifest.json).`);
  console.log(`Snapshot ${snapshot} of ${repo} read in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return found;
}

/** The backup folder (named SNAPSHOT_FOLDER, holding manifest.json) somewhere under `root`. */
function findBackupFolder(root: string): string | undefined {
  const queue = [root];
  while (queue.length) {
    const dir = queue.shift()!;
    if (path.basename(dir) === SNAPSHOT_FOLDER && existsSync(path.join(dir, "manifest.json"))) return dir;
    for (const e of readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) queue.push(path.join(dir, e.name));
  }
  return undefined;
}

const manifestFile = path.join(folder, "manifest.json");
// manifest.json is written last: a folder without it is not a backup, or one that did not finish.
if (!existsSync(manifestFile)) usage(`${path.resolve(folder)} has no manifest.json: not a complete backup.`);
let manifest: { database?: string; storage?: string };
try {
  manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
} catch {
  usage(`${manifestFile} cannot be read.`);
}
// Backups from before decision 0011 hold SQLite and say nothing about it.
const kind: DatabaseKind = manifest.database === "postgres" ? "postgres" : "sqlite";
const databaseFile = path.join(folder, DATABASE_FILE[kind]);
if (!existsSync(databaseFile)) usage(`${databaseFile} is missing: not a complete backup.`);

const c = config();
if (kind !== c.databaseKind) {
  console.error(
    kind === "postgres"
      ? `This backup holds a PostgreSQL database (database.pgdump), but the configured database is SQLite ` +
          `(${c.databaseUrl}). Set DATABASE_URL=postgres://… to the PostgreSQL database to restore it into.`
      : `This backup holds a SQLite database (app.db), but DATABASE_URL points at PostgreSQL. Restore it into ` +
          `SQLite (DATABASE_URL unset or a file path), then move the clinic with npm run migrate:to-postgres.`,
  );
  process.exit(1);
}

// The files can only be read with the key they were encrypted with (decision 0006: the backup
// carries it). With PostgreSQL or a bucket the key comes from ENCRYPTION_KEY, never from the data
// folder, so a different one there would leave every restored file unreadable: stop before anything.
const keyFile = path.join(folder, "secrets", "encryption-key");
const backupKey = existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim().toLowerCase() : undefined;
const keyFromEnvironment = c.databaseKind === "postgres" || c.storage.kind === "s3";
if (keyFromEnvironment && backupKey && backupKey !== c.encryptionKey.toString("hex")) {
  console.error(
    `ENCRYPTION_KEY is not the key this backup's files are encrypted with (${keyFile}); they could not be ` +
      `read after the restore. Set ENCRYPTION_KEY (and SESSION_SECRET) to the values in ` +
      `${path.dirname(keyFile)} and run the restore again. Nothing was changed.`,
  );
  process.exit(1);
}

// --- Database ------------------------------------------------------------------------------------

async function restoreSqlite() {
  const check = new Database(databaseFile, { readonly: true, fileMustExist: true });
  const ok = check.pragma("integrity_check", { simple: true });
  check.close();
  if (ok !== "ok") throw new Error(`The backup's database failed its integrity check: ${ok}`);
  mkdirSync(path.dirname(c.databaseUrl), { recursive: true });
  const tmp = `${c.databaseUrl}.restoring`;
  copyFileSync(databaseFile, tmp);
  for (const suffix of ["-wal", "-shm"]) rmSync(c.databaseUrl + suffix, { force: true });
  renameSync(tmp, c.databaseUrl);
}

async function restorePostgres() {
  findPgTool("pg_restore");
  const target = libpqTarget(c.databaseUrl);
  // Reads the whole archive's table of contents: a damaged or foreign file stops here, untouched.
  await runTool("pg_restore", ["--list"], target.env, undefined, [databaseFile]);
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
      [databaseFile],
    );
  } catch (err) {
    throw new Error(
      `${(err as Error).message}. Nothing was changed (one transaction). A database holding tables the ` +
        `backup does not know (a newer version's) cannot be cleaned: restore into a new, empty database.`,
    );
  }
}

try {
  if (kind === "sqlite") await restoreSqlite();
  else await restorePostgres();
  // A backup older than this version gets the newer migrations, as the app would at start.
  await migrateDatabase();

  const store = blobStore();
  const uploads = path.join(folder, "uploads");
  const restored = new Set<string>();
  for (const f of existsSync(uploads) ? readdirSync(uploads) : []) {
    const m = OBJECT_RE.exec(f);
    if (!m) continue;
    // Encrypted already: the bytes go into the store unchanged, chunk by chunk.
    await store.put(m[1], createReadStream(path.join(uploads, f)));
    restored.add(m[1]);
  }

  const secrets = path.join(folder, "secrets");
  if (existsSync(secrets)) {
    mkdirSync(path.join(c.dataDir, "secrets"), { recursive: true, mode: 0o700 });
    for (const f of readdirSync(secrets)) {
      copyFileSync(path.join(secrets, f), path.join(c.dataDir, "secrets", f));
      chmodSync(path.join(c.dataDir, "secrets", f), 0o600);
    }
  }

  // Files the restored rows refer to that neither the backup nor the store holds.
  const referenced = new Set([
    ...(await db().select({ k: reports.fileKey }).from(reports)).map((r) => r.k),
    ...(await db().select({ k: users.image }).from(users).where(isNotNull(users.image))).map((r) => r.k!),
  ]);
  let missing = 0;
  for (const key of referenced) if (!restored.has(key) && !(await store.exists(key))) missing++;
  await closeDatabase();
  // SQLite + a local folder may take the key from the data folder (restored above) or the environment.
  if (backupKey && backupKey !== loadConfig().encryptionKey.toString("hex")) {
    console.warn(
      `WARNING: the encryption key in effect (ENCRYPTION_KEY) is not the backup's (${keyFile}): ` +
        `unset ENCRYPTION_KEY or set it to that value, or no restored file can be read.`,
    );
  }

  console.log(
    `Restored database and ${restored.size} files from ${path.resolve(folder)}` +
      ` (${NAME[kind]}, files into ${c.storage.kind === "s3" ? `bucket ${c.storage.bucket}` : c.storage.dir}).` +
      `${missing ? ` ${missing} referenced files are in neither the backup nor the store.` : ""} Start the app to use it.`,
  );
  process.exit(0);
} catch (err) {
  await closeDatabase().catch(() => {});
  console.error(`Restore failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
