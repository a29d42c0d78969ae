/** Backups (decisions 0067, 0068): the Service screen's list, the admin's notices, the recovery sheet, the mails. */
const backups = {
  title: "Backups",
  intro:
    "Every backup is checked after it is stored: the repository is read back, the database is restored into a scratch folder and counted, and a sample of files is decrypted.",
  scheduleDaily: "A backup is taken every day at {{at}}, clinic time ({{zone}}).",
  scheduleHours: "A backup is taken every {{hours}} hours, starting at {{at}}, clinic time ({{zone}}).",
  scheduleOff:
    "The app takes no backups by itself (BACKUP_AT=off): run npm run backup from a timer, or set BACKUP_AT.",
  repository: "Repository",
  keep: "Kept: one a day for {{daily}} days, one a week for {{weekly}} weeks, one a month for {{monthly}} months.",
  none: "No backup has been taken yet.",
  started: "Started",
  status: "Result",
  duration: "Time taken",
  size: "Size",
  added: "New data",
  snapshot: "Snapshot taken",
  reason: "Why",
  statusRunning: "Running",
  statusVerified: "Verified",
  statusUnverified: "Stored, not verified",
  statusFailed: "Failed",
  triggerScheduled: "scheduled",
  triggerManual: "by hand",
  triggerUpgrade: "before an upgrade",
  localOnlyTitle: "No copy of the data leaves this machine",
  localOnlyText:
    "Backups are kept in {{repository}}, on this machine. They help after a bad upgrade or a mistaken deletion, but not when the machine or its disk is lost.",
  localOnlyHow:
    "To keep a copy elsewhere, set BACKUP_REPOSITORY to a folder on a USB disk, to sftp:user@host:/path, or to s3:https://host/bucket/path (with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), and restart the app.",
  sheetNeededTitle: "Print the recovery sheet",
  sheetNeededText:
    "Backups now go to {{repository}}. Without their password nobody can restore them if this machine is lost. Print the recovery sheet and keep it somewhere safe, away from this machine.",
  sheetLink: "Print the recovery sheet",
  lastSheet: "The recovery sheet was last printed on {{date}} by {{name}}.",
  sheetTitle: "Recovery sheet",
  sheetIntro:
    "The sheet shows the backup password. Enter your password and a code from your authenticator app to see it; each printing is recorded.",
  sheetShow: "Show the sheet",
  sheetNeedsTwoStep:
    "Set up two-step login first: the recovery sheet is shown only after your password and a code from your authenticator app.",
  sheetHeading: "{{product}} recovery sheet",
  sheetPassword: "Backup password",
  sheetRestoreTitle: "To bring everything back on a new machine",
  sheetStep1: "Install the app and restic on the new machine (README: “Install on a clinic server”).",
  sheetStep2:
    "Save the password above in a file named backup-password in the app's folder, readable only by you (chmod 600 backup-password).",
  sheetStep3:
    "Run this command in the app's folder. It says which backup it brought back and when that backup was taken:",
  sheetStep4: "Start the app with npm start: the records, the files and their keys are back.",
  sheetLocalWarning:
    "The backups are only on this machine: if it is lost, this sheet cannot bring anything back. Set BACKUP_REPOSITORY to a USB disk, another machine or a bucket, then print the sheet again.",
  sheetKeepSafe:
    "Keep this sheet locked away: whoever holds it and can reach the repository can read every patient's records.",
  sheetPrinted: "Printed on {{date}} by {{name}}.",
  print: "Print",
  back: "Back to the Service screen",
  mailFailedSubject: "{{product}}: a backup failed",
  mailFailedBody:
    "A backup of {{product}} could not be taken: {{reason}}. There is no new copy of the data until this is fixed.",
  mailUnverifiedSubject: "{{product}}: a backup could not be verified",
  mailUnverifiedBody:
    "A backup was stored in {{repository}}, but its check failed: {{reason}}. Do not rely on it; the older backups are kept.",
  mailAction: "Open the Service screen",
  triggerRestoreTest: "test restore",
  whyRunning: "Under way.",
  whyVerified:
    "{{files}} files stored; then read back from the repository, every table counted and a sample of files decrypted.",
  whyRestoreTested:
    "Restored into a scratch folder as a new machine would: every table counted and all {{files}} files decrypted.",
  backupNow: "Back up now",
  restoreTestNow: "Test a restore now",
  restoreTestHelp:
    "A test restore brings the newest backup back into a scratch folder and reads every record and file in it. Nothing in use is touched.",
  busyNote: "A backup or a test restore is running. Reload the page to see when it is done.",
  busy: "A backup or a test restore is already running on this server. Try again when it is done.",
  backupStarted: "The backup has started. It is listed below; reload the page to see when it is done.",
  restoreTestStarted:
    "The test restore has started. It is listed below; reload the page to see when it is done.",
  sheetClinic: "Clinic",
  sheetServer: "Server",
  sheetWhere: "Where the copy is",
  sheetNowhere: "Nowhere else: the backups are only on this machine.",
  sheetServiceStep1:
    "On a new machine, install CareBridge as before (README: “Install on a clinic server”, steps 1 to 3, without ADMIN_EMAIL) with the same BACKUP_REPOSITORY, and connect the backup disk.",
  sheetServiceStep2:
    "Stop the app, then type the password above into a file only root can read (type it, press Enter, then Ctrl-D):",
  sheetServiceStep3:
    "Bring the newest backup back. It says which backup it brought back and when that backup was taken:",
  sheetServiceStep4:
    "Remove the password file and start the app: the records, the files and their keys are back.",
};
export default backups;
