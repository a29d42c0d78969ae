/**
 * Operations: running the service, above every other context (nothing in the domain depends on it).
 *
 * - startup: the start-up and shutdown of a serving process (migrations, the admin account, the
 *   SMS and PACS senders, the scheduled jobs of every context).
 * - gauges: the product's gauges for /metrics (queue sizes, the mail queue, list counts).
 * - disk-warning: the admin's warning of a disk running out of space.
 * - background-work: the one runner's queues and failed jobs for the Service screen, retried or
 *   dropped by an admin (decision 0113).
 * - service: the Service screen's figures (request rollups, latency, queues, turnaround).
 * - backups: scheduled, verified backups into a restic repository (decision 0067), built from
 *   backup-stage (the backup folder), restic and backup-verify; recovery-sheet: the printed
 *   sheet with the repository's password (decision 0068); restore: a backup checked and put back
 *   in place (decisions 0069, 0091), the shell of `npm run restore` and the Service screen's test.
 */
export { shutdown, startup } from "./startup.server";
export { productGauges, type Gauge } from "./gauges.server";
export { diskWarning, type DiskWarning } from "./disk-warning.server";
export {
  backgroundWork,
  settleDeadJob,
  type BackgroundWork,
  type DeadJobView,
} from "./background-work.server";
export {
  apiServiceSummary,
  QUEUE_SERIES,
  requestDone,
  ROUTE_GROUPS,
  routeGroup,
  serviceSummary,
  type RouteGroup,
  type ServiceSummary,
} from "./service.server";
export {
  backupOrJoin,
  backupOverview,
  backupTick,
  type BackupOverview,
  dueSlot,
  lastVerifiedBackup,
  listBackupRuns,
  runBackup,
  startBackupNow,
  startBackupScheduler,
  stopBackupScheduler,
  type BackupRun,
  type BackupTrigger,
} from "./backups.server";
export { stageBackup, type Manifest } from "./backup-stage.server";
export { SNAPSHOT_FOLDER } from "./backup-verify.server";
export { restic, RESTIC_TAG } from "./restic.server";
export {
  checkBackup,
  openForRestore,
  openSnapshot,
  RestoreError,
  restoreOpened,
  type BackupCheck,
  type OpenedBackup,
  type RestoreResult,
} from "./restore.server";
export { startRestoreTest } from "./restore-test.server";
export { restoreSteps, SHEET_PASSWORD_FILE, type RestoreStep } from "./restore-steps";
export {
  backupNotice,
  printRecoverySheet,
  type BackupNotice,
  type RecoverySheet,
} from "./recovery-sheet.server";
