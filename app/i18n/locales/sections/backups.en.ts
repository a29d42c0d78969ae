/** Backups (decisions 0067, 0068): the Service screen's list, the admin's notices, the recovery sheet, the mails. */
const backups = {
  title: "Backups",
  intro:
    "Every backup is checked after it is stored: the repository is read back, the database is restored into a scratch folder and counted, and a sample of files is decrypted.",
  scheduleDaily: "A backup is taken every day at {{at}} (the server's time).",
  scheduleHours: "A backup is taken every {{hours}} hours, starting at {{at}} (the server's time).",
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
  snapshot: "Snapshot",
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
  sheetStep3: "Run this command in the app's folder:",
  sheetStep4: "Start the app with npm start: the records, the files and their keys are back.",
  sheetLocalWarning:
    "This repository is on the same machine as the app: if the machine is lost, this sheet cannot bring anything back. Set BACKUP_REPOSITORY.",
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
};
export default backups;
