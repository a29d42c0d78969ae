import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freshDomain, makeAdmin, makePatient, makeReport, type Domain, type Person } from "./factories";

/**
 * Leaves in `repo` the exclusive lock of a restic killed mid-run (a power cut during `restic
 * check`), as real restic writes it: 8 MB of noise under the tag `junk` so that `check
 * --read-data` is still reading when it is killed. restic 0.14 then lets no command past it
 * until `unlock`. Resolves when the lock file is there and its process gone.
 */
export async function leaveStaleLock(repo: string, passwordFile: string): Promise<void> {
  const env = { ...process.env, RESTIC_PASSWORD_FILE: passwordFile };
  const junk = mkdtempSync(path.join(os.tmpdir(), "cb-junk-"));
  const fd = openSync(path.join(junk, "noise.bin"), "w");
  for (let i = 0; i < 8; i++) writeSync(fd, randomBytes(1 << 20));
  closeSync(fd);
  execFileSync("restic", ["-r", repo, "--no-cache", "backup", "-q", "--tag", "junk", junk], { env });
  rmSync(junk, { recursive: true, force: true });
  const check = spawn("restic", ["-r", repo, "--no-cache", "check", "--read-data"], { env, stdio: "ignore" });
  const closed = new Promise((r) => check.once("close", r));
  while (locksIn(repo).length === 0) await new Promise((r) => setTimeout(r, 5));
  check.kill("SIGKILL");
  await closed;
  if (locksIn(repo).length !== 1) throw new Error("restic left no lock behind");
}

/** The repository's lock files (restic writes each under a temporary name first, then renames it). */
export function locksIn(repo: string): string[] {
  return readdirSync(path.join(repo, "locks")).filter((name) => /^[0-9a-f]{64}$/.test(name));
}

/**
 * A fresh domain whose backups go to a new restic repository (a folder), with an admin and a
 * patient who has `reports` reports: the backup tests' common start. `close()` ends the domain
 * and removes the repository.
 */
export async function resticDomain(opts: { verifyFiles: number; reports: number }) {
  const repo = path.join(mkdtempSync(path.join(os.tmpdir(), "cb-restic-")), "repo");
  const d: Domain = await freshDomain({
    BACKUP_REPOSITORY: repo,
    BACKUP_CHECK_SHARE: "100%",
    BACKUP_VERIFY_FILES: String(opts.verifyFiles),
    BACKUP_AT: "02:30",
  });
  const ops = await import("~/domain/operations/index.server");
  const admin: Person = await makeAdmin();
  const patient: Person = await makePatient();
  for (let i = 0; i < opts.reports; i++) await makeReport(patient);
  const close = async () => {
    await d.close();
    rmSync(path.dirname(repo), { recursive: true, force: true });
  };
  return { d, ops, admin, patient, repo, close };
}
