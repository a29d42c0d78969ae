import { and, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import { db, exec, first, rows, transaction, type DB, type TxSteps } from "~/db/client.server";
import { jobs, type JobRow } from "~/db/schema";
import { JOB_STATES } from "~/db/types";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { backgroundLoop, type BackgroundLoop } from "./background-loop.server";
import { claimJob, type TurnsBy } from "./jobs-claim.server";

/**
 * One runner for all background work (decision 0113). A job is a row of `jobs`: a kind, a JSON
 * payload and an idempotency key unique per kind — asking twice for the same work gives the same
 * job (`joined`), and a caller may wait for it (`waitForJob`). Each kind registers its handler and
 * options once (`defineJobKind`); every serving process runs a loop per kind (`startJobs`), or
 * `concurrency` loops, each running one job at a time.
 *
 * A claim is ONE conditional update that repeats the due condition (SQLite runs it alone;
 * PostgreSQL picks the row `FOR UPDATE SKIP LOCKED`, app/db), so a job runs in one process at a
 * time; a kind may take turns by group (an account: jobs-claim.server.ts, decision 0100). The
 * claim holds it under a lease with a fresh holder token, renewed while the handler runs; a holder
 * that died loses it when the lease ends and any runner takes it again. Every outcome is written
 * only while the token still holds. A failed attempt waits its kind's backoff; the attempt after
 * the kind's cap is never made: the job is `dead` with its last error, for an admin to retry or
 * drop. `stopJobs` drains: no new claims, running handlers waited for up to a bound, then told to
 * stop (their jobs go back when their leases end).
 */

export type JobState = (typeof JOB_STATES)[number];

/** What a handler sees of its job. */
export type JobContext = {
  id: string;
  kind: string;
  key: string;
  /** This attempt's number, from 1. */
  attempt: number;
  maxAttempts: number;
  /** The error of the attempt before, if it failed. */
  lastError: string | null;
  createdAt: Date;
  /** Aborted when the process drains past its bound, or the lease was lost. */
  signal: AbortSignal;
};

/**
 * Waits after the 1st, 2nd … failed attempt: a list (the last repeats), or doubling from `baseMs`
 * up to `maxMs`.
 */
export type Backoff = readonly number[] | { baseMs: number; maxMs: number };

export type JobKindOptions<P> = {
  /** Does the work; throws to fail the attempt. What it returns is counted by `runDue` (e.g. "sent"). */
  run(payload: P, job: JobContext): Promise<string | void>;
  /** Attempts in all; the job is dead after the last one fails. */
  maxAttempts: number;
  backoff: Backoff;
  /** How long a claim holds without renewal (renewed every third of it while the handler runs). */
  leaseMs?: number;
  /** How often each process looks for due jobs of this kind (besides kicks). */
  pollMs?: number;
  /** The text kept as the last error (default: the error's message). Keep secrets out of it. */
  describeError?(err: unknown): string;
  /** Called once the job is given up, before it is marked dead (the handler's own row, say). */
  onDead?(payload: P, job: JobContext & { lastError: string }): Promise<void>;
  /** Jobs of this kind each process runs at once (default 1): as many loops, each claiming in turn. */
  concurrency?: number;
  /**
   * Turns (decision 0100): a job's group as SQL of its key column. A group has at most one job
   * running across every process, and the group served longest ago goes first.
   */
  turnsBy?: TurnsBy;
};

/**
 * A failure that another attempt cannot change (the far side refused the work for good): the job
 * is given up at once, without the attempts left, as if it were its last.
 */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PermanentJobError";
  }
}

/**
 * The attempt was cut short from outside (the process is stopping and ended the programs the
 * handler ran): no fault of the work. The job goes back to the queue at once for any runner,
 * the attempt not counted against the cap (decision 0113's drain).
 */
export class JobInterrupted extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "JobInterrupted";
  }
}

type Optional = "onDead" | "turnsBy";
type Settings = Required<Omit<JobKindOptions<unknown>, Optional>> & Pick<JobKindOptions<unknown>, Optional>;

export type Enqueued = { id: string; state: JobState; joined: boolean };
export type EnqueueOptions = { key?: string; runAt?: Date };
export type JobRound = { done: number; retrying: number; dead: number; outcomes: Record<string, number> };

export type JobKind<P> = {
  readonly kind: string;
  /** Asks for the work (in its own transaction) and kicks this process's loops. */
  enqueue(payload: P, opts?: EnqueueOptions): Promise<Enqueued>;
  /** Asks for the work inside the caller's transaction (kick after it commits). */
  enqueueSteps(tx: DB, payload: P, opts?: EnqueueOptions): TxSteps<Enqueued>;
  /** Runs due jobs of this kind one at a time (in turns, if it takes them) until none is due or `stop()`. */
  runDue(stop?: () => boolean): Promise<JobRound>;
  /** Makes this process's loops look now (no-op where none runs). */
  kick(): void;
  /** Starts this process's loops of the kind (idempotent), as `startJobs` does. */
  start(): void;
  /** Stops this process's loops, waiting for their running jobs (no bound: see `stopJobs`). */
  stop(): Promise<void>;
  /** Changes options (tests' short waits); applies from the next claim. */
  configure(overrides: Partial<JobKindOptions<P>>): void;
};

const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_POLL_MS = 5_000;
/** An interrupted job is free again after this (for another runner, or this one once it starts again). */
const INTERRUPTED_WAIT_MS = 1_000;
/** Finished jobs are kept this long (the same key asked again meanwhile is the same job). */
export const DONE_JOBS_KEPT_MS = 7 * 24 * 60 * 60_000;

type Registered = {
  settings: Settings;
  defaults: Settings;
  /** One loop per job run at once (`concurrency`); each claims, runs and claims again. */
  loops: BackgroundLoop[];
  running: Set<AbortController>;
};
const kinds = new Map<string, Registered>();

const kickAll = (reg: Registered) => reg.loops.forEach((l) => l.kick());

/** As many loops as the kind's concurrency (more are made, none taken away), started like the first. */
function fitLoops(kind: string, reg: Registered): void {
  while (reg.loops.length < Math.max(1, reg.settings.concurrency)) {
    const n = reg.loops.length + 1;
    const loop = backgroundLoop(n === 1 ? `${kind} jobs` : `${kind} jobs (${n})`, (stopping) =>
      runDue(kind, stopping),
    );
    if (reg.loops[0]?.started) loop.start(reg.settings.pollMs);
    reg.loops.push(loop);
  }
}

function describe(err: unknown): string {
  return String((err as Error)?.message ?? err);
}

/** Registers a kind's handler and options (again: replaces them) and gives the kind's handle. */
export function defineJobKind<P>(kind: string, options: JobKindOptions<P>): JobKind<P> {
  const settings: Settings = {
    leaseMs: DEFAULT_LEASE_MS,
    pollMs: DEFAULT_POLL_MS,
    describeError: describe,
    concurrency: 1,
    ...(options as JobKindOptions<unknown>),
  };
  const previous = kinds.get(kind);
  const reg: Registered = previous ?? { settings, defaults: settings, loops: [], running: new Set() };
  reg.settings = reg.defaults = settings;
  fitLoops(kind, reg);
  kinds.set(kind, reg);
  return {
    kind,
    enqueue: async (payload, opts) => {
      const job = await transaction((tx) => enqueueSteps(tx, kind, payload, opts));
      kickAll(reg);
      return job;
    },
    enqueueSteps: (tx, payload, opts) => enqueueSteps(tx, kind, payload, opts),
    runDue: (stop) => runDue(kind, stop),
    kick: () => kickAll(reg),
    start: () => startJobs([kind]),
    stop: async () => void (await Promise.all(reg.loops.map((l) => l.stop()))),
    configure(overrides) {
      reg.settings = { ...reg.defaults, ...(overrides as Partial<Settings>) };
      fitLoops(kind, reg);
      for (const l of reg.loops) l.repoll(reg.settings.pollMs);
    },
  };
}

function registered(kind: string): Registered {
  const reg = kinds.get(kind);
  if (!reg) throw new Error(`no job kind "${kind}" is registered`);
  return reg;
}

/** The kinds registered in this process. */
export function jobKinds(): string[] {
  return [...kinds.keys()].sort();
}

// ---------------------------------------------------------------------------------------------
// Asking for work

function* enqueueSteps(tx: DB, kind: string, payload: unknown, opts: EnqueueOptions = {}): TxSteps<Enqueued> {
  const id = newId();
  const now = new Date();
  yield* exec(
    tx
      .insert(jobs)
      .values({
        id,
        kind,
        key: opts.key ?? id,
        payload: JSON.stringify(payload ?? null),
        state: "queued",
        runAt: opts.runAt ?? now,
        createdAt: now,
      })
      .onConflictDoNothing({ target: [jobs.kind, jobs.key] }),
  );
  const [row] = yield* rows(
    tx
      .select({ id: jobs.id, state: jobs.state })
      .from(jobs)
      .where(and(eq(jobs.kind, kind), eq(jobs.key, opts.key ?? id))),
  );
  return { id: row.id, state: row.state, joined: row.id !== id };
}

/** A job as it is now (undefined: dropped or pruned). */
export async function jobById(id: string): Promise<JobRow | undefined> {
  return first(db().select().from(jobs).where(eq(jobs.id, id)));
}

/**
 * Waits until the job is done or dead (a caller that joined one) and gives it; undefined when it
 * is gone, or still unfinished after `timeoutMs`.
 */
export async function waitForJob(
  id: string,
  { timeoutMs = 30_000, pollMs = 50 }: { timeoutMs?: number; pollMs?: number } = {},
): Promise<JobRow | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await jobById(id);
    if (!job || job.state === "done" || job.state === "dead") return job;
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

// ---------------------------------------------------------------------------------------------
// Claiming and running

const held = (job: JobRow) =>
  and(eq(jobs.id, job.id), eq(jobs.state, "running"), eq(jobs.holder, job.holder!));

/** Writes an outcome while our claim still holds; false (logged) when another runner took the job. */
async function settle(job: JobRow, set: { [K in keyof JobRow]?: JobRow[K] | SQL }): Promise<boolean> {
  const written = await db()
    .update(jobs)
    .set({ ...(set as Partial<JobRow>), holder: null, leasedUntil: null })
    .where(held(job))
    .returning({ id: jobs.id });
  if (!written.length)
    log("warn", "job lease ran out before its outcome was written", { id: job.id, kind: job.kind });
  return written.length === 1;
}

export function backoffWait(backoff: Backoff, failedAttempt: number): number {
  if (Array.isArray(backoff)) {
    const list = backoff as readonly number[];
    return list[failedAttempt - 1] ?? list.at(-1) ?? 0;
  }
  const { baseMs, maxMs } = backoff as { baseMs: number; maxMs: number };
  return Math.min(maxMs, baseMs * 2 ** Math.min(30, failedAttempt - 1));
}

async function runDue(kind: string, stop: () => boolean = () => false): Promise<JobRound> {
  const reg = registered(kind);
  const round: JobRound = { done: 0, retrying: 0, dead: 0, outcomes: {} };
  while (!stop()) {
    const s = reg.settings;
    const job = await claimJob(kind, s.leaseMs, s.turnsBy);
    if (!job) break;
    const outcome = await runOne(reg, s, job);
    // The job's group may have another job due now, for a loop that found none of its own.
    if (s.turnsBy && reg.loops.length > 1) kickAll(reg);
    if (outcome === "lost") continue;
    if (outcome === "retrying" || outcome === "dead") round[outcome]++;
    else {
      round.done++;
      if (outcome) round.outcomes[outcome] = (round.outcomes[outcome] ?? 0) + 1;
    }
  }
  return round;
}

type Outcome = string | "retrying" | "dead" | "lost" | undefined;

async function runOne(reg: Registered, s: Settings, job: JobRow): Promise<Outcome> {
  const controller = new AbortController();
  const ctx: JobContext = {
    id: job.id,
    kind: job.kind,
    key: job.key,
    attempt: job.attempts,
    maxAttempts: s.maxAttempts,
    lastError: job.lastError,
    createdAt: job.createdAt,
    signal: controller.signal,
  };
  const payload = JSON.parse(job.payload) as unknown;
  const who = { id: job.id, kind: job.kind, attempt: job.attempts };
  const failed = { failures: sql`${jobs.failures} + 1` };
  const giveUp = async (lastError: string, attemptFailed: boolean): Promise<Outcome> => {
    try {
      await s.onDead?.(payload, { ...ctx, lastError });
    } catch (err) {
      log("error", "a dead job's hook failed", { ...who, error: describe(err) });
    }
    const written = await settle(job, {
      state: "dead",
      lastError,
      finishedAt: new Date(),
      ...(attemptFailed ? failed : {}),
    });
    log("error", "job dead", { ...who, error: lastError });
    return written ? "dead" : "lost";
  };
  // Its runner died during what was to be the last attempt: that attempt is not made again.
  if (job.attempts > s.maxAttempts)
    return giveUp(job.lastError ?? "the runner stopped during the last attempt", false);

  reg.running.add(controller);
  const renewal = setInterval(
    () => {
      db()
        .update(jobs)
        .set({ leasedUntil: new Date(Date.now() + s.leaseMs) })
        .where(held(job))
        .returning({ id: jobs.id })
        .then((r) => {
          if (!r.length) controller.abort(new Error("the job's lease was lost"));
        })
        .catch(() => {});
    },
    Math.max(10, Math.floor(s.leaseMs / 3)),
  ).unref();
  let result: string | void;
  try {
    result = await s.run(payload, ctx);
  } catch (err) {
    clearInterval(renewal);
    reg.running.delete(controller);
    const lastError = s.describeError(err);
    if (err instanceof JobInterrupted) {
      const written = await settle(job, {
        state: "queued",
        runAt: new Date(Date.now() + INTERRUPTED_WAIT_MS),
        attempts: sql`${jobs.attempts} - 1`,
        lastError,
      });
      log("info", "job interrupted; queued again", { ...who, error: lastError });
      return written ? "retrying" : "lost";
    }
    if (job.attempts >= s.maxAttempts || err instanceof PermanentJobError) return giveUp(lastError, true);
    const wait = backoffWait(s.backoff, job.attempts);
    const written = await settle(job, {
      state: "queued",
      runAt: new Date(Date.now() + wait),
      lastError,
      ...failed,
    });
    log(job.attempts === 1 ? "error" : "warn", "job failed; will retry", {
      ...who,
      error: lastError,
      retryInMs: wait,
    });
    return written ? "retrying" : "lost";
  }
  clearInterval(renewal);
  reg.running.delete(controller);
  const written = await settle(job, { state: "done", finishedAt: new Date() });
  return written ? (result ?? undefined) : "lost";
}

// ---------------------------------------------------------------------------------------------
// This process's loops

/** Starts a loop per registered kind (or the ones named), each polling at its kind's pace. */
export function startJobs(only?: readonly string[]): void {
  for (const [kind, reg] of kinds)
    if (!only || only.includes(kind)) for (const l of reg.loops) l.start(reg.settings.pollMs);
}

/**
 * Drains this process's runner: no loop claims again, and the running handlers are waited for up
 * to `boundMs`; past it they are told to stop (their signal aborts) and left — their jobs go back
 * to any runner when their leases end. Resolves when every loop stopped or the bound passed.
 */
export async function stopJobs(boundMs = 10_000): Promise<void> {
  const stopped = Promise.all([...kinds.values()].flatMap((reg) => reg.loops.map((l) => l.stop())));
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    stopped.then(() => false),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(true), boundMs).unref())),
  ]);
  clearTimeout(timer);
  if (!late) return;
  const left = [...kinds.values()].flatMap((reg) => [...reg.running]);
  log("warn", "jobs still running at shutdown were told to stop", { running: left.length });
  for (const c of left) c.abort(new Error("the process is stopping"));
}

// ---------------------------------------------------------------------------------------------
// What admins see and do

export type JobFigures = {
  kind: string;
  queued: number;
  running: number;
  dead: number;
  /** Age of the oldest queued job (0: none), seconds. */
  oldestWaitingSeconds: number;
  /** Failed attempts of the jobs kept (finished jobs are pruned after DONE_JOBS_KEPT_MS). */
  failures: number;
};

/** The same figures for every kind (the registered ones, and any other found in the table). */
export async function jobFigures(now = Date.now()): Promise<JobFigures[]> {
  const [counts, failed] = await Promise.all([
    db()
      .select({ kind: jobs.kind, state: jobs.state, n: count() })
      .from(jobs)
      .where(inArray(jobs.state, ["queued", "running", "dead"]))
      .groupBy(jobs.kind, jobs.state),
    db()
      .select({ kind: jobs.kind, n: sql<number>`coalesce(sum(${jobs.failures}), 0)`.mapWith(Number) })
      .from(jobs)
      .groupBy(jobs.kind),
  ]);
  const all = [
    ...new Set([...kinds.keys(), ...counts.map((c) => c.kind), ...failed.map((f) => f.kind)]),
  ].sort();
  return Promise.all(
    all.map(async (kind) => {
      const n = (state: JobState) => counts.find((c) => c.kind === kind && c.state === state)?.n ?? 0;
      const oldest = n("queued")
        ? await first(
            db()
              .select({ createdAt: jobs.createdAt })
              .from(jobs)
              .where(and(eq(jobs.kind, kind), eq(jobs.state, "queued")))
              .orderBy(jobs.createdAt),
          )
        : undefined;
      return {
        kind,
        queued: n("queued"),
        running: n("running"),
        dead: n("dead"),
        oldestWaitingSeconds: oldest ? Math.max(0, Math.floor((now - oldest.createdAt.getTime()) / 1000)) : 0,
        failures: failed.find((f) => f.kind === kind)?.n ?? 0,
      };
    }),
  );
}

/** A dead job asked for again: its attempts start over now (its last error kept until then). */
export async function retryDeadJob(id: string): Promise<JobRow | undefined> {
  const [row] = await db()
    .update(jobs)
    .set({ state: "queued", attempts: 0, runAt: new Date(), finishedAt: null })
    .where(and(eq(jobs.id, id), eq(jobs.state, "dead")))
    .returning();
  const reg = row && kinds.get(row.kind);
  if (reg) kickAll(reg);
  return row;
}
