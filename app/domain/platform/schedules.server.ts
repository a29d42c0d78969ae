import { and, eq, lt } from "drizzle-orm";
import { db } from "~/db/client.server";
import { jobs } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import {
  DONE_JOBS_KEPT_MS,
  defineJobKind,
  type Backoff,
  type Enqueued,
  type JobContext,
  type JobKind,
} from "./jobs.server";

/**
 * Work on a clock, on the one runner (decision 0113): the backups' slots, the hourly housekeeping,
 * the rights job, the step reminders' scan, the Service screen's samples. Each period (a "slot") is
 * one job of the schedule's kind, keyed by the slot, so every process that asks for it asks for
 * the same job and one of them runs it, once, with the runner's lease, retries, dead state and
 * figures. Each process running the schedule looks every `lookMs` and asks for the slot due then.
 * A schedule whose work is the process's own (its node's leftover files) is keyed by the process
 * too. `atStart`: also once when the process starts the schedule, whatever the slot (work a
 * restart must not leave an hour undone).
 */

export type ScheduleOptions = {
  /** The work of one slot (`slot`: its start, epoch ms); what it returns is counted like a job's. */
  run(slot: number, job: JobContext): Promise<string | void>;
  /** The period: one job per period. Read at each look (tests and settings may change it). */
  everyMs: () => number;
  /**
   * The slot due at `now` (default: the start of the period `now` is in); null: none is due. Run at
   * each look, so it may also look after the schedule's own rows (a run left behind by a dead process).
   */
  slotAt?: (now: number) => number | null | Promise<number | null>;
  /** How often each process asks for the due slot (default: each period, at most each minute). */
  lookMs?: () => number;
  /** One per process (its own files), not one per cluster. */
  perProcess?: boolean;
  /** Also once when this process starts the schedule. */
  atStart?: boolean;
  /** Attempts per slot (default 2) and the waits between them (default a minute). */
  maxAttempts?: number;
  backoff?: Backoff;
  leaseMs?: number;
  pollMs?: number;
};

export type Schedule = {
  readonly kind: string;
  readonly job: JobKind<{ slot: number }>;
  /** Asks for `slot`'s job (the one every process asks for): joined when already asked. */
  ask(slot: number): Promise<Enqueued>;
  /** Asks for the slot due now, if any. */
  askDue(now?: number): Promise<Enqueued | null>;
  /** Starts this process's looks and the kind's loop (idempotent). */
  start(): void;
  /** Stops the looks and the loop (waiting for a running slot). */
  stop(): Promise<void>;
  /** Looks at a new `lookMs()` from now on, if started (tests' short waits). */
  relook(): void;
};

/** This process, for the schedules whose work is its own. */
const PROCESS = newId();

const MINUTE = 60_000;

type Registered = { keepMs: () => number };
const schedules = new Map<string, Registered>();

export function defineSchedule(kind: string, options: ScheduleOptions): Schedule {
  const slotAt = options.slotAt ?? ((now: number) => now - (now % options.everyMs()));
  const lookMs = options.lookMs ?? (() => Math.min(options.everyMs(), MINUTE));
  const keyOf = (slot: number) => `${options.perProcess ? `${PROCESS}@` : ""}${new Date(slot).toISOString()}`;
  const job = defineJobKind<{ slot: number }>(kind, {
    run: ({ slot }, ctx) => options.run(slot, ctx),
    maxAttempts: options.maxAttempts ?? 2,
    backoff: options.backoff ?? [MINUTE],
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
  });
  // A done slot is kept while any process may still ask for it (two periods), then pruned.
  schedules.set(kind, { keepMs: () => Math.min(DONE_JOBS_KEPT_MS, Math.max(2 * options.everyMs(), MINUTE)) });
  let timer: NodeJS.Timeout | undefined;
  const ask = (slot: number) => job.enqueue({ slot }, { key: keyOf(slot) });
  const askDue = async (now = Date.now()) => {
    const slot = await slotAt(now);
    return slot === null ? null : ask(slot);
  };
  const look = () =>
    void askDue().catch((err) =>
      log("error", `${kind} not asked for`, { error: String((err as Error)?.message ?? err) }),
    );
  const schedule: Schedule = {
    kind,
    job,
    ask,
    askDue,
    start() {
      job.start();
      if (timer) return;
      if (options.atStart)
        void job
          .enqueue({ slot: Date.now() }, { key: `${PROCESS}@start` })
          .catch((err) => log("error", `${kind} at start not asked for`, { error: String(err) }));
      look();
      timer = setInterval(look, lookMs()).unref();
    },
    relook() {
      if (!timer) return;
      clearInterval(timer);
      look();
      timer = setInterval(look, lookMs()).unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await job.stop();
    },
  };
  return schedule;
}

/** The schedules' finished slots no process asks for any more are deleted (the hourly prune). */
export async function pruneScheduleJobs(now = Date.now()): Promise<number> {
  let gone = 0;
  for (const [kind, s] of schedules) {
    const deleted = await db()
      .delete(jobs)
      .where(
        and(eq(jobs.kind, kind), eq(jobs.state, "done"), lt(jobs.finishedAt, new Date(now - s.keepMs()))),
      )
      .returning({ id: jobs.id });
    gone += deleted.length;
  }
  return gone;
}
