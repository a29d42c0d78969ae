import { and, desc, eq, gt, inArray, isNull, lt, ne } from "drizzle-orm";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { backupRuns, users, type BackupRunRow } from "~/db/schema";
import { wallClock, zonedInstant } from "~/lib/clock";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { notify, recipientColumns } from "../messaging/index.server";
import {
  audit,
  defineSchedule,
  DomainError,
  waitForJob,
  type Actor,
  type Client,
  type JobContext,
} from "../platform/index.server";
import { stageBackup } from "./backup-stage.server";
import { Unverified, verifySnapshot } from "./backup-verify.server";
import {
  ensureRepository,
  interruptRestic,
  restic,
  resticBackup,
  RESTIC_TAG,
  resumeRestic,
} from "./restic.server";

/**
 * Backups nobody has to remember (decision 0067). One run: the backup folder is put together in
 * the installation's fixed staging folder, stored with `restic backup` into BACKUP_REPOSITORY
 * (created on first use), verified (backup-verify.server.ts), and only then are old snapshots
 * forgotten and pruned (BACKUP_KEEP_*): an unverified backup never costs a good one. Each run is
 * a `backup_runs` row; a failed or unverified one mails the admins once.
 *
 * The schedule is the one runner's (decision 0113): every owner process (one per node) looks each
 * minute for the latest due slot (BACKUP_AT clinic time, then every BACKUP_EVERY_HOURS) and asks
 * for its job (kind "backup", keyed by the slot: every node asking is the same job), which one
 * process runs; the slot's unique row stays the last word between nodes. A slot missed while the
 * app was down runs at the next start. `npm run backup` while a backup runs joins it: it waits
 * for that run (its job) and reports its result instead of failing on the staging lock.
 */

export type BackupTrigger = "scheduled" | "manual" | "upgrade" | "restore-test";
export type BackupRun = BackupRunRow;

const POLL_MS = 60_000;
/** A run still "running" after this is taken to have died with its process. */
const STALE_MS = 6 * 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The latest scheduled time at or before `now`, or null when the app schedules nothing. BACKUP_AT
 * is the clinic's time (CLINIC_TIME_ZONE, decision 0092), not the server's.
 */
export function dueSlot(now: number): number | null {
  const { backup: b, clinic } = config();
  if (b.atMinute === null) return null;
  const today = wallClock(now, clinic.timeZone);
  const at = (dayOffset: number) =>
    zonedInstant(clinic.timeZone, { ...today, day: today.day + dayOffset, hour: 0, minute: b.atMinute! });
  let start = at(0);
  if (start > now) start = at(-1);
  const step = b.everyHours * 3_600_000;
  return start + Math.floor(Math.min(now - start, DAY_MS - 1) / step) * step;
}

/**
 * One backup job (a backup or a restore test) at a time on this machine: a lock file next to the
 * staging folder (a dead holder's is taken over). Throws when another job holds it.
 */
export function lockStaging(): () => void {
  const file = `${config().backup.stagingDir}.lock`;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number(readFileSync(file, "utf8"));
      try {
        if (pid && pid !== process.pid) process.kill(pid, 0);
        throw new Error(`another backup is running (process ${pid})`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e;
        unlinkSync(file); // its process is gone
      }
    }
  }
  throw new Error("the backup lock could not be taken");
}

export async function claimRun(trigger: BackupTrigger, slot: number | null): Promise<BackupRun | undefined> {
  const b = config().backup;
  const [row] = await db()
    .insert(backupRuns)
    .values({
      id: newId(),
      slot: slot === null ? null : new Date(slot),
      trigger,
      status: "running",
      node: hostname(),
      repository: b.repository,
      startedAt: new Date(),
    })
    .onConflictDoNothing()
    .returning();
  return row;
}

export async function finish(run: BackupRun, values: Partial<BackupRun>): Promise<BackupRun> {
  const finishedAt = new Date();
  const [row] = await db()
    .update(backupRuns)
    .set({ ...values, finishedAt, durationMs: finishedAt.getTime() - run.startedAt.getTime() })
    .where(eq(backupRuns.id, run.id))
    .returning();
  return row;
}

/** Forgets snapshots past the retention and prunes their data (after a verified backup only). */
async function applyRetention(): Promise<void> {
  const k = config().backup.keep;
  await restic([
    "forget",
    "--tag",
    RESTIC_TAG,
    "--keep-daily",
    String(k.daily),
    "--keep-weekly",
    String(k.weekly),
    "--keep-monthly",
    String(k.monthly),
    "--prune",
  ]);
}

/** Mails the admins about a failed or unverified run, once (the first to set `alertedAt` sends). */
export async function alertAdmins(run: BackupRun): Promise<Date | null> {
  const alertedAt = new Date();
  const won = await db()
    .update(backupRuns)
    .set({ alertedAt })
    .where(and(eq(backupRuns.id, run.id), isNull(backupRuns.alertedAt)))
    .returning({ id: backupRuns.id });
  if (!won.length) return null;
  const admins = await db()
    .select(recipientColumns)
    .from(users)
    .where(and(eq(users.accountType, "Admin"), isNull(users.suspendedAt)));
  for (const admin of admins)
    notify(admin, {
      subject: run.status === "failed" ? "backups.mailFailedSubject" : "backups.mailUnverifiedSubject",
      body: run.status === "failed" ? "backups.mailFailedBody" : "backups.mailUnverifiedBody",
      action: "backups.mailAction",
      path: "/dashboard/service",
      vars: { reason: run.reason ?? "", repository: run.repository },
    });
  return alertedAt;
}

/**
 * Takes one backup now (the scheduled job and `npm run backup` both call this): the run's row
 * (claimed already for a scheduled slot), then stage, store, verify, retention. Never throws for
 * a failed backup: the row says what happened.
 */
export async function runBackup(
  opts: { trigger?: BackupTrigger; claimed?: BackupRun; locked?: () => void } = {},
): Promise<BackupRun & { phasesMs: Record<string, number> }> {
  const run = opts.claimed ?? (await claimRun(opts.trigger ?? "manual", null))!;
  const b = config().backup;
  let release: (() => void) | undefined = opts.locked;
  let stored: Partial<BackupRun> = {};
  let result: BackupRun;
  // How long each step took (the log line and `npm run backup` say so; the row keeps the total).
  const phasesMs: Record<string, number> = {};
  let mark = Date.now();
  const phase = (name: string) => {
    const now = Date.now();
    phasesMs[name] = now - mark;
    mark = now;
  };
  try {
    release ??= lockStaging();
    rmSync(b.stagingDir, { recursive: true, force: true });
    const manifest = await stageBackup(b.stagingDir);
    phase("stage");
    await ensureRepository();
    // restic dates a snapshot when its backup starts: this moment, to the second.
    const snapshotAt = new Date();
    const summary = await resticBackup(b.stagingDir);
    phase("store");
    stored = {
      snapshotId: summary.snapshotId,
      snapshotAt,
      sizeBytes: summary.totalBytes,
      addedBytes: summary.addedBytes,
      files: manifest.files,
    };
    rmSync(b.stagingDir, { recursive: true, force: true });
    await verifySnapshot(summary.snapshotId, manifest);
    phase("verify");
    let reason: string | null = null;
    try {
      await applyRetention();
    } catch (err) {
      reason = `verified; old snapshots not pruned: ${(err as Error).message}`;
      log("error", "backup retention failed", { error: (err as Error).message });
    }
    phase("retention");
    result = await finish(run, { ...stored, status: "verified", reason });
    log("info", "backup verified", { snapshot: stored.snapshotId, ...phasesMs });
  } catch (err) {
    const unverified = err instanceof Unverified;
    const reason = (err as Error)?.message ?? String(err);
    log("error", unverified ? "backup not verified" : "backup failed", { error: reason });
    result = await finish(run, { ...stored, status: unverified ? "unverified" : "failed", reason });
    const alertedAt = await alertAdmins(result).catch((e) => {
      log("error", "backup alert failed", { error: String(e) });
      return null;
    });
    result = { ...result, alertedAt };
  } finally {
    rmSync(b.stagingDir, { recursive: true, force: true });
    release?.();
  }
  return { ...result, phasesMs };
}

/** Marks runs whose process died as failed (and mails about them once). */
async function endStaleRuns(now: number): Promise<void> {
  const stale = await db()
    .update(backupRuns)
    .set({
      status: "failed",
      reason: "interrupted (the process running it stopped)",
      finishedAt: new Date(now),
    })
    .where(and(eq(backupRuns.status, "running"), lt(backupRuns.startedAt, new Date(now - STALE_MS))))
    .returning();
  for (const run of stale) await alertAdmins(run);
}

// ---------------------------------------------------------------------------------------------
// The schedule on the runner (decision 0113)

export const BACKUP_KIND = "backup";

/**
 * The slot's backup (the schedule's job). Taken again after its process died mid-way, the slot's
 * run is ended as interrupted (and mailed about once); it is not run a second time.
 */
async function runSlot(slot: number, ctx: JobContext): Promise<string> {
  await endStaleRuns(Date.now());
  const claimed = await claimRun("scheduled", slot);
  if (claimed) return (await runBackup({ claimed })).status;
  const run = await slotRun(slot);
  if (ctx.attempt > 1 && run?.status === "running") {
    const ended = await finish(run, {
      status: "failed",
      reason: "interrupted (the process running it stopped)",
    });
    await alertAdmins(ended);
    return "interrupted";
  }
  return "taken";
}

/** Each owner process looks each minute for the due slot; the slot's job is one for all nodes. */
const backupSchedule = defineSchedule(BACKUP_KIND, {
  run: runSlot,
  everyMs: () => config().backup.everyHours * 3_600_000,
  // Each look also ends the runs left "running" by a process that died (the admins are told).
  slotAt: async (now) => {
    await endStaleRuns(now);
    return dueSlot(now);
  },
  lookMs: () => POLL_MS,
  maxAttempts: 2,
  backoff: [60_000],
});

async function slotRun(slot: number): Promise<BackupRun | undefined> {
  return first(
    db()
      .select()
      .from(backupRuns)
      .where(eq(backupRuns.slot, new Date(slot))),
  );
}

/**
 * One look at the schedule, run here (tests; the loop of an owner process does it otherwise):
 * the due slot's backup when this look asked for its job first, else null.
 */
export async function backupTick(now = Date.now()): Promise<BackupRun | null> {
  const asked = await backupSchedule.askDue(now);
  if (!asked || asked.joined) return null;
  await backupSchedule.job.runDue();
  return (await slotRun(dueSlot(now)!)) ?? null;
}

/**
 * A backup now (`npm run backup`): while a backup runs (the schedule's, or one started on the
 * Service screen), it waits for that run and gives its result (`joined`); otherwise it takes one.
 */
export async function backupOrJoin(): Promise<
  BackupRun & { phasesMs?: Record<string, number>; joined: boolean }
> {
  const running = await first(
    db()
      .select()
      .from(backupRuns)
      .where(
        and(
          eq(backupRuns.status, "running"),
          inArray(backupRuns.trigger, ["scheduled", "manual"]),
          gt(backupRuns.startedAt, new Date(Date.now() - STALE_MS)),
        ),
      )
      .orderBy(desc(backupRuns.startedAt)),
  );
  if (!running) return { ...(await runBackup({ trigger: "manual" })), joined: false };
  log("info", "a backup is running: waiting for it", { run: running.id, trigger: running.trigger });
  // The schedule's run: its job, joined by the slot's key (the same job; it is not run twice).
  const job = running.slot ? await backupSchedule.ask(running.slot.getTime()) : undefined;
  for (;;) {
    if (job && (await waitForJob(job.id, { timeoutMs: 5_000, pollMs: 500 }))) break;
    if (!job) await new Promise((r) => setTimeout(r, 1_000));
    const now = await first(db().select().from(backupRuns).where(eq(backupRuns.id, running.id)));
    if (!now || now.status !== "running") break;
  }
  const run = (await first(db().select().from(backupRuns).where(eq(backupRuns.id, running.id))))!;
  return { ...run, joined: true };
}

/** Jobs an admin started from the Service screen, still running in this process. */
const startedByHand = new Set<Promise<unknown>>();

/** Runs a job an admin started after the answer went out; shutdown waits for it (interrupted). */
export function inBackground(job: Promise<unknown>): void {
  const tracked = job
    .catch((err) => log("error", "backup job failed", { error: String((err as Error)?.message ?? err) }))
    .finally(() => startedByHand.delete(tracked));
  startedByHand.add(tracked);
}

/** The lock of this machine's backup jobs, or the refusal an admin sees: one is running. */
export function lockOrRefuse(): () => void {
  try {
    return lockStaging();
  } catch (err) {
    if (/another backup is running/.test((err as Error).message))
      throw new DomainError("conflict", "backups.busy");
    throw err;
  }
}

/**
 * "Back up now" on the Service screen (decision 0091): the same run as the schedule's, started by
 * an admin and recorded as by hand. Refused while another backup or restore test runs here; the
 * answer does not wait for it (the run's row says how it went).
 */
export async function startBackupNow(actor: Actor, client: Client): Promise<BackupRun> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  const locked = lockOrRefuse();
  let run: BackupRun;
  try {
    run = (await claimRun("manual", null))!;
    await audit(actor, "backup.started", "backup", run.id, {}, client.ip);
  } catch (err) {
    locked();
    throw err;
  }
  inBackground(runBackup({ claimed: run, locked }));
  return run;
}

/**
 * Starts this process's look at the schedule (owner processes only; idempotent): the kind's loop
 * and, each minute, the due slot's job asked for. BACKUP_AT=off: neither.
 */
export function startBackupScheduler(): void {
  resumeRestic();
  if (config().backup.atMinute === null) return;
  backupSchedule.start();
}

/** At shutdown: no new look at the schedule, and a backup under way is interrupted (its row says so). */
export async function stopBackupScheduler(): Promise<void> {
  const stopped = backupSchedule.stop();
  interruptRestic();
  await Promise.all([stopped, ...startedByHand]);
}

/** The last runs, newest first (admins). */
export async function listBackupRuns(actor: Actor, limit = 30): Promise<BackupRun[]> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  return db().select().from(backupRuns).orderBy(desc(backupRuns.startedAt)).limit(limit);
}

/** When the newest verified backup finished (for /metrics), or null. */
export async function lastVerifiedBackup(): Promise<Date | null> {
  const row = await first(
    db()
      .select({ at: backupRuns.finishedAt })
      .from(backupRuns)
      // A restore test proves an older snapshot, not a new backup.
      .where(and(eq(backupRuns.status, "verified"), ne(backupRuns.trigger, "restore-test")))
      .orderBy(desc(backupRuns.finishedAt)),
  );
  return row?.at ?? null;
}

export type BackupOverview = {
  runs: BackupRun[];
  /** BACKUP_AT ("02:30") and BACKUP_EVERY_HOURS, or null when the app schedules nothing. */
  schedule: { at: string; everyHours: number } | null;
  /** The clinic's time zone, which BACKUP_AT is in (decision 0092). */
  timeZone: string;
  /** A backup or a restore test is running on this machine now. */
  busy: boolean;
  keep: { daily: number; weekly: number; monthly: number };
};

/** The Service screen's backup section (admins). */
export async function backupOverview(actor: Actor): Promise<BackupOverview> {
  const runs = await listBackupRuns(actor);
  const { backup: b, clinic } = config();
  return {
    runs,
    schedule: b.atMinute === null ? null : { at: b.at, everyHours: b.everyHours },
    timeZone: clinic.timeZone,
    busy: runs.some((r) => r.status === "running"),
    keep: b.keep,
  };
}
