import { and, eq, inArray, lt, lte, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { aliasInSql } from "~/db/alias";
import { db, oneStatementAtATime, skipLocked, timeParam, type DB } from "~/db/client.server";
import { jobs, type JobRow } from "~/db/schema";
import { newId } from "~/lib/ids.server";

/*
 * The one runner's claim (decision 0113): ONE conditional update that repeats the due condition,
 * its row chosen by `id = (select … limit 1)` — on PostgreSQL `FOR UPDATE SKIP LOCKED` (app/db).
 *
 * A kind may take turns (decision 0100): its jobs belong to groups (an account), given by the kind
 * as SQL of a job's key. Then a job is taken only while no other job of its group is running under
 * a live lease, anywhere, and the group whose last job of the kind finished longest ago (never,
 * or not within the days finished jobs are kept: first) goes first. Whether a job may go depends on
 * the other jobs' states, so such a kind's claims are made one at a time across every process and
 * node (`oneStatementAtATime`: PostgreSQL's advisory lock; SQLite runs every statement alone):
 * two runners never each see a group idle and both take one of its jobs.
 */

/** A job's group, as SQL of its key column (e.g. the account that asked for it); null: none. */
export type TurnsBy = (key: SQLWrapper) => SQL;

/** A job may be taken: queued and due, or running under a lease that ran out (its holder died). */
function dueCondition(kind: string, now: Date): SQL {
  return and(
    eq(jobs.kind, kind),
    or(
      and(eq(jobs.state, "queued"), lte(jobs.runAt, now)),
      and(eq(jobs.state, "running"), lt(jobs.leasedUntil, now)),
    ),
  )!;
}

/** Turns: the condition that no job of the candidate's group runs, and the order among groups. */
function turns(kind: string, groupOf: TurnsBy, now: Date): { free: SQL; first: SQL } {
  const other = aliasInSql(jobs, "other");
  const sameGroup = sql`${groupOf(other.as.key)} = ${groupOf(jobs.key)}`;
  const at = timeParam(now.getTime());
  return {
    free: sql`not exists (select 1 from ${other.from} where ${other.as.kind} = ${kind} and ${other.as.state} = 'running' and ${other.as.leasedUntil} >= ${at} and ${sameGroup})`,
    first: sql`(select max(${other.as.finishedAt}) from ${other.from} where ${other.as.kind} = ${kind} and ${inArray(other.as.state, ["done", "dead"])} and ${sameGroup}) asc nulls first`,
  };
}

/** Takes the next due job of `kind` (in turns when `turnsBy`); undefined when none is free. */
export async function claimJob(
  kind: string,
  leaseMs: number,
  turnsBy?: TurnsBy,
): Promise<JobRow | undefined> {
  const now = new Date();
  const t = turnsBy && turns(kind, turnsBy, now);
  const next = skipLocked(
    db()
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(dueCondition(kind, now), t?.free))
      .orderBy(...(t ? [t.first] : []), jobs.runAt, jobs.id)
      .limit(1),
  );
  const update = (q: DB) =>
    q
      .update(jobs)
      .set({
        state: "running",
        holder: newId(),
        leasedUntil: new Date(now.getTime() + leaseMs),
        attempts: sql`${jobs.attempts} + 1`,
      })
      // `= (select …)`, evaluated once: PostgreSQL may run an `in (select …)` again for each row it
      // scans, and a `limit 1 … skip locked` run again takes a second row in the same statement.
      .where(and(sql`${jobs.id} = (${next})`, dueCondition(kind, now)))
      .returning();
  const [row] = t ? await oneStatementAtATime(`jobs:${kind}`, update) : await update(db());
  return row;
}
