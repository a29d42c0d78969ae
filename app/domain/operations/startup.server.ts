import { mkdirSync } from "node:fs";
import { config } from "~/config.server";
import { boundStatements, closeDatabase, db, migrateDatabase, runExclusive } from "~/db/client.server";
import { diskSpace } from "~/storage/disk.server";
import { blobStore } from "~/storage/factory.server";
import { log, trackRequestStart } from "~/lib/log.server";
import { endOutsidePrograms, removeDeadScratch } from "~/lib/programs.server";
import { pruneAccountsTables, pruneExpiredSessions, ensureAdmin } from "../accounts/index.server";
import {
  startLabReader,
  startPacsSender,
  stopLabReader,
  stopPacsSender,
  sweepLeftovers,
} from "../records/index.server";
import { flushMail, startMailSender, startSmsSender } from "../messaging/index.server";
import {
  defineSchedule,
  pruneIdempotencyKeys,
  pruneJobs,
  pruneRateLimits,
  pruneScheduleJobs,
  stopJobs,
} from "../platform/index.server";
import { startRightsJob, stopRightsJob } from "../rights/index.server";
import {
  sendOverdueDigest,
  sendStepsDigest,
  startStepReminders,
  stopStepReminders,
  sweepUploads,
} from "../consultation/index.server";
import {
  pruneServiceRollups,
  startGaugeSampler,
  startRequestRollups,
  stopServiceRollups,
} from "./service.server";
import { startBackupScheduler, stopBackupScheduler } from "./backups.server";
import { startCalls, stopCalls } from "../calls/index.server";

let started: Promise<void> | undefined;

/**
 * Hourly: expired sessions, codes, reset tokens, rate-limit counters and idempotency keys older
 * than 7 days are removed, resumable
 * uploads idle for a day (with their segments) and leftover files too, and admins get the digest
 * of newly overdue reports.
 */
const HOURLY_MS = 60 * 60 * 1000;

/** The hourly work; with several nodes on one PostgreSQL, one node at a time does it (advisory lock). */
async function hourly() {
  try {
    await runExclusive("prune", async () => {
      await pruneExpiredSessions();
      await pruneAccountsTables();
      await pruneRateLimits();
      await pruneIdempotencyKeys();
      await pruneJobs();
      await pruneServiceRollups();
    });
  } catch (err) {
    log("error", "prune failed", { error: String(err) });
  }
  // Idle resumable uploads first (their segments go with them), then whatever else is left over.
  await sweepUploads().catch((err) => log("error", "upload session sweep failed", { error: String(err) }));
  await sweepLeftovers().catch((err) => log("error", "sweep failed", { error: String(err) }));
  await sendOverdueDigest().catch((err) => log("error", "overdue digest failed", { error: String(err) }));
  // Urgent next steps past due (decision 0114): once a clinic day, on the overdue digest's schedule.
  await sendStepsDigest().catch((err) => log("error", "steps digest failed", { error: String(err) }));
}

/** When this process started its housekeeping: its first hour is the next one (start-up did the rest). */
let housekeepingFrom = 0;

/**
 * The hourly work on the runner's clock (decision 0113): each owner process does its own (its
 * node's leftover files) at each hour, from the first hour after its start.
 */
const housekeeping = defineSchedule("housekeeping", {
  run: async () => {
    await hourly();
    await pruneScheduleJobs();
  },
  everyMs: () => HOURLY_MS,
  slotAt: (now) => {
    const slot = now - (now % HOURLY_MS);
    return slot > housekeepingFrom ? slot : null;
  },
  perProcess: true,
  maxAttempts: 1,
});

/**
 * Start-up work. The process that owns the data (remix-serve's one process, our server's single
 * process or its cluster primary) validates config, creates folders, migrates (on PostgreSQL under
 * an advisory lock, so nodes starting together migrate once), bootstraps the admin, sweeps
 * leftovers and schedules the hourly work; a cluster worker only opens the database (the primary
 * migrated it before forking). Every process starts the SMS sender. Resolves when the database is
 * ready for requests.
 */
export function startup(): Promise<void> {
  started ??= (async () => {
    const c = config();
    const owner = c.serverRole !== "worker";
    // Scratch folders a crashed or killed server left (a decrypted report among them); never those
    // of a live process, another server's on this machine included (decision 0103).
    removeDeadScratch().catch((err) => log("warn", "old scratch not removed", { error: String(err) }));
    if (owner) {
      if (c.storage.kind === "local") mkdirSync(c.storage.dir, { recursive: true });
      mkdirSync(c.outboxDir, { recursive: true, mode: 0o700 });
    }
    // A hung PostgreSQL holds no request longer than this (decision 0075); jobs and migrations run unbounded.
    boundStatements(c.databaseStatementTimeoutMs);
    db(); // opens the database (SQLite applies pending migrations here)
    if (owner) await migrateDatabase();
    // The configured admin exists before the node reports itself ready, so the first login
    // after start-up (an operator, a health-checked deploy, a test) never races its creation; made
    // before the background work starts, which on PostgreSQL holds connections of the same small
    // pool (three per process with three workers: the sweep, the prune and the rights job).
    if (owner && c.adminEmail && c.adminPassword) {
      await ensureAdmin({ email: c.adminEmail, password: c.adminPassword })
        .then((created) => created && log("info", "admin created", { email: c.adminEmail }))
        .catch((err) => console.error("Admin bootstrap failed:", err));
    }
    if (c.serverRole === "basic") process.once("exit", () => void closeDatabase()); // our server closes it itself
    trackRequestStart();
    // Every serving process (owner and workers) runs the runner's SMS and mail kinds (decisions
    // 0014, 0061, 0113); a job is held by one process at a time, so none is sent twice.
    startSmsSender();
    startMailSender();
    // Next steps' reminders (decision 0114): every process runs their jobs; the scan of each slot is one job.
    startStepReminders();
    // Studies waiting for the PACS (PACS_URL): claimed the same way, so each is sent once.
    startPacsSender();
    // Lab reports read off the request path (decision 0082): the runner's kind "lab-read" (0113),
    // run by the owner of each node only (two reads at once, in turns by account, 0100); a
    // worker's upload nudges its owner.
    if (owner) startLabReader();
    // The Service screen (decision 0034): processes that answer requests add their counts to the
    // rollups; the owner of each node samples the queues (one process of all nodes wins each minute).
    if (c.serverRole === "single" || c.serverRole === "worker") startRequestRollups(c.serviceFlushMs);
    if (owner) startGaugeSampler();
    // Scheduled backups (decision 0067): the owner of each node looks at the schedule; the slot's row picks one node.
    if (owner) startBackupScheduler();
    // Phone calls (decision 0080): the owner of each node places them, one claim at a time.
    if (owner) await startCalls();
    if (!owner) return;
    // The disk: read once, which also makes the space reserve next to a SQLite database (decision 0060).
    diskSpace().catch((err) => log("warn", "disk space not read", { error: String(err) }));
    // At start-up nothing is in flight in a local folder, so every leftover there counts as old
    // (a crash mid-upload leaves .part files). A shared bucket may hold other nodes' uploads in
    // flight: there only real ages count.
    const now = blobStore().kind === "local" ? Date.now() + 24 * 60 * 60 * 1000 : Date.now();
    sweepLeftovers(now).catch((err) => log("error", "start-up sweep failed", { error: String(err) }));
    runExclusive("prune", async () => {
      await pruneExpiredSessions();
      await pruneAccountsTables();
    }).catch((err) => log("error", "prune failed", { error: String(err) }));
    housekeepingFrom = Date.now();
    housekeeping.start();
    // Due erasures and audit retention (decision 0019), at start-up and then every RIGHTS_JOB_SECONDS (hourly).
    startRightsJob();
  })();
  return started;
}

/**
 * The end of a process of our server: pending work finished, every outside program it started
 * ended and its scratch removed, the database closed (last one checkpoints).
 */
export async function shutdown() {
  // Mail due now (reset links, notices) goes out before the process ends (what cannot go stays
  // queued for the next start or another process). The runner drains (decision 0113): no new
  // claims, the jobs running (the SMS being sent) finished within 10 s, else told to stop and
  // taken again by another process once their leases end.
  const work = Promise.all([
    flushMail(),
    stopJobs(10_000),
    stopPacsSender(),
    stopLabReader(),
    stopServiceRollups(),
    stopBackupScheduler(),
    stopCalls(),
    stopStepReminders(),
    housekeeping.stop(),
    stopRightsJob(),
  ]);
  // Every job has now been told to stop. The outside programs it still runs (a report being read,
  // the SIP line, a backup) are ended with their process groups and their scratch folders removed,
  // so nothing outlives the server; a read cut short is "interrupted" and read again later (decision 0103).
  const programs = endOutsidePrograms();
  await Promise.race([Promise.all([work, programs]), new Promise((r) => setTimeout(r, 12_000).unref())]);
  await programs; // bounded by the programs' graces (at most about 11 s)
  await closeDatabase();
}
