/**
 * The steps of bringing a lost machine back (decisions 0069, 0091), as the recovery sheet prints them
 * and the README's "A lost machine" gives them (tests/unit/restore-steps.test.ts keeps the two the
 * same; tests/integration/install.test.ts runs the README's lines on an ops/install.sh layout). Each
 * step is a sentence (an i18n key) and the commands typed for it.
 *
 * On a machine set up by ops/install.sh the scripts run through its command, as the service's user
 * with the service's folders and settings; the password the operator types from the sheet goes
 * into a file only root can read, which that command hands to the service's user as a copy.
 */

export type RestoreStep = { key: string; commands: string[] };

/** Where the sheet's password is typed on an installed machine (root's alone; removed at the end). */
export const SHEET_PASSWORD_FILE = "/root/carebridge-backup-password";

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function restoreSteps(opts: { command?: string; repository: string }): RestoreStep[] {
  const repository = shellQuote(opts.repository);
  if (!opts.command)
    return [
      { key: "backups.sheetStep1", commands: [] },
      { key: "backups.sheetStep2", commands: [] },
      {
        key: "backups.sheetStep3",
        commands: [
          `npm run restore -- --repository ${repository} --snapshot latest --password-file backup-password`,
        ],
      },
      { key: "backups.sheetStep4", commands: [] },
    ];
  const file = SHEET_PASSWORD_FILE;
  return [
    { key: "backups.sheetServiceStep1", commands: [] },
    {
      key: "backups.sheetServiceStep2",
      commands: ["sudo systemctl stop carebridge", `sudo sh -c 'umask 077; cat > ${file}'`],
    },
    {
      key: "backups.sheetServiceStep3",
      commands: [
        `sudo ${shellQuote(opts.command)} restore -- --repository ${repository} --snapshot latest --password-file ${file}`,
      ],
    },
    { key: "backups.sheetServiceStep4", commands: [`sudo rm ${file} && sudo systemctl start carebridge`] },
  ];
}
