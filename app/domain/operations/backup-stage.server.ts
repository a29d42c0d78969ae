import {
  chmodSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { config } from "~/config.server";
import { copyDatabase } from "~/db/backup-copy.server";
import { blobStore } from "~/storage/factory.server";

/**
 * The backup folder (decisions 0006, 0011), put together while the app runs, for either setup:
 *
 * - the database: SQLite's backup API into `app.db`, or `pg_dump --format=custom` into
 *   `database.pgdump`, with the list of referenced files and every table's row count read in the
 *   same snapshot (app/db/backup-copy.server.ts);
 * - every referenced encrypted file, read through the configured store (a local folder or an S3
 *   bucket) into `uploads/<key>.enc`, bytes unchanged, streamed;
 * - the secrets: the generated ones in DATA_DIR/secrets, and the encryption key and session
 *   secret in effect;
 * - `manifest.json`, written last: which database and store it came from, and the row counts.
 */

const KEY_RE = /^[a-f0-9]{32}$/;
/** Objects read from the store at once (an S3 bucket answers faster with a few requests in flight). */
const PARALLEL = 4;

export type Manifest = {
  createdAt: string;
  database: "sqlite" | "postgres";
  databaseFile: string;
  storage: "local" | "s3";
  files: number;
  referenced: number;
  missing: string[];
  /** Rows per table in the snapshot (decision 0067: the verification compares a restored copy with them). */
  counts: Record<string, number>;
};

async function forEachParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/** Writes the backup folder into `out` (created, or an existing empty folder); returns its manifest. */
export async function stageBackup(out: string): Promise<Manifest> {
  const c = config();
  if (c.databaseKind === "sqlite" && !existsSync(c.databaseUrl))
    throw new Error(`there is no database at ${c.databaseUrl}`);
  if (existsSync(out) && readdirSync(out).length) throw new Error(`${out} exists and is not empty`);
  mkdirSync(path.join(out, "uploads"), { recursive: true, mode: 0o700 });
  chmodSync(out, 0o700);

  const database = await copyDatabase(out);
  const keys = [...new Set(database.keys)];
  const store = blobStore();
  const missing: string[] = [];
  let copied = 0;
  await forEachParallel(keys, PARALLEL, async (key) => {
    const object = KEY_RE.test(key) ? await store.get(key) : null;
    if (!object) {
      missing.push(key);
      return;
    }
    // Already encrypted: the bytes go into the backup unchanged, chunk by chunk.
    await pipeline(
      object.stream,
      createWriteStream(path.join(out, "uploads", `${key}.enc`), { flags: "wx", mode: 0o600 }),
    );
    copied++;
  });

  // Decision 0006: a backup carries the keys that read it. The generated ones are copied as they
  // are; the values in effect are written too, since with PostgreSQL or a bucket they come from
  // the environment (SESSION_SECRET/ENCRYPTION_KEY, shared by every node) and not from the folder.
  const secrets = path.join(c.dataDir, "secrets");
  mkdirSync(path.join(out, "secrets"), { mode: 0o700 });
  for (const f of existsSync(secrets) ? readdirSync(secrets) : []) {
    copyFileSync(path.join(secrets, f), path.join(out, "secrets", f));
    chmodSync(path.join(out, "secrets", f), 0o600);
  }
  for (const [name, value] of [
    ["encryption-key", c.encryptionKey.toString("hex")],
    ["session-secret", c.sessionSecret],
  ]) {
    writeFileSync(path.join(out, "secrets", name), `${value}\n`, { mode: 0o600 });
    chmodSync(path.join(out, "secrets", name), 0o600);
  }
  const manifest: Manifest = {
    createdAt: new Date().toISOString(),
    database: c.databaseKind,
    databaseFile: database.file,
    storage: c.storage.kind,
    files: copied,
    referenced: keys.length,
    missing: missing.sort(),
    counts: database.counts,
  };
  writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest, null, 2), { mode: 0o600 });
  return manifest;
}
