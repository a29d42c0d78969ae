import { and, desc, eq, isNull, lt } from "drizzle-orm";
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
import { backgroundLoop, DomainError, type Actor } from "../platform/index.server";
import { stageBackup } from "./backup-stage.server";
import { Unverified, verifySnapshot } from "./backup-verify.server";
import { ensureRepository, interruptRestic, restic, resticBackup, RESTIC_TAG } from "./restic.server";

/**
 * Backups nobody has to remember (decision 0067). One run: the backup folder is put together in
 * the installation's fixed staging folder, stored with `restic backup` into BACKUP_REPOSITORY
 * (created on first use), verified (backup-verify.server.ts), and only then are old snapshots
 * forgotten and pruned (BACKUP_KEEP_*): an unverified backup never costs a good one. Each run is
 * a `backup_runs` row; a failed or unverified one mails the admins once.
 *
 * The schedule: every owner process (one per node) looks each minute for the latest due slot
 * (BACKUP_AT clinic time, then every BACKUP_EVERY_HOURS); inserting the slot's row claims it (the
 * unique slot decides between nodes), so each slot runs once, and a slot missed while the app was
 * down runs at the next start.
 */

export type BackupTrigger = "scheduled" | "manual" | "upgrade";
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

/** One backup at a time on this machine: a lock file next to the staging folder (a dead holder's is taken over). */
function lockStaging(): () => void {
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

async function claimRun(trigger: BackupTrigger, slot: number | null): Promise<BackupRun | undefined> {
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

async function finish(run: BackupRun, values: Partial<BackupRun>): Promise<BackupRun> {
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
async function alertAdmins(run: BackupRun): Promise<Date | null> {
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
  opts: { trigger?: BackupTrigger; claimed?: BackupRun } = {},
): Promise<BackupRun & { phasesMs: Record<string, number> }> {
  const run = opts.claimed ?? (await claimRun(opts.trigger ?? "manual", null))!;
  const b = config().backup;
  let release: (() => void) | undefined;
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
    release = lockStaging();
    rmSync(b.stagingDir, { recursive: true, force: true });
    const manifest = await stageBackup(b.stagingDir);
    phase("stage");
    await ensureRepository();
    const summary = await resticBackup(b.stagingDir);
    phase("store");
    stored = {
      snapshotId: summary.snapshotId,
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

/** One look at the schedule: runs the due slot's backup when this process claims it. */
export async function backupTick(now = Date.now()): Promise<BackupRun | null> {
  await endStaleRuns(now);
  const slot = dueSlot(now);
  if (slot === null) return null;
  const claimed = await claimRun("scheduled", slot);
  return claimed ? runBackup({ claimed }) : null;
}

const scheduler = backgroundLoop("backup", () => backupTick());

/** Starts this process's look at the schedule (owner processes only; idempotent). */
export function startBackupScheduler(): void {
  if (config().backup.atMinute !== null) scheduler.start(POLL_MS);
}

/** At shutdown: no new look at the schedule, and a backup under way is interrupted (its row says so). */
export function stopBackupScheduler(): Promise<void> {
  const stopped = scheduler.stop();
  interruptRestic();
  return stopped;
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
      .where(eq(backupRuns.status, "verified"))
      .orderBy(desc(backupRuns.finishedAt)),
  );
  return row?.at ?? null;
}

export type BackupOverview = {
  runs: BackupRun[];
  /** BACKUP_AT ("02:30") and BACKUP_EVERY_HOURS, or null when the app schedules nothing. */
  schedule: { at: string; everyHours: number } | null;
  keep: { daily: number; weekly: number; monthly: number };
};

/** The Service screen's backup section (admins). */
export async function backupOverview(actor: Actor): Promise<BackupOverview> {
  const runs = await listBackupRuns(actor);
  const b = config().backup;
  return {
    runs,
    schedule: b.atMinute === null ? null : { at: b.at, everyHours: b.everyHours },
    keep: b.keep,
  };
}
