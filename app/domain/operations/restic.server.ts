import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { config } from "~/config.server";

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

/** The restic processes running now, so a stopping server can end them (restic removes its locks on SIGINT). */
const running = new Set<ReturnType<typeof spawn>>();

/** Asks every running restic to stop (at shutdown); the run then fails and says so. */
export function interruptRestic(): void {
  for (const child of running) child.kill("SIGINT");
}

/** Runs `restic <args>` against the configured repository; resolves with stdout. */
export function restic(args: string[], opts: { repository?: string; cwd?: string } = {}): Promise<string> {
  const b = config().backup;
  mkdirSync(b.cacheDir, { recursive: true, mode: 0o700 });
  const argv = ["-r", opts.repository ?? b.repository, "--cache-dir", b.cacheDir, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn("restic", argv, {
      cwd: opts.cwd,
      env: { ...process.env, RESTIC_PASSWORD_FILE: b.passwordFile, RESTIC_PROGRESS_FPS: "0.2" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(child);
    child.once("close", () => running.delete(child));
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => {
      err = (err + d.toString("utf8")).slice(-4000);
    });
    child.once("error", (e) =>
      reject(
        (e as NodeJS.ErrnoException).code === "ENOENT"
          ? new Error("restic is not installed (Debian/Ubuntu: apt-get install restic)")
          : e,
      ),
    );
    child.once("close", (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString("utf8")) : reject(new ResticError(args[0], code, err)),
    );
  });
}

/** Creates the repository unless it exists (a wrong password is an error, never a new repository). */
export async function ensureRepository(): Promise<void> {
  try {
    await restic(["cat", "config"]);
    // A run that was killed (a server stopped mid-backup) can leave its lock behind; restic removes
    // only locks whose process is gone or that are old, so a live run elsewhere keeps its own.
    await restic(["unlock"]).catch(() => {});
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

/** The repository's snapshots of this app (newest last). */
export async function snapshots(): Promise<{ id: string; short_id: string; time: string }[]> {
  return JSON.parse(await restic(["snapshots", "--json", "--tag", RESTIC_TAG]));
}
