import { and, eq, gt, isNotNull, lt } from "drizzle-orm";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { endedSessions, sessions, users } from "~/db/schema";
import { sha256 } from "~/lib/ids.server";

/**
 * Sessions ended by a suspension (decision 0065). A suspended account's sessions end at once; for a
 * health worker the web sessions leave a tombstone (the token's hash, never the token) for two
 * weeks, so the app's offline outbox on their phone can still be told why its items are refused
 * and hand them in to be kept for the centre. A tombstone signs no one in: only the held-items
 * adapter reads it, and only while the account is still suspended.
 */
export const ENDED_SESSION_KEEP_MS = 14 * 24 * 60 * 60 * 1000;

/** Ends every session of a suspended user, keeping a tombstone of each web session when `keep`. */
export async function endSessionsOnSuspension(userId: string, keep: boolean) {
  const now = new Date();
  await transaction(function* (tx) {
    if (keep) {
      const web = yield* rows(
        tx
          .select({ tokenHash: sessions.tokenHash, expiresAt: sessions.expiresAt })
          .from(sessions)
          .where(and(eq(sessions.userId, userId), eq(sessions.kind, "web"), gt(sessions.expiresAt, now))),
      );
      for (const s of web) {
        yield* exec(
          tx
            .insert(endedSessions)
            .values({
              tokenHash: s.tokenHash,
              userId,
              reason: "suspended",
              endedAt: now,
              expiresAt: new Date(now.getTime() + ENDED_SESSION_KEEP_MS),
            })
            .onConflictDoNothing(),
        );
      }
    }
    yield* exec(tx.delete(sessions).where(eq(sessions.userId, userId)));
  });
}

/** A reinstated account's tombstones go: it signs in anew. */
export async function forgetEndedSessions(userId: string) {
  await db().delete(endedSessions).where(eq(endedSessions.userId, userId));
}

/** The tombstone of a web session token whose account is still suspended, or null. */
export async function endedSessionOf(
  token: unknown,
): Promise<{ userId: string; reason: string; endedAt: Date } | null> {
  if (typeof token !== "string" || !token || token.length > 200) return null;
  const row = await first(
    db()
      .select({ userId: endedSessions.userId, reason: endedSessions.reason, endedAt: endedSessions.endedAt })
      .from(endedSessions)
      .innerJoin(users, eq(users.id, endedSessions.userId))
      .where(
        and(
          eq(endedSessions.tokenHash, sha256(token)),
          gt(endedSessions.expiresAt, new Date()),
          isNotNull(users.suspendedAt),
        ),
      ),
  );
  return row ?? null;
}

/** Removes tombstones past their time (with the sessions' own pruning). */
export async function pruneEndedSessions(now = new Date()) {
  await db().delete(endedSessions).where(lt(endedSessions.expiresAt, now));
}
