import {
  audit,
  deadJobs,
  dropDeadJob,
  DomainError,
  jobFigures,
  retryDeadJob,
  type Actor,
  type Client,
  type JobFigures,
} from "../platform/index.server";

/*
 * The one runner's work as the admins see it on the Service screen (decision 0113): each kind's
 * queue, and the jobs that failed for good, each retried or dropped by an admin — a line in the
 * audit log either way. What a job carries (its payload) is never shown: a reminder's names a
 * patient and a step, a mail's its address; the kind, the attempts and the last error are enough
 * to decide.
 */

export type DeadJobView = {
  id: string;
  kind: string;
  attempts: number;
  lastError: string | null;
  finishedAt: string | null;
};

export type BackgroundWork = { kinds: JobFigures[]; dead: DeadJobView[] };

/** How many dead jobs the screen lists (the newest; the count per kind says how many there are). */
const DEAD_LISTED = 50;

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
}

export async function backgroundWork(actor: Actor): Promise<BackgroundWork> {
  requireAdmin(actor);
  const [kinds, dead] = await Promise.all([jobFigures(), deadJobs({ limit: DEAD_LISTED })]);
  return {
    kinds,
    dead: dead.map((j) => ({
      id: j.id,
      kind: j.kind,
      attempts: j.attempts,
      // An error's first line, bounded: a stack or a long answer body is for the log.
      lastError: j.lastError ? j.lastError.split("\n")[0]!.slice(0, 300) : null,
      finishedAt: j.finishedAt ? j.finishedAt.toISOString() : null,
    })),
  };
}

/** A dead job asked for again (its attempts start over), or dropped; not dead (any more): not found. */
export async function settleDeadJob(
  actor: Actor,
  id: unknown,
  how: "retry" | "drop",
  client: Client,
): Promise<void> {
  requireAdmin(actor);
  const jobId = typeof id === "string" ? id.slice(0, 100) : "";
  const row = jobId ? await (how === "retry" ? retryDeadJob(jobId) : dropDeadJob(jobId)) : undefined;
  if (!row) throw new DomainError("not_found", "service.work.notDead");
  await audit(
    actor,
    how === "retry" ? "job.retried" : "job.dropped",
    "job",
    row.id,
    { kind: row.kind },
    client.ip,
  );
}
