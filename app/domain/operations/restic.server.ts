import { mkdirSync } from "node:fs";
import path from "node:path";
import { config } from "~/config.server";
import { ProgramFailed, ProgramStopped, runProgram } from "~/lib/programs.server";

/**
 * restic, run as a child process (decision 0067): the repository and its password file from the
 * configuration (the password reaches restic as RESTIC_PASSWORD_FILE, never on its command
 * line), a cache folder of the installation's own, and every snapshot under one host name and the
 * tag `carebridge`, so whichever node takes the next backup finds the last one as its parent.
 */

export const RESTIC_HOST = "carebridge";
export const RESTIC_TAG = "carebridge";

export class ResticError extends Error {
  constructor(
    readonly command: string,
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`restic ${command} failed (${code === null ? "killed" : `exit ${code}`}): ${lastLines(stderr)}`);
  }
}

const lastLines = (text: string) =>
  text.trim().split("\n").slice(-3).join(" / ").slice(0, 500) || "no message";

/**
 * Aborted at shutdown: every running restic is asked to stop (restic removes its locks on SIGINT),
 * and none starts after it. A backup interrupted between two restic commands would otherwise start
 * the next one after the server had gone, holding the repository's lock with no one waiting for it.
 */
let stopping = new AbortController();

/** Asks every running restic to stop (at shutdown) and starts no other; the run then fails and says so. */
export function interruptRestic(): void {
  stopping.abort();
}

/** restic may run again (the scheduler started anew in the same process). */
export function resumeRestic(): void {
  if (stopping.signal.aborted) stopping = new AbortController();
}

export type ResticOptions = {
  /** Another repository than the configured one (a restore from the recovery sheet). */
  repository?: string;
  /** Another password file than the configured one. */
  passwordFile?: string;
  /** No cache folder (a restore on a new machine). */
  noCache?: boolean;
  cwd?: string;
  /** Arguments that are not options (a snapshot an operator named): after `--`. */
  operands?: string[];
  /**
   * Reads only, without taking the repository's lock (a restore): a lock the lost machine left
   * (restic counts another host's lock as live for 30 minutes) or a disk mounted read-only stops nothing.
   */
  readOnly?: boolean;
};

/**
 * Runs `restic <args>` against the configured repository through the one door (decision 0086);
 * resolves with stdout. The password reaches restic as RESTIC_PASSWORD_FILE, never on its command line.
 */
export async function restic(args: string[], opts: ResticOptions = {}): Promise<string> {
  // Given a repository, a password file and no cache, nothing is read from the configuration: a
  // restore on a new machine reads the snapshot before the configuration is complete (decision 0091).
  const b = () => config().backup;
  const cacheDir = opts.noCache ? undefined : b().cacheDir;
  if (stopping.signal.aborted) throw new ResticError(args[0], null, "the server is stopping");
  if (cacheDir) mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const options = [
    "-r",
    opts.repository ?? b().repository,
    ...(cacheDir ? ["--cache-dir", cacheDir] : ["--no-cache"]),
    ...(opts.readOnly ? ["--no-lock"] : []),
    ...args,
  ];
  try {
    const out = await runProgram("restic", {
      options,
      operands: opts.operands,
      cwd: opts.cwd,
      addEnv: {
        RESTIC_PASSWORD_FILE: path.resolve(opts.passwordFile ?? b().passwordFile),
        RESTIC_PROGRESS_FPS: "0.2",
      },
      signal: stopping.signal,
    });
    return out.toString("utf8");
  } catch (err) {
    if (err instanceof ProgramStopped && err.reason === "not installed")
      throw new Error("restic is not installed (Debian/Ubuntu: apt-get install restic)");
    if (err instanceof ProgramFailed) throw new ResticError(args[0], err.code, err.said);
    if (err instanceof ProgramStopped) throw new ResticError(args[0], null, err.message);
    throw err;
  }
}

/** Creates the repository unless it exists (a wrong password is an error, never a new repository). */
export async function ensureRepository(): Promise<void> {
  // A run that was killed (a power cut mid-backup) can leave its lock behind, and restic 0.14 lets
  // no command past another's exclusive lock, stale or not: `unlock` first removes only locks whose
  // process is gone or that are old, so a live run elsewhere keeps its own. (No repository yet: it fails.)
  await restic(["unlock"]).catch(() => {});
  try {
    await restic(["cat", "config"]);
  } catch (err) {
    const text = err instanceof ResticError ? err.stderr : "";
    if (!/does not exist|no such file|unable to open config file|Is there a repository/i.test(text))
      throw err;
    await restic(["init"]);
  }
}

export type BackupSummary = {
  snapshotId: string;
  totalBytes: number;
  addedBytes: number;
  files: number;
};

/**
 * `restic backup` of one folder, named relative to its parent, so the snapshot holds the folder
 * under its own name (restore puts it at <target>/<name>); the summary restic prints last.
 */
export async function resticBackup(folder: string): Promise<BackupSummary> {
  const out = await restic(
    ["backup", "--json", "--tag", RESTIC_TAG, "--host", RESTIC_HOST, path.basename(folder)],
    {
      cwd: path.dirname(folder),
    },
  );
  const summary = out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((m) => m.message_type === "summary");
  if (!summary || typeof summary.snapshot_id !== "string")
    throw new Error("restic backup printed no summary");
  return {
    snapshotId: summary.snapshot_id,
    totalBytes: Number(summary.total_bytes_processed ?? 0),
    addedBytes: Number(summary.data_added ?? 0),
    files: Number(summary.total_files_processed ?? 0),
  };
}

export type Snapshot = { id: string; shortId: string; time: Date };

/**
 * One snapshot of the app's: `latest` (the newest of the tag `carebridge`) or the one an ID names;
 * undefined when there is none. The ID is the operator's word: after `--`, never read as an option.
 */
export async function findSnapshot(name: string, opts: ResticOptions = {}): Promise<Snapshot | undefined> {
  const found = JSON.parse(
    (await restic(["snapshots", "--json", "--tag", RESTIC_TAG], { ...opts, operands: [name] })) || "[]",
  ) as { id: string; short_id: string; time: string }[] | null;
  const newest = (found ?? []).sort((a, b) => Date.parse(b.time) - Date.parse(a.time))[0];
  return newest && { id: newest.id, shortId: newest.short_id, time: new Date(newest.time) };
}
