/**
 * npm run backup [-- --out DIR]
 *
 * Without --out: one backup exactly as the scheduled job takes it (decision 0067) — the backup
 * folder stored with restic into BACKUP_REPOSITORY (DATA_DIR/backups/restic when unset), verified,
 * old snapshots forgotten past BACKUP_KEEP_*, a row on the Service screen. Exits 1 unless verified.
 * While a backup runs (the schedule's, or one started on the Service screen) it waits for that run
 * and reports its result instead (decision 0113: work asked for while it runs joins it).
 *
 * With --out DIR: only the backup folder (decision 0011: the database, the referenced encrypted
 * files and the secrets, manifest.json last), written into DIR, for `npm run restore -- --from DIR`.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { closeDatabase } from "../app/db/client.server";
import { backupOrJoin, stageBackup } from "../app/domain/operations/index.server";
import { flushMail } from "../app/domain/messaging/index.server";

const { values } = parseArgs({ options: { out: { type: "string" } } });

async function main(): Promise<number> {
  if (values.out) {
    const out = path.resolve(values.out);
    try {
      const m = await stageBackup(out);
      console.log(
        `Backup written to ${out}: database + ${m.files} files${m.missing.length ? ` (${m.missing.length} referenced files were missing)` : ""}.`,
      );
      return 0;
    } catch (err) {
      console.error(`Backup failed: ${err instanceof Error ? err.message : String(err)}`);
      console.error(`${out} is incomplete (it has no manifest.json); delete it.`);
      return 1;
    }
  }
  const run = await backupOrJoin();
  if (run.joined)
    console.log(`A backup was running (${run.trigger}, started ${run.startedAt.toISOString()}): its result.`);
  const mb = (n: number | null) => `${((n ?? 0) / 1e6).toFixed(1)} MB`;
  if (run.status === "verified") {
    console.log(
      `Backup ${run.snapshotId} stored in ${run.repository} and verified in ${((run.durationMs ?? 0) / 1000).toFixed(1)} s: ` +
        `${run.files} files, ${mb(run.sizeBytes)} read, ${mb(run.addedBytes)} added` +
        (run.phasesMs
          ? ` (${Object.entries(run.phasesMs)
              .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
              .join(", ")}).`
          : "."),
    );
    return 0;
  }
  console.error(`Backup ${run.status}: ${run.reason}`);
  return 1;
}

const code = await main();
await flushMail().catch(() => {});
await closeDatabase().catch(() => {});
process.exit(code);
