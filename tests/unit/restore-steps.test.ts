import { describe, expect, it } from "vitest";
import { restoreSteps, SHEET_PASSWORD_FILE } from "~/domain/operations/restore-steps";
import { readmeLostMachineLines } from "../helpers/ops";

/*
 * The recovery sheet's steps and the README's "A lost machine" are one set of commands (decision
 * 0091): on a machine set up by ops/install.sh the sheet prints the README's lines with its own
 * repository and command path; install.test.ts runs the README's lines on that layout.
 */
describe("the steps of a restore on a new machine", () => {
  it("on an installed machine are the README's lines, password file and all", () => {
    const sheet = restoreSteps({ command: "carebridge", repository: "/mnt/carebridge-backup/restic" });
    expect(sheet.flatMap((s) => s.commands)).toEqual(readmeLostMachineLines());
    const restore = sheet.flatMap((s) => s.commands).find((c) => c.includes(" restore "))!;
    // The command the README once gave exited 2: without --password-file there is no password.
    expect(restore).toContain(`--password-file ${SHEET_PASSWORD_FILE}`);
  });

  it("without the installed command, npm run restore in the app's folder; an odd repository is quoted", () => {
    const steps = restoreSteps({ repository: "sftp:backup@nas:/srv/care bridge" });
    expect(steps.flatMap((s) => s.commands)).toEqual([
      "npm run restore -- --repository 'sftp:backup@nas:/srv/care bridge' --snapshot latest --password-file backup-password",
    ]);
    const installed = restoreSteps({ command: "/usr/local/sbin/carebridge", repository: "/mnt/x" });
    expect(installed.flatMap((s) => s.commands)).toContain(
      `sudo /usr/local/sbin/carebridge restore -- --repository /mnt/x --snapshot latest --password-file ${SHEET_PASSWORD_FILE}`,
    );
  });
});
