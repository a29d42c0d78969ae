import { mkdirSync } from "node:fs";
import { config } from "~/config.server";
import { closeDatabase, db } from "~/db/client.server";
import { log, trackRequestStart } from "~/utils/log.server";
import { pruneAccountsTables } from "./accounts.server";
import { sweepLeftovers } from "./files.server";
import { flushMail } from "./mail.server";
import { pruneExpiredSessions } from "./sessions.server";
import { ensureAdmin } from "./users.server";

let started = false;

/** Expired sessions, codes and reset tokens are removed at start-up and then hourly. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

function prune() {
  try {
    pruneExpiredSessions();
    pruneAccountsTables();
  } catch (err) {
    log("error", "prune failed", { error: String(err) });
  }
}

/**
 * Start-up work. The process that owns the data (remix-serve's one process, our server's
 * single process or its cluster primary) validates config, creates folders, migrates,
 * bootstraps the admin, sweeps leftovers and prunes hourly; a cluster worker only opens the
 * database (the primary migrated it before forking), so scheduled work runs once.
 */
export function startup() {
  if (started) return;
  started = true;
  const c = config();
  const owner = c.serverRole !== "worker";
  if (owner) {
    mkdirSync(c.uploadsDir, { recursive: true });
    mkdirSync(c.outboxDir, { recursive: true, mode: 0o700 });
  }
  db(); // opens the database and applies pending migrations (none left in a worker)
  if (c.serverRole === "basic") process.once("exit", closeDatabase); // our server closes it itself
  trackRequestStart();
  if (!owner) return;
  prune();
  setInterval(prune, PRUNE_EVERY_MS).unref(); // never keeps a stopping server alive
  // Nothing is in flight at start-up, so every leftover counts as old (a crash mid-upload leaves .part files).
  sweepLeftovers(Date.now() + 24 * 60 * 60 * 1000).catch((err) =>
    log("error", "start-up sweep failed", { error: String(err) }),
  );
  if (c.adminEmail && c.adminPassword) {
    ensureAdmin({ email: c.adminEmail, password: c.adminPassword })
      .then((created) => created && log("info", "admin created", { email: c.adminEmail }))
      .catch((err) => console.error("Admin bootstrap failed:", err));
  }
}

/** The end of a process of our server: pending work finished, the database closed (last one checkpoints). */
export async function shutdown() {
  // Background mails (reset links, notices) still on their way go out before the process ends.
  await Promise.race([flushMail(), new Promise((r) => setTimeout(r, 10_000).unref())]);
  closeDatabase();
}
