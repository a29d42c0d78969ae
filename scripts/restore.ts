/**
 * npm run restore -- --repository REPO [--snapshot latest|ID] --password-file FILE
 * npm run restore -- [--from] FOLDER
 *
 * Restores a backup into the configured database and file store (decisions 0011, 0069, 0091): a
 * snapshot of the restic repository the scheduled backups go to (on a new machine: install, then
 * this with the recovery sheet's password, then start the app), or a folder written by
 * `npm run backup -- --out`. Stop the app first. On a machine set up by ops/install.sh:
 * `sudo carebridge restore -- …` (the service's user, folders and settings).
 *
 * The work is the domain's (app/domain/operations/restore.server.ts, beside the backup): this
 * shell reads the arguments and says what happened — which snapshot, taken when, and what came back.
 */
import { parseArgs } from "node:util";
import { config } from "../app/config.server";
import {
  openForRestore,
  RestoreError,
  restoreOpened,
  type OpenedBackup,
} from "../app/domain/operations/index.server";
import { formatDateTime } from "../app/lib/format";

const USAGE =
  "Usage: npm run restore -- --repository REPO [--snapshot latest|ID] --password-file FILE\n" +
  "       npm run restore -- [--from] FOLDER   (a folder written by npm run backup -- --out)";

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
const text = (v: unknown) => (typeof v === "string" && v ? v : undefined);

function source() {
  const repository = text(args.repository);
  if (!repository) {
    const folder = text(args.from) ?? positionals[0];
    if (!folder) throw new RestoreError(USAGE, 2);
    return { folder };
  }
  // The recovery sheet's password, never this machine's own generated one (decision 0069).
  const passwordFile = text(args["password-file"]) ?? process.env.RESTIC_PASSWORD_FILE;
  if (!passwordFile)
    throw new RestoreError(
      "Give the repository's password in a file: --password-file FILE (the password on the recovery sheet).\n" +
        USAGE,
      2,
    );
  return { repository, snapshot: text(args.snapshot) ?? "latest", passwordFile };
}

/** Which backup this is and when it was taken, in the clinic's time: what is not in it was lost. */
function describe(backup: OpenedBackup): string {
  const zone = config().clinic.timeZone;
  const when = (d: Date | string) => `${formatDateTime(d, "en", zone)} (${zone})`;
  if (!backup.snapshot)
    return `Backup folder ${backup.folder}${backup.manifest.createdAt ? `, written ${when(backup.manifest.createdAt)}` : ""}.`;
  const s = backup.snapshot;
  const hours = (Date.now() - s.time.getTime()) / 3_600_000;
  const ago =
    hours < 48 ? `${Math.max(0, Math.round(hours))} hours ago` : `${Math.round(hours / 24)} days ago`;
  return (
    `Snapshot ${s.shortId}, taken ${when(s.time)}, ${ago}: anything entered after that is not in it. ` +
    `(${s.id})`
  );
}

async function main(): Promise<number> {
  let backup: OpenedBackup | undefined;
  try {
    const started = Date.now();
    backup = await openForRestore(source());
    console.log(`${describe(backup)} Read in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    const r = await restoreOpened(backup);
    const notes = [
      r.check.damaged.length ? `${r.check.damaged.length} files in the backup could not be decrypted.` : "",
      r.missing ? `${r.missing} referenced files are in neither the backup nor the store.` : "",
    ].filter(Boolean);
    console.log(
      `Restored database and ${r.files} files (${r.kind === "postgres" ? "PostgreSQL" : "SQLite"}, files into ` +
        `${r.store}; ${r.check.tables} tables, ${r.check.rows} rows checked).` +
        (notes.length ? ` ${notes.join(" ")}` : "") +
        ` The keys are in ${r.secretsDir}. Start the app to use it.`,
    );
    return 0;
  } catch (err) {
    if (err instanceof RestoreError) {
      console.error(err.message);
      return err.exitCode;
    }
    console.error(`Restore failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    backup?.close();
  }
}

process.exit(await main());
