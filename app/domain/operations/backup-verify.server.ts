import { createHash, randomInt } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { config } from "~/config.server";
import { readDatabaseCopy, type RecordedFile } from "~/db/backup-copy.server";
import { decryptCopy, openDecrypted } from "../records/index.server";
import type { Manifest } from "./backup-stage.server";
import { restic } from "./restic.server";

/**
 * Verification of a backup just stored (decision 0067), nothing taken on trust: `restic check`
 * reads a share of the repository's data; then the snapshot's database is restored into a scratch
 * folder and read back (SQLite: integrity_check; PostgreSQL: the archive's list and its data),
 * every table's row count must equal the count taken in the snapshot, and a sample of report
 * files is restored and decrypted with the snapshot's own key: the tag must match, the size must
 * be the one the row records, and the content the live file's (by SHA-256).
 */

export class Unverified extends Error {}

/** The folder name the staged backup has inside a snapshot (restic keeps the last path element). */
export const SNAPSHOT_FOLDER = "carebridge-backup";

async function liveSha256(key: string): Promise<string | null> {
  let stream;
  try {
    stream = await openDecrypted(key);
  } catch {
    return null; // deleted since the backup: nothing to compare with
  }
  const hash = createHash("sha256");
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

function sample<T>(items: T[], n: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

/** Throws `Unverified` with the reason when a check fails; resolves with the files it decrypted. */
export async function verifySnapshot(
  snapshotId: string,
  manifest: Manifest,
): Promise<{ filesChecked: number }> {
  const b = config().backup;
  try {
    await restic(["check", `--read-data-subset=${b.checkShare}`]);
  } catch (err) {
    throw new Unverified(`restic check: ${(err as Error).message}`);
  }
  const scratch = path.join(path.dirname(b.stagingDir), "verify");
  rmSync(scratch, { recursive: true, force: true });
  const inSnapshot = (p: string) => `/${SNAPSHOT_FOLDER}/${p}`;
  const restored = (p: string) => path.join(scratch, SNAPSHOT_FOLDER, p);
  try {
    try {
      await restic([
        "restore",
        snapshotId,
        "--target",
        scratch,
        "--include",
        inSnapshot("manifest.json"),
        "--include",
        inSnapshot(manifest.databaseFile),
        "--include",
        inSnapshot("secrets/encryption-key"),
      ]);
    } catch (err) {
      throw new Unverified(`restore of the database: ${(err as Error).message}`);
    }
    const saved = JSON.parse(readFileSync(restored("manifest.json"), "utf8")) as Manifest;
    let reading;
    try {
      reading = await readDatabaseCopy(restored(manifest.databaseFile));
    } catch (err) {
      throw new Unverified(`the restored database: ${(err as Error).message}`);
    }
    const tables = new Set([...Object.keys(saved.counts), ...Object.keys(reading.counts)]);
    const differ = [...tables].filter(
      (t) => saved.counts[t] !== reading.counts[t] || saved.counts[t] !== manifest.counts[t],
    );
    if (differ.length)
      throw new Unverified(
        `row counts differ from the snapshot's: ${differ
          .slice(0, 5)
          .map((t) => `${t} ${reading.counts[t] ?? "missing"} ≠ ${manifest.counts[t] ?? "missing"}`)
          .join(", ")}`,
      );

    const missing = new Set(manifest.missing);
    const byKey = new Map<string, RecordedFile>();
    for (const f of reading.reportFiles) if (!missing.has(f.key)) byKey.set(f.key, f);
    const chosen = sample([...byKey.values()], b.verifyFiles);
    if (chosen.length) {
      try {
        await restic([
          "restore",
          snapshotId,
          "--target",
          scratch,
          ...chosen.flatMap((f) => ["--include", inSnapshot(`uploads/${f.key}.enc`)]),
        ]);
      } catch (err) {
        throw new Unverified(`restore of files: ${(err as Error).message}`);
      }
    }
    const key = Buffer.from(readFileSync(restored("secrets/encryption-key"), "utf8").trim(), "hex");
    for (const f of chosen) {
      const file = restored(`uploads/${f.key}.enc`);
      if (!existsSync(file)) throw new Unverified(`file ${f.key} is not in the snapshot`);
      let read;
      try {
        read = await decryptCopy(file, f.key, key);
      } catch (err) {
        throw new Unverified(`file ${(err as Error).message}`);
      }
      if (read.size !== f.size)
        throw new Unverified(`file ${f.key}: ${read.size} bytes decrypted, the database records ${f.size}`);
      const live = await liveSha256(f.key);
      if (live && live !== read.sha256) throw new Unverified(`file ${f.key}: not the stored file's content`);
    }
    return { filesChecked: chosen.length };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
