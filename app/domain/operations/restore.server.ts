import {
  chmodSync,
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { config, provideSecrets, type DatabaseKind } from "~/config.server";
import { liveReferencedKeys, loadDatabaseCopy, readDatabaseCopy } from "~/db/backup-copy.server";
import { closeDatabase, migrateDatabase } from "~/db/client.server";
import { blobStore } from "~/storage/factory.server";
import { decryptCopy } from "../records/index.server";
import type { Manifest } from "./backup-stage.server";
import { SNAPSHOT_FOLDER } from "./backup-verify.server";
import { findSnapshot, restic, type ResticOptions, type Snapshot } from "./restic.server";

/**
 * The restore, beside the backup (decisions 0011, 0069, 0091): a backup folder — from a snapshot
 * of the restic repository (on a new machine, with the recovery sheet's password) or written by
 * `npm run backup -- --out` — is opened, checked before anything is touched (the database read
 * back and counted against its manifest, every file its file-bearing columns name looked for and
 * decrypted with the backup's own key), then put in place: the database, every encrypted file
 * into whichever store is configured now, and the secrets into DATA_DIR/secrets. The backup's
 * session secret and encryption key stand in for SESSION_SECRET and ENCRYPTION_KEY where those are
 * unset, so on PostgreSQL + S3 too the recovery sheet alone is enough. `scripts/restore.ts` is
 * its shell; the Service screen's "Test a restore now" (restore-test.server.ts) runs the first
 * two steps on the newest snapshot.
 */

const OBJECT_RE = /^([a-f0-9]{32})\.enc$/;
const DATABASE_FILE: Record<DatabaseKind, string> = { sqlite: "app.db", postgres: "database.pgdump" };

/** A restore that cannot go on; nothing was changed. `exitCode` 2: the operator's input is wrong. */
export class RestoreError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export type OpenedBackup = {
  folder: string;
  manifest: Partial<Manifest>;
  kind: DatabaseKind;
  databaseFile: string;
  /** The snapshot it came from; null for a folder. */
  snapshot: Snapshot | null;
  /** The secrets the backup carries (decision 0006). */
  secrets: { sessionSecret?: string; encryptionKey?: string };
  /** Removes the scratch copy of a snapshot (nothing for a folder). */
  close(): void;
};

export type RepositorySource = {
  repository: string;
  /** `latest` (the newest of the app's) or a snapshot ID. */
  snapshot: string;
  passwordFile: string;
  /** Where the scratch copy goes (a private folder is made in it); the system's temporary folder by default. */
  scratchIn?: string;
  /** restic's cache (the installation's own); none on a new machine. */
  cache?: boolean;
};

const secretIn = (folder: string, name: string) => {
  const file = path.join(folder, "secrets", name);
  return (existsSync(file) && readFileSync(file, "utf8").trim()) || undefined;
};

/** A backup folder (manifest.json written last: without it the folder is not a complete backup). */
export function openFolder(folder: string): OpenedBackup {
  const manifestFile = path.join(folder, "manifest.json");
  if (!existsSync(manifestFile))
    throw new RestoreError(`${path.resolve(folder)} has no manifest.json: not a complete backup.`, 2);
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
  } catch {
    throw new RestoreError(`${manifestFile} cannot be read.`, 2);
  }
  // Backups from before decision 0011 hold SQLite and say nothing about it.
  const kind: DatabaseKind = manifest.database === "postgres" ? "postgres" : "sqlite";
  const databaseFile = path.join(folder, DATABASE_FILE[kind]);
  if (!existsSync(databaseFile))
    throw new RestoreError(`${databaseFile} is missing: not a complete backup.`, 2);
  return {
    folder: path.resolve(folder),
    manifest,
    kind,
    databaseFile,
    snapshot: null,
    secrets: {
      sessionSecret: secretIn(folder, "session-secret"),
      encryptionKey: secretIn(folder, "encryption-key")?.toLowerCase(),
    },
    close: () => {},
  };
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

/**
 * A snapshot of a restic repository restored into a scratch folder (0700, removed by `close()`).
 * The snapshot is looked up first, so the one restored is the one named in what the restore says
 * (its ID and when it was taken). A failure of restic stops here, with restic's own words.
 */
export async function openSnapshot(source: RepositorySource): Promise<OpenedBackup> {
  const opts: ResticOptions = {
    repository: source.repository,
    passwordFile: source.passwordFile,
    noCache: !source.cache,
    readOnly: true,
  };
  const failed = (err: unknown) =>
    new RestoreError(
      `Could not read snapshot ${source.snapshot} of ${source.repository}: ${(err as Error).message}. Nothing was changed.`,
    );
  let snapshot: Snapshot | undefined;
  try {
    snapshot = await findSnapshot(source.snapshot, opts);
  } catch (err) {
    throw failed(err);
  }
  if (!snapshot)
    throw new RestoreError(
      `${source.repository} has no snapshot ${source.snapshot} of CareBridge (restic snapshots --tag carebridge lists them). Nothing was changed.`,
      2,
    );
  const parent = source.scratchIn ?? os.tmpdir();
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const scratch = mkdtempSync(path.join(parent, "carebridge-restore-"));
  const close = () => rmSync(scratch, { recursive: true, force: true });
  try {
    await restic(["restore", "--target", path.join(scratch, "snapshot")], {
      ...opts,
      operands: [snapshot.id],
    });
    const found = findBackupFolder(path.join(scratch, "snapshot"));
    if (!found)
      throw new RestoreError(
        `Snapshot ${snapshot.shortId} of ${source.repository} holds no backup folder (${SNAPSHOT_FOLDER}/manifest.json).`,
        2,
      );
    return { ...openFolder(found), snapshot, close };
  } catch (err) {
    close();
    throw err instanceof RestoreError ? err : failed(err);
  }
}

/**
 * Opens what a restore restores and lets the backup's secrets stand in for SESSION_SECRET and
 * ENCRYPTION_KEY where they are unset — before the configuration is read (decision 0091).
 */
export async function openForRestore(source: RepositorySource | { folder: string }): Promise<OpenedBackup> {
  const backup = "folder" in source ? openFolder(source.folder) : await openSnapshot(source);
  provideSecrets(backup.secrets);
  return backup;
}

export type BackupCheck = {
  tables: number;
  rows: number;
  /** Files the database names that are in the backup and decrypt with its key. */
  files: number;
  bytes: number;
  /** Named by the database but not in the backup (the backup said so when it was taken, or not). */
  missing: string[];
  /** In the backup but not readable with its key (damaged). */
  damaged: string[];
};

/**
 * Reads a backup through before anything is touched: the database copy (SQLite's integrity_check;
 * PostgreSQL's archive listed and its data read), every table's rows against the manifest's count,
 * and every file each file-bearing column names (app/db/file-columns.ts) found and decrypted with
 * the backup's own key (the AES-GCM tag authenticates every byte).
 */
export async function checkBackup(backup: OpenedBackup): Promise<BackupCheck> {
  let reading;
  try {
    reading = await readDatabaseCopy(backup.databaseFile);
  } catch (err) {
    throw new RestoreError(
      `The backup's database cannot be read: ${(err as Error).message}. Nothing was changed.`,
    );
  }
  const saved = backup.manifest.counts;
  if (saved) {
    const tables = new Set([...Object.keys(saved), ...Object.keys(reading.counts)]);
    const differ = [...tables].filter((t) => saved[t] !== reading.counts[t]);
    if (differ.length)
      throw new RestoreError(
        `The backup's database does not hold the rows its manifest counted: ${differ
          .slice(0, 5)
          .map((t) => `${t} ${reading.counts[t] ?? "missing"} ≠ ${saved[t] ?? "missing"}`)
          .join(", ")}. Nothing was changed.`,
      );
  }
  const key = backup.secrets.encryptionKey ? Buffer.from(backup.secrets.encryptionKey, "hex") : null;
  const result: BackupCheck = {
    tables: Object.keys(reading.counts).length,
    rows: Object.values(reading.counts).reduce((a, n) => a + n, 0),
    files: 0,
    bytes: 0,
    missing: [],
    damaged: [],
  };
  for (const k of reading.keys) {
    const file = path.join(backup.folder, "uploads", `${k}.enc`);
    if (!existsSync(file)) {
      result.missing.push(k);
      continue;
    }
    try {
      if (key) await decryptCopy(file, k, key);
      result.files++;
      result.bytes += statSync(file).size;
    } catch {
      result.damaged.push(k);
    }
  }
  return result;
}

export type RestoreResult = {
  kind: DatabaseKind;
  /** Files written into the store. */
  files: number;
  /** Files the restored rows name that neither the backup nor the store holds. */
  missing: number;
  /** What was read through before anything was touched. */
  check: BackupCheck;
  /** Where the files went: a folder, or "bucket <name>". */
  store: string;
  secretsDir: string;
};

/**
 * Puts an opened, checked backup in place of the configured database and store (stop the app
 * first). A backup of one kind of database is never restored into the other (moving a clinic from
 * SQLite to PostgreSQL is `npm run migrate:to-postgres`), and one whose files the key in effect
 * could not read is refused: both before anything is touched.
 */
export async function restoreOpened(backup: OpenedBackup): Promise<RestoreResult> {
  const c = config();
  if (backup.kind !== c.databaseKind)
    throw new RestoreError(
      backup.kind === "postgres"
        ? `This backup holds a PostgreSQL database (database.pgdump), but the configured database is SQLite ` +
          `(${c.databaseUrl}). Set DATABASE_URL=postgres://… to the PostgreSQL database to restore it into.`
        : `This backup holds a SQLite database (app.db), but DATABASE_URL points at PostgreSQL. Restore it into ` +
          `SQLite (DATABASE_URL unset or a file path), then move the clinic with npm run migrate:to-postgres.`,
    );
  // The files can only be read with the key they were encrypted with (decision 0006: the backup
  // carries it, and stands in for an unset ENCRYPTION_KEY). A different one in the settings would
  // leave every restored file unreadable: stop before anything.
  const backupKey = backup.secrets.encryptionKey;
  if (backupKey && backupKey !== c.encryptionKey.toString("hex"))
    throw new RestoreError(
      `ENCRYPTION_KEY is not the key this backup's files are encrypted with: no restored file could be ` +
        `read. Remove ENCRYPTION_KEY and SESSION_SECRET from the settings (the restore then ` +
        `takes the backup's and keeps them in ${path.join(c.dataDir, "secrets")}), or set them to the lost ` +
        `machine's values. Nothing was changed.`,
    );
  const check = await checkBackup(backup);
  try {
    await loadDatabaseCopy(backup.databaseFile);
    // A backup older than this version gets the newer migrations, as the app would at start.
    await migrateDatabase();

    const store = blobStore();
    const uploads = path.join(backup.folder, "uploads");
    const restored = new Set<string>();
    for (const f of existsSync(uploads) ? readdirSync(uploads) : []) {
      const m = OBJECT_RE.exec(f);
      if (!m) continue;
      // Encrypted already: the bytes go into the store unchanged, chunk by chunk.
      await store.put(m[1], createReadStream(path.join(uploads, f)));
      restored.add(m[1]);
    }

    // The secrets, the backup password among them: the new machine's own backups go on into the
    // same repository, and on PostgreSQL or a bucket the app reads the keys from here (decision 0091).
    const secrets = path.join(c.dataDir, "secrets");
    const fromBackup = path.join(backup.folder, "secrets");
    if (existsSync(fromBackup)) {
      mkdirSync(secrets, { recursive: true, mode: 0o700 });
      for (const f of readdirSync(fromBackup)) {
        copyFileSync(path.join(fromBackup, f), path.join(secrets, f));
        chmodSync(path.join(secrets, f), 0o600);
      }
    }

    let missing = 0;
    for (const key of new Set(await liveReferencedKeys()))
      if (!restored.has(key) && !(await store.exists(key))) missing++;
    return {
      kind: backup.kind,
      files: restored.size,
      missing,
      check,
      store: c.storage.kind === "s3" ? `bucket ${c.storage.bucket}` : c.storage.dir,
      secretsDir: secrets,
    };
  } finally {
    await closeDatabase().catch(() => {});
  }
}
