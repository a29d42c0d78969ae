import { and, count, eq, gte, like, lt, sql } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { jobs, type JobRow } from "~/db/schema";
import { DONE_JOBS_KEPT_MS } from "./jobs.server";

/*
 * The one runner's rows as admins and housekeeping read and remove them (decision 0113): the dead
 * jobs, dropping one, pruning the finished, and a kind's count of what was asked for.
 */

/** Dead jobs of every kind (or one), the newest first. */
export async function deadJobs(opts: { kind?: string; limit?: number } = {}): Promise<JobRow[]> {
  return db()
    .select()
    .from(jobs)
    .where(and(eq(jobs.state, "dead"), opts.kind ? eq(jobs.kind, opts.kind) : undefined))
    .orderBy(sql`${jobs.finishedAt} desc`, jobs.id)
    .limit(opts.limit ?? 100);
}

/** A dead job dropped: its row goes (the same key asked again is new work). */
export async function dropDeadJob(id: string): Promise<JobRow | undefined> {
  const [row] = await db()
    .delete(jobs)
    .where(and(eq(jobs.id, id), eq(jobs.state, "dead")))
    .returning();
  return row;
}

/** Finished jobs older than DONE_JOBS_KEPT_MS are deleted (dead ones wait for an admin). */
export async function pruneJobs(now = Date.now()): Promise<number> {
  const gone = await db()
    .delete(jobs)
    .where(and(eq(jobs.state, "done"), lt(jobs.finishedAt, new Date(now - DONE_JOBS_KEPT_MS))))
    .returning({ id: jobs.id });
  return gone.length;
}

/**
 * How many jobs of `kind` whose key starts with `keyPrefix` were asked for since `since`, whatever
 * became of them (a kind's own cap, e.g. the step reminders' daily cap per patient, decision 0114).
 */
export async function countJobsAsked(kind: string, keyPrefix: string, since: Date): Promise<number> {
  const row = await first(
    db()
      .select({ n: count() })
      .from(jobs)
      .where(
        and(
          eq(jobs.kind, kind),
          like(jobs.key, `${keyPrefix.replace(/[%_\\]/g, "")}%`),
          gte(jobs.createdAt, since),
        ),
      ),
  );
  return row?.n ?? 0;
}
