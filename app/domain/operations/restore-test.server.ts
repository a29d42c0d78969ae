import { statSync } from "node:fs";
import path from "node:path";
import { config } from "~/config.server";
import { log } from "~/lib/log.server";
import { audit, DomainError, type Actor, type Client } from "../platform/index.server";
import { alertAdmins, claimRun, finish, inBackground, lockOrRefuse, type BackupRun } from "./backups.server";
import { checkBackup, openSnapshot } from "./restore.server";

/**
 * "Test a restore now" on the Service screen (decision 0091): the newest snapshot of the
 * repository is restored whole, as a new machine would restore it, into a scratch folder beside
 * the staging one, and read through by the restore's own check — the database read back and every
 * table counted against the manifest, every file each file-bearing column names found and
 * decrypted with the snapshot's key. Nothing in use is touched. The result is a `backup_runs` row
 * (trigger `restore-test`) with the snapshot and when it was taken; a failure mails the admins.
 */

async function runRestoreTest(run: BackupRun, release: () => void): Promise<void> {
  const b = config().backup;
  try {
    const backup = await openSnapshot({
      repository: b.repository,
      snapshot: "latest",
      passwordFile: b.passwordFile,
      cache: true,
      scratchIn: path.join(path.dirname(b.stagingDir), "restore-test"),
    });
    try {
      const check = await checkBackup(backup);
      // Files already missing when the backup was taken are not the backup's fault.
      const known = new Set(backup.manifest.missing ?? []);
      const lost = check.missing.filter((k) => !known.has(k));
      const problems = [
        lost.length ? `${lost.length} files the database names are not in the snapshot` : "",
        check.damaged.length ? `${check.damaged.length} files could not be decrypted with its key` : "",
      ].filter(Boolean);
      await finish(run, {
        status: problems.length ? "unverified" : "verified",
        snapshotId: backup.snapshot!.shortId,
        snapshotAt: backup.snapshot!.time,
        files: check.files,
        // What came back: the database and the files.
        sizeBytes: check.bytes + statSync(backup.databaseFile).size,
        reason: problems.length ? problems.join("; ") : null,
      }).then((done) => (done.status === "unverified" ? alertAdmins(done) : null));
      log("info", "restore test done", { snapshot: backup.snapshot!.shortId, files: check.files });
    } finally {
      backup.close();
    }
  } catch (err) {
    const reason = (err as Error)?.message ?? String(err);
    log("error", "restore test failed", { error: reason });
    await alertAdmins(await finish(run, { status: "failed", reason }));
  } finally {
    release();
  }
}

/** Starts a restore test (admins); refused while a backup or another test runs on this machine. */
export async function startRestoreTest(actor: Actor, client: Client): Promise<BackupRun> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  const release = lockOrRefuse();
  let run: BackupRun;
  try {
    run = (await claimRun("restore-test", null))!;
    await audit(actor, "backup.restore_tested", "backup", run.id, {}, client.ip);
  } catch (err) {
    release();
    throw err;
  }
  inBackground(runRestoreTest(run, release));
  return run;
}
