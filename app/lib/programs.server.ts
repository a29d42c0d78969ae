import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { setPriority, tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { createInterface } from "node:readline";
import { isMainThread } from "node:worker_threads";
import { log } from "~/lib/log.server";

/**
 * The one door through which the app starts an outside program (decision 0086). Every child —
 * poppler, Tesseract, ffmpeg, sox, espeak-ng, restic, pg_dump/pg_restore, baresip and our own Node
 * children — starts here, and nowhere else (`scripts/one-door.mjs` in `npm run lint` refuses
 * `node:child_process` in any other module of app/, server/ and the operator's scripts).
 *
 * What the door guarantees:
 * - An argument array, never a shell. `options` are the words our code writes (flags and their
 *   values: literals, configuration); `operands` are files: after `--` where the program reads it,
 *   and otherwise only an absolute path, `./name`, `-` or `pipe:N` — anything else (a word that
 *   could be read as an option) is refused and logged. Text a person wrote goes on stdin (`input`)
 *   or in a file, never on the command line.
 * - Limits on every child, ours included: address space (`prlimit --as`; a Node child's data
 *   segment instead, `--data`, since V8 reserves far more address space than it uses), CPU seconds
 *   and the largest file it may write (`--cpu`, `--fsize`); a wall-clock limit that kills the
 *   whole process group; stdout kept up to a cap.
 * - A scratch folder per job (`withScratch`): private (0700), its size watched while a program
 *   writes in it (over the cap the program is stopped), and removed afterwards whatever happened.
 * - One log line per refusal or stop (the program's name and the reason; never its arguments).
 * - Nothing outlives the server (decision 0103): the door knows every live child and scratch folder,
 *   `endOutsidePrograms()` (at shutdown) ends them all and removes the folders; each child gets the
 *   kernel's parent-death signal (`setpriv --pdeathsig`), so even a server killed with SIGKILL takes
 *   them with it; a scratch folder is named for its process (`cb-<pid>-<label>-…`) and the next
 *   start removes those of processes that are gone (`removeDeadScratch()`).
 */

export type Limits = {
  /** Wall clock, ms; the process group is killed when it runs out. */
  timeoutMs: number;
  /** Memory, bytes: address space for native programs, data segment for Node children. */
  memoryBytes: number;
  /** CPU time, seconds (SIGXCPU, then SIGKILL). */
  cpuSeconds: number;
  /** The largest file the program may write, bytes (SIGXFSZ). */
  fileBytes: number;
  /** Stdout kept for the caller, bytes; more is a stop (the output is not what was expected). */
  outputBytes: number;
};

type Program = {
  /** What is run: a name found on PATH, or an absolute path. */
  command: string;
  /** Where else it may be installed (PostgreSQL's client tools: Debian's versioned folders). */
  alsoIn?: () => string[];
  /** Whether the program reads `--` as the end of its options (GNU getopt, cobra, Node). */
  endOfOptions: boolean;
  /** Its limits unless a call narrows them. */
  limits: Limits;
  /** Background work runs at a lower priority than the serving processes (0 is the server's). */
  nice: number;
  /** A Node child: its memory is bounded by --data rather than --as. */
  node?: true;
  /**
   * How the server asks it to stop when the server stops (default SIGTERM), and the grace before
   * SIGKILL (default `endOutsidePrograms`'s): restic removes its lock on SIGINT, and may take a while.
   */
  stop?: { signal: "SIGINT"; graceMs: number };
};

const MB = 1024 * 1024;

/** Debian's /usr/lib/postgresql/<version>/bin, newest version first. */
function pgBinFolders(): string[] {
  const debian = "/usr/lib/postgresql";
  if (!existsSync(debian)) return [];
  return readdirSync(debian)
    .sort((a, b) => Number(b) - Number(a) || b.localeCompare(a))
    .map((v) => path.join(debian, v, "bin"));
}
const base = (over: Partial<Limits>): Limits => ({
  timeoutMs: 60_000,
  memoryBytes: 768 * MB,
  cpuSeconds: 120,
  fileBytes: 256 * MB,
  outputBytes: 32 * MB,
  ...over,
});

/** Every outside program the app runs, with what it may use. */
export const PROGRAMS = {
  pdftotext: { command: "pdftotext", endOfOptions: true, limits: base({}), nice: 10 },
  pdftoppm: { command: "pdftoppm", endOfOptions: true, limits: base({}), nice: 10 },
  pdfinfo: { command: "pdfinfo", endOfOptions: true, limits: base({ timeoutMs: 10_000 }), nice: 10 },
  tesseract: { command: "tesseract", endOfOptions: false, limits: base({}), nice: 10 },
  ffmpeg: { command: "ffmpeg", endOfOptions: false, limits: base({}), nice: 10 },
  sox: { command: "sox", endOfOptions: false, limits: base({ memoryBytes: 256 * MB }), nice: 10 },
  "espeak-ng": {
    command: "espeak-ng",
    endOfOptions: true,
    limits: base({ timeoutMs: 30_000, memoryBytes: 256 * MB, fileBytes: 64 * MB }),
    nice: 10,
  },
  // Backups read the whole data folder and may run for long; a restore writes the database back.
  restic: {
    command: "restic",
    endOfOptions: true,
    limits: base({
      timeoutMs: 6 * 3600_000,
      memoryBytes: 4096 * MB,
      cpuSeconds: 6 * 3600,
      fileBytes: 64 * 1024 * MB,
      outputBytes: 64 * MB,
    }),
    nice: 10,
    stop: { signal: "SIGINT", graceMs: 10_000 },
  },
  pg_dump: {
    command: "pg_dump",
    alsoIn: pgBinFolders,
    endOfOptions: true,
    limits: base({
      timeoutMs: 6 * 3600_000,
      memoryBytes: 2048 * MB,
      cpuSeconds: 6 * 3600,
      fileBytes: 64 * 1024 * MB,
    }),
    nice: 10,
  },
  pg_restore: {
    command: "pg_restore",
    alsoIn: pgBinFolders,
    endOfOptions: true,
    limits: base({
      timeoutMs: 6 * 3600_000,
      memoryBytes: 2048 * MB,
      cpuSeconds: 6 * 3600,
      fileBytes: 64 * 1024 * MB,
    }),
    nice: 10,
  },
  // The clinic's SIP line: a long-lived process (startProgram), ended by the app.
  baresip: {
    command: "baresip",
    endOfOptions: false,
    limits: base({ timeoutMs: 0, memoryBytes: 512 * MB, cpuSeconds: 0, fileBytes: 256 * MB }),
    nice: 0,
  },
  // Our own pixel work (the lab reader's page cleaning) in a child Node process.
  node: {
    command: process.execPath,
    endOfOptions: true,
    limits: base({ memoryBytes: 1536 * MB, fileBytes: 128 * MB }),
    nice: 10,
    node: true,
  },
} satisfies Record<string, Program>;

export type ProgramName = keyof typeof PROGRAMS;

/** Why a program did not finish: each is one log line and one of these errors. */
export type StopReason =
  | "time limit"
  | "memory limit"
  | "cpu limit"
  | "file size limit"
  | "scratch limit"
  | "output limit"
  | "refused argument"
  | "not installed"
  | "interrupted";

/** The program ran and refused its input (a damaged file, a bad option): exit code and last words. */
export class ProgramFailed extends Error {
  constructor(
    readonly program: string,
    readonly code: number,
    /** The end of what it wrote on stderr (its last `stderrBytes`). */
    readonly said: string,
  ) {
    const last = said.split("\n").at(-1)?.trim() ?? "";
    super(`${program} exited with ${code}${last ? `: ${last.slice(0, 160)}` : ""}`);
  }
}

/** The door stopped the program, or never started it. */
export class ProgramStopped extends Error {
  constructor(
    readonly program: string,
    readonly reason: StopReason,
    detail = "",
  ) {
    super(`${program}: ${reason}${detail ? ` (${detail})` : ""}`);
  }
}

export type RunOptions = {
  /** Flags and their values, written by our code. */
  options?: readonly string[];
  /** Files (or `-`): after `--` where the program reads it, else checked (see above). */
  operands?: readonly string[];
  /** Options that must follow the operands (programs whose grammar is `<in> <out> [options]`). */
  trailing?: readonly string[];
  /** Stdin: bytes, a stream, or nothing. Text a person wrote goes here. */
  input?: Buffer | Readable | null;
  /** Narrower limits for this call (never wider than the program's: each is the smaller). */
  limits?: Partial<Limits>;
  env?: NodeJS.ProcessEnv;
  /** Variables added to the server's environment (the usual case). */
  addEnv?: Record<string, string>;
  cwd?: string;
  /** Stdout heard line by line (nothing kept); without it stdout is kept up to the output limit. */
  onLine?: (line: string) => void;
  /** The job's scratch folder: its size is watched while the program runs. */
  scratch?: Scratch;
  /** Aborting sends SIGINT to the program (restic removes its locks), then SIGKILL after 10 s. */
  signal?: AbortSignal;
  /** Stderr kept for the error message (its last characters). */
  stderrBytes?: number;
};

export type Scratch = { dir: string; maxBytes: number };

const PRLIMIT = "/usr/bin/prlimit";
let hasPrlimit: boolean | undefined;
const SETPRIV = "/usr/bin/setpriv";
let hasPdeathsig: boolean | undefined;

/**
 * Whether util-linux's `setpriv --pdeathsig` works here (decision 0103): tried once, on itself.
 * Only from the main thread: the kernel sends the signal when the *thread* that started the child
 * ends, and a worker thread may end long before its child should.
 */
function parentDeathSignal(): boolean {
  if (!isMainThread) return false;
  hasPdeathsig ??=
    existsSync(SETPRIV) &&
    spawnSync(SETPRIV, ["--pdeathsig", "KILL", "--", SETPRIV, "--version"], {
      stdio: "ignore",
      timeout: 5000,
    }).status === 0;
  return hasPdeathsig;
}

/** Where a program is: its absolute path, or null when it is not installed (on PATH or where it also may be). */
export function locate(name: ProgramName): string | null {
  const p: Program = PROGRAMS[name];
  if (p.command.startsWith("/")) return existsSync(p.command) ? p.command : null;
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean), ...(p.alsoIn?.() ?? [])];
  for (const dir of dirs) {
    const file = path.join(dir, p.command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

/** Whether a program is installed (a missing one is told apart from one that failed). */
export function installed(name: ProgramName): boolean {
  return locate(name) !== null;
}

function refuse(program: string, reason: StopReason, detail = ""): ProgramStopped {
  log("warn", "outside program refused or stopped", { program, reason, ...(detail ? { detail } : {}) });
  return new ProgramStopped(program, reason, detail);
}

/** An operand that cannot be read as an option, or null when it could. */
function safeOperand(arg: string): boolean {
  return arg === "-" || /^pipe:[0-2]$/.test(arg) || arg.startsWith("/") || arg.startsWith("./");
}

/** The argv the door runs: prlimit's limits, then the program, its options, `--` and operands. */
function commandLine(name: ProgramName, run: RunOptions, limits: Limits): { file: string; args: string[] } {
  const p: Program = PROGRAMS[name];
  const operands = run.operands ?? [];
  for (const arg of [...(run.options ?? []), ...operands, ...(run.trailing ?? [])])
    if (arg.includes("\0")) throw refuse(name, "refused argument", "a NUL byte");
  if (!p.endOfOptions)
    for (const arg of operands)
      if (!safeOperand(arg)) throw refuse(name, "refused argument", "an operand that is not a path");
  const argv = [
    ...(run.options ?? []),
    ...(p.endOfOptions && operands.length ? ["--"] : []),
    ...operands,
    ...(run.trailing ?? []),
  ];
  // A program found only outside PATH (PostgreSQL's versioned folder) is run by its path.
  const found = p.alsoIn ? (locate(name) ?? p.command) : p.command;
  // The child dies with the server, SIGKILL of the server included (decision 0103): the kernel sends
  // it this signal when the server's thread that started it ends. prlimit and setpriv each exec the
  // next program, so the program keeps the PID whose parent is the server. restic gets SIGINT (it
  // removes its lock); everything else SIGKILL. Without setpriv the program runs as before.
  const deathSignal = p.stop?.signal === "SIGINT" ? "INT" : "KILL";
  const [command, ...args] = parentDeathSignal()
    ? [SETPRIV, "--pdeathsig", deathSignal, "--", found, ...argv]
    : [found, ...argv];
  hasPrlimit ??= existsSync(PRLIMIT);
  if (!hasPrlimit) return { file: command, args };
  const caps = [
    p.node ? `--data=${limits.memoryBytes}` : `--as=${limits.memoryBytes}`,
    `--fsize=${limits.fileBytes}`,
    ...(limits.cpuSeconds > 0 ? [`--cpu=${limits.cpuSeconds}`] : []),
    // No core files of a child that a limit stopped (they would hold what it read).
    "--core=0",
  ];
  return { file: PRLIMIT, args: [...caps, "--", command, ...args] };
}

function limitsFor(name: ProgramName, over: Partial<Limits> = {}): Limits {
  const own: Limits = PROGRAMS[name].limits;
  const pick = (k: keyof Limits) => {
    const v = over[k];
    if (v === undefined) return own[k];
    return own[k] > 0 ? Math.min(own[k], v) : v;
  };
  return {
    timeoutMs: pick("timeoutMs"),
    memoryBytes: pick("memoryBytes"),
    cpuSeconds: pick("cpuSeconds"),
    fileBytes: pick("fileBytes"),
    outputBytes: pick("outputBytes"),
  };
}

function spawnLimited(
  name: ProgramName,
  run: RunOptions,
  limits: Limits,
  stdoutPiped: boolean,
): ChildProcess {
  if (closed) throw refuse(name, "interrupted", "the server is stopping");
  const { file, args } = commandLine(name, run, limits);
  const child = spawn(file, args, {
    cwd: run.cwd,
    env: { ...(run.env ?? process.env), ...run.addEnv, OMP_THREAD_LIMIT: "1" },
    stdio: [run.input ? "pipe" : "ignore", stdoutPiped ? "pipe" : "ignore", "pipe"],
    // Its own process group, so a stop ends whatever it started as well.
    detached: true,
  });
  if (child.pid && PROGRAMS[name].nice > 0) {
    try {
      setPriority(child.pid, PROGRAMS[name].nice);
    } catch {
      /* not permitted here: the program runs at the server's priority */
    }
  }
  return child;
}

/** A child the door started and that has not ended yet (decision 0103). */
type Live = {
  name: ProgramName;
  child: ChildProcess;
  /** Resolves when it ended and its output closed (whatever of its group held it gone too). */
  closed: Promise<void>;
  /** Whether its owner is already stopping it (its own limit, an abort, `end()`). */
  ending: () => boolean;
  /** Asks it to stop as the server stops: its stop signal to the group; its run says "interrupted". */
  interrupt: () => void;
};
const liveChildren = new Set<Live>();
const liveScratch = new Set<string>();
/** Set by `endOutsidePrograms`: the server is stopping, and no program or scratch folder starts. */
let closed = false;

/** How a program is asked to stop when the server stops (decision 0103). */
function stopOf(name: ProgramName): { signal: NodeJS.Signals; graceMs?: number } {
  const p: Program = PROGRAMS[name];
  return p.stop ?? { signal: "SIGTERM" };
}

function track(live: Omit<Live, "closed">): Live {
  const entry: Live = {
    ...live,
    closed: new Promise<void>((resolve) => {
      const { child } = live;
      child.once("close", () => resolve());
      child.once("error", () => resolve());
    }),
  };
  liveChildren.add(entry);
  void entry.closed.then(() => liveChildren.delete(entry));
  return entry;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** The signal (or prlimit's exit) that names the limit a program ran into. */
function limitOf(code: number | null, signal: NodeJS.Signals | null, said: string): StopReason | null {
  if (signal === "SIGXCPU") return "cpu limit";
  if (signal === "SIGXFSZ") return "file size limit";
  if (/out of memory|cannot allocate|bad_alloc|heap limit|allocation failed|out of memory|ENOMEM/i.test(said))
    return "memory limit";
  if (code === null && signal === "SIGABRT") return "memory limit";
  return null;
}

/** Runs one program to its end; resolves with its stdout (empty when `onLine` heard it). */
export function runProgram(name: ProgramName, run: RunOptions = {}): Promise<Buffer> {
  // Within a scratch folder, no file may be larger than the folder's cap.
  const limits = limitsFor(name, {
    ...run.limits,
    ...(run.scratch ? { fileBytes: Math.min(run.limits?.fileBytes ?? Infinity, run.scratch.maxBytes) } : {}),
  });
  return new Promise<Buffer>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnLimited(name, run, limits, true);
    } catch (err) {
      return reject(err);
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let said = "";
    let stopped: StopReason | null = null;
    const keepErr = run.stderrBytes ?? 4000;
    const stop = (reason: StopReason, signal: NodeJS.Signals = "SIGKILL") => {
      if (stopped) return;
      stopped = reason;
      killGroup(child, signal);
    };
    // The server stopping ends it as its own abort would; its caller hears "interrupted" (retried).
    track({
      name,
      child,
      ending: () => stopped !== null,
      interrupt: () => stop("interrupted", stopOf(name).signal),
    });
    const timer = limits.timeoutMs > 0 ? setTimeout(() => stop("time limit"), limits.timeoutMs) : undefined;
    let watching: NodeJS.Timeout | undefined;
    if (run.scratch) {
      const scratch = run.scratch;
      let busy = false;
      watching = setInterval(() => {
        if (busy) return;
        busy = true;
        void folderBytes(scratch.dir)
          .then((bytes) => {
            if (bytes > scratch.maxBytes) stop("scratch limit");
          })
          .finally(() => (busy = false));
      }, 100);
    }
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      if (stopped) return;
      stopped = "interrupted";
      killGroup(child, "SIGINT");
      grace = setTimeout(() => killGroup(child, "SIGKILL"), 10_000);
    };
    if (run.signal?.aborted) onAbort();
    run.signal?.addEventListener("abort", onAbort, { once: true });
    const lines = run.onLine ? createInterface({ input: child.stdout!, crlfDelay: Infinity }) : undefined;
    lines?.on("line", run.onLine!);
    const linesClosed = lines ? new Promise((r) => lines.once("close", r)) : Promise.resolve();
    if (!lines)
      child.stdout!.on("data", (c: Buffer) => {
        outBytes += c.length;
        if (outBytes > limits.outputBytes) return stop("output limit");
        out.push(c);
      });
    child.stderr!.on("data", (c: Buffer) => {
      said = (said + c.toString("utf8")).slice(-keepErr);
    });
    if (run.input && child.stdin) {
      child.stdin.on("error", () => {}); // a program that stops reading early says so by its exit
      if (Buffer.isBuffer(run.input)) child.stdin.end(run.input);
      else {
        const input = run.input;
        input.on("error", () => stop("interrupted"));
        input.pipe(child.stdin);
      }
    }
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(grace);
      clearInterval(watching);
      run.signal?.removeEventListener("abort", onAbort);
    };
    child.once("error", (err: NodeJS.ErrnoException) => {
      finish();
      if (err.code === "ENOENT") reject(refuse(name, "not installed"));
      else reject(err);
    });
    child.once("close", (code, signal) => {
      finish();
      void linesClosed.then(() => {
        if (stopped) {
          // The program was stopped by the door: its own words (if any) go to the log only.
          return reject(refuse(name, stopped, stopped === "time limit" ? `${limits.timeoutMs} ms` : ""));
        }
        if (code === 0) return resolve(Buffer.concat(out));
        // prlimit exits 127 (126) when the program is not there (not runnable).
        if ((code === 127 || code === 126) && /No such file|failed to execute|cannot execute/i.test(said))
          return reject(refuse(name, "not installed"));
        const limit = limitOf(code, signal, said);
        if (limit) return reject(refuse(name, limit));
        reject(new ProgramFailed(name, code ?? -1, said.trim()));
      });
    });
  });
}

export type LongRunning = {
  child: ChildProcess;
  /** Ends the program and whatever it started (SIGTERM, then SIGKILL after `graceMs`). */
  end(graceMs?: number): Promise<void>;
};

/**
 * Starts a long-lived program (the SIP line): the same limits on memory, CPU and file size, its own
 * process group, no wall clock — the app ends it with `end()`.
 */
export function startProgram(name: ProgramName, run: RunOptions = {}): LongRunning {
  const limits = limitsFor(name, run.limits);
  const child = spawnLimited(name, run, limits, true);
  child.once("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") refuse(name, "not installed");
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let ending = false;
  track({
    name,
    child,
    ending: () => ending,
    interrupt: () => {
      ending = true;
      killGroup(child, "SIGTERM");
    },
  });
  return {
    child,
    async end(graceMs = 3000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      ending = true;
      killGroup(child, "SIGTERM");
      const t = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Bytes held by a folder's files (its subfolders included); 0 when it is gone. */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  for (const n of names) {
    const p = path.join(dir, n);
    try {
      const s = await stat(p);
      total += s.isDirectory() ? await folderBytes(p) : s.size;
    } catch {
      /* removed meanwhile */
    }
  }
  return total;
}

/** Where scratch folders are made (the system's temporary folder unless SCRATCH_DIR says). */
function scratchRoot(): string {
  return process.env.SCRATCH_DIR || tmpdir();
}

/**
 * A private scratch folder for one job (`label` names it in the temporary folder), `maxBytes` at
 * most: programs run with it (`scratch`) are stopped when the folder grows past the cap, and each
 * file is capped by the same size. Removed when `job` ends, whatever happened.
 */
export async function withScratch<T>(
  label: string,
  maxBytes: number,
  job: (scratch: Scratch) => Promise<T>,
): Promise<T> {
  if (!/^[a-z]+$/.test(label)) throw new Error(`a scratch label is lowercase letters: ${label}`);
  if (closed) throw refuse(`scratch ${label}`, "interrupted", "the server is stopping");
  const root = scratchRoot();
  await mkdir(root, { recursive: true });
  // Named for this process (decision 0103): a start-up removes the folders of processes that are gone.
  const dir = await mkdtemp(path.join(root, `cb-${process.pid}-${label}-`));
  liveScratch.add(dir);
  try {
    if (closed) throw refuse(`scratch ${label}`, "interrupted", "the server is stopping");
    return await job({ dir, maxBytes });
  } finally {
    await rm(dir, { recursive: true, force: true });
    liveScratch.delete(dir);
  }
}

/**
 * The end of every outside program this process started, at its shutdown (decision 0103), once the
 * work that started them was told to stop: no program or scratch folder starts any more; each live
 * child's process group gets its stop signal (SIGTERM; restic SIGINT) unless its owner is already
 * ending it, then SIGKILL after `graceMs` (restic: its own 10 s); then every scratch folder still
 * there — a decrypted copy of a report among them — is removed. Resolves when all of that is done.
 */
export async function endOutsidePrograms(graceMs = 3_000): Promise<void> {
  closed = true;
  const children = [...liveChildren];
  const folders = [...liveScratch];
  await Promise.all(
    children.map(async (live) => {
      if (!live.ending()) live.interrupt();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((r) => {
        timer = setTimeout(() => r(true), stopOf(live.name).graceMs ?? graceMs);
      });
      const overdue = await Promise.race([live.closed.then(() => false), late]);
      clearTimeout(timer);
      if (!overdue) return;
      killGroup(live.child, "SIGKILL");
      await Promise.race([live.closed, new Promise((r) => setTimeout(r, 1_000).unref())]);
    }),
  );
  const scratch = [...new Set([...folders, ...liveScratch])];
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => {})));
  if (children.length || scratch.length)
    log("info", "outside programs ended at shutdown", { programs: children.length, scratch: scratch.length });
}

/** Whether a process is there (one of another user, which we may not signal, counts). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Scratch folders of the releases before decision 0103 (no process id in the name). */
const UNNAMED_SCRATCH = /^cb-(?:labread|labocr|labpdf|pdfpage)-[A-Za-z0-9]{6}$/;
const DAY_MS = 24 * 3600_000;
/** When this process started (a second early: uptime is rounded, and the clock moves). */
const STARTED_AT = Date.now() - process.uptime() * 1000 - 1000;

/**
 * At start-up (decision 0103): removes the scratch folders a crashed or killed server left — those
 * named for a process that is gone, or for this very process but made before it started (a
 * container's server is often PID 1 again after a restart); a folder of a live process, another server's on the same
 * machine included, is never touched. A folder of an older release (no process id in its name) is
 * removed when it is a day old: no job runs that long. Returns the folders removed.
 */
export async function removeDeadScratch(now = Date.now()): Promise<string[]> {
  const root = scratchRoot();
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const named = /^cb-(\d+)-[a-z]+-[A-Za-z0-9]{6}$/.exec(name);
    if (!named && !UNNAMED_SCRATCH.test(name)) continue;
    const dir = path.join(root, name);
    let s: Awaited<ReturnType<typeof lstat>>;
    try {
      s = await lstat(dir);
    } catch {
      continue;
    }
    if (!s.isDirectory() || (process.getuid && s.uid !== process.getuid())) continue;
    if (named) {
      const pid = Number(named[1]);
      // This process's own: only one made before it started (by an earlier process of that PID);
      // one made since is a job's, in use or being removed by it (and maybe not yet in liveScratch).
      const ours = liveScratch.has(dir) || s.mtimeMs >= STARTED_AT;
      if (pid === process.pid ? ours : processAlive(pid)) continue;
    } else if (now - s.mtimeMs < DAY_MS) continue;
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    removed.push(dir);
  }
  if (removed.length) log("info", "scratch of stopped servers removed", { folders: removed.length });
  return removed;
}
