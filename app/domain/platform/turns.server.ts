import { hostname } from "node:os";
import { and, asc, count, eq, lt, ne, sql } from "drizzle-orm";
import { aliasInSql } from "~/db/alias";
import { db, exec, first, oneAtATime, rows, timeParam, transaction } from "~/db/client.server";
import { workFailures, workTurns } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { DomainError } from "./errors";

/**
 * A fair share of a part every account shares (decision 0100). Work that anyone can cause and that
 * takes a core — a page render — waits for a turn: each node (host) has `perNode` turns of a kind,
 * an account holds at most one running turn of it across every process and node, and at most one
 * waiting; waiting turns are given in the order they were asked for, skipping any account that has
 * one running. So one account asking in loops holds one turn, and every other account is served
 * in its turn beside it. Rows live in the database (`work_turns`), so the share holds across
 * processes and nodes; a turn's lease ends it if its process dies.
 *
 * Work that ran out of time is remembered (`work_failures`) and refused again at once, until the
 * file changes (its subject names the file's key, which a new file never shares).
 */

export type TurnKind = "render";

export type TurnRule = {
  /** Turns running at once on one node. */
  perNode: number;
  /** How long a running turn holds without renewal (its process died: the turn ends). */
  leaseMs: number;
  /** How long a request waits for its turn before it is told to come back (429). */
  waitMs: number;
  /** The Retry-After of that refusal, seconds. */
  retryAfterSeconds: number;
  /** The message key of the refusal. */
  busyMessage: string;
};

const POLL_MS = 100;
/** A waiting turn not looked at for this long belongs to a request that went away. */
const WAITING_LEASE_MS = 5_000;

const node = () => hostname();

export type Turn = { id: string; release(): Promise<void> };

/**
 * Waits for `account`'s turn at `kind` and returns it (release it when the work ends); throws a
 * DomainError "rate_limited" (429, Retry-After) when the account already waits for one, or when its
 * turn did not come within the rule's wait.
 */
export async function takeTurn(kind: TurnKind, account: string, rule: TurnRule): Promise<Turn> {
  const busy = () =>
    new DomainError("rate_limited", rule.busyMessage, { retryAfterSeconds: rule.retryAfterSeconds });
  const id = newId();
  const here = node();
  const lock = `turns:${kind}`;
  const asked = await transaction(function* (tx) {
    yield* oneAtATime(tx, lock);
    const now = new Date();
    yield* exec(tx.delete(workTurns).where(and(eq(workTurns.kind, kind), lt(workTurns.leasedUntil, now))));
    const [mine] = yield* rows(
      tx
        .select({ n: count() })
        .from(workTurns)
        .where(and(eq(workTurns.kind, kind), eq(workTurns.account, account), eq(workTurns.state, "waiting"))),
    );
    if (mine.n > 0) return false;
    yield* exec(
      tx.insert(workTurns).values({
        id,
        kind,
        account,
        node: here,
        state: "waiting",
        leasedUntil: new Date(now.getTime() + WAITING_LEASE_MS),
        createdAt: now,
      }),
    );
    return true;
  });
  if (!asked) {
    log("warn", "turn refused: the account already waits for one", { kind });
    throw busy();
  }
  const other = aliasInSql(workTurns, "other");
  const until = Date.now() + rule.waitMs;
  for (;;) {
    const granted = await transaction(function* (tx) {
      yield* oneAtATime(tx, lock);
      const now = new Date();
      const [me] = yield* rows(tx.select({ id: workTurns.id }).from(workTurns).where(eq(workTurns.id, id)));
      if (!me) return "gone" as const;
      const [running] = yield* rows(
        tx
          .select({ n: count() })
          .from(workTurns)
          .where(
            and(
              eq(workTurns.kind, kind),
              eq(workTurns.node, here),
              eq(workTurns.state, "running"),
              sql`${workTurns.leasedUntil} >= ${timeParam(now.getTime())}`,
            ),
          ),
      );
      // The first waiting turn on this node whose account holds no running turn anywhere.
      const next = yield* rows(
        tx
          .select({ id: workTurns.id })
          .from(workTurns)
          .where(
            and(
              eq(workTurns.kind, kind),
              eq(workTurns.node, here),
              eq(workTurns.state, "waiting"),
              sql`not exists (select 1 from ${other.from} where ${other.as.kind} = ${kind} and ${other.as.account} = ${workTurns.account} and ${other.as.state} = 'running' and ${other.as.leasedUntil} >= ${timeParam(now.getTime())})`,
            ),
          )
          .orderBy(asc(workTurns.createdAt), asc(workTurns.id))
          .limit(1),
      );
      const keep = new Date(now.getTime() + WAITING_LEASE_MS);
      if (running.n < rule.perNode && next[0]?.id === id) {
        yield* exec(
          tx
            .update(workTurns)
            .set({ state: "running", leasedUntil: new Date(now.getTime() + rule.leaseMs) })
            .where(eq(workTurns.id, id)),
        );
        return "granted" as const;
      }
      yield* exec(tx.update(workTurns).set({ leasedUntil: keep }).where(eq(workTurns.id, id)));
      return "waiting" as const;
    });
    if (granted === "granted") break;
    if (granted === "gone" || Date.now() >= until) {
      await db().delete(workTurns).where(eq(workTurns.id, id));
      log("warn", "turn refused: busy", { kind });
      throw busy();
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  let released = false;
  const renew = setInterval(
    () =>
      void db()
        .update(workTurns)
        .set({ leasedUntil: new Date(Date.now() + rule.leaseMs) })
        .where(and(eq(workTurns.id, id), ne(workTurns.state, "waiting")))
        .catch(() => {}),
    Math.max(1_000, rule.leaseMs / 3),
  ).unref();
  return {
    id,
    async release() {
      if (released) return;
      released = true;
      clearInterval(renew);
      await db().delete(workTurns).where(eq(workTurns.id, id));
    },
  };
}

/** Turns of `kind` running and waiting now (the Service screen, tests). */
export async function turnsNow(kind: TurnKind): Promise<{ running: number; waiting: number }> {
  const found = await db()
    .select({ state: workTurns.state, n: count() })
    .from(workTurns)
    .where(and(eq(workTurns.kind, kind), sql`${workTurns.leasedUntil} >= ${timeParam(Date.now())}`))
    .groupBy(workTurns.state);
  return {
    running: found.find((r) => r.state === "running")?.n ?? 0,
    waiting: found.find((r) => r.state === "waiting")?.n ?? 0,
  };
}

/** Kinds of work whose time-outs are remembered. */
export type FailureKind = "render";

/** Why `subject` failed the last time, when it ran out of time before (decision 0100); else null. */
export async function rememberedFailure(kind: FailureKind, subject: string): Promise<string | null> {
  const row = await first(
    db()
      .select({ reason: workFailures.reason })
      .from(workFailures)
      .where(and(eq(workFailures.kind, kind), eq(workFailures.subject, subject))),
  );
  return row?.reason ?? null;
}

/** Remembers that `subject` ran out of time (or another limit that would stop it again). */
export async function rememberFailure(kind: FailureKind, subject: string, reason: string): Promise<void> {
  await db()
    .insert(workFailures)
    .values({ kind, subject, reason, failedAt: new Date() })
    .onConflictDoUpdate({
      target: [workFailures.kind, workFailures.subject],
      set: { reason, failedAt: new Date() },
    });
}

/** Forgets the failures of subjects that start with `prefix` (the file they were about is gone). */
export async function forgetFailures(kind: FailureKind, prefix: string): Promise<void> {
  await db()
    .delete(workFailures)
    .where(
      and(eq(workFailures.kind, kind), sql`substr(${workFailures.subject}, 1, ${prefix.length}) = ${prefix}`),
    );
}
