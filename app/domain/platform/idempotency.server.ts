import { and, eq, isNull, lt } from "drizzle-orm";
import { affected, db, first } from "~/db/client.server";
import { idempotencyKeys } from "~/db/schema";

/**
 * Idempotency keys (decision 0062): the database half. A create that carries a key first claims
 * (account, key) by inserting a pending row — the unique pair lets exactly one of two simultaneous
 * requests win — and, when it has answered, keeps that answer to replay. Keys live at least 7 days.
 */
export const IDEMPOTENCY_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** A pending row this old was left by a process that died mid-request: the next retry takes it over. */
export const IDEMPOTENCY_STALE_MS = 60 * 60 * 1000;

export type StoredAnswer = { status: number; headers: Record<string, string>; body: string };

export type Claim =
  | { kind: "claimed" }
  | { kind: "replay"; answer: StoredAnswer }
  | { kind: "mismatch" }
  | { kind: "in_progress" };

export async function claimIdempotencyKey(
  accountId: string,
  key: string,
  fingerprint: string,
): Promise<Claim> {
  const inserted = await db()
    .insert(idempotencyKeys)
    .values({ accountId, key, fingerprint, createdAt: new Date() })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length) return { kind: "claimed" };
  const row = await first(
    db()
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key))),
  );
  // Pruned or released between the insert and this read: try once more.
  if (!row) return claimAgain(accountId, key, fingerprint);
  if (row.fingerprint !== fingerprint) return { kind: "mismatch" };
  if (row.status == null) {
    if (row.createdAt.getTime() > Date.now() - IDEMPOTENCY_STALE_MS) return { kind: "in_progress" };
    // Taken over only by the one retry whose update matches the old row.
    const taken = affected(
      await db()
        .update(idempotencyKeys)
        .set({ createdAt: new Date() })
        .where(
          and(
            eq(idempotencyKeys.accountId, accountId),
            eq(idempotencyKeys.key, key),
            isNull(idempotencyKeys.status),
            eq(idempotencyKeys.createdAt, row.createdAt),
          ),
        ),
    );
    return taken ? { kind: "claimed" } : { kind: "in_progress" };
  }
  return {
    kind: "replay",
    answer: { status: row.status, headers: JSON.parse(row.headers ?? "{}"), body: row.body ?? "" },
  };
}

async function claimAgain(accountId: string, key: string, fingerprint: string): Promise<Claim> {
  const inserted = await db()
    .insert(idempotencyKeys)
    .values({ accountId, key, fingerprint, createdAt: new Date() })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  return inserted.length ? { kind: "claimed" } : { kind: "in_progress" };
}

/**
 * The first answer, kept to replay: only what a replay needs (decision 0074: the status, the
 * headers a client needs and the created record's ids — never a name, a phone or a text). The
 * fingerprint, when given, is the request's as hashed while its body streamed to the handler.
 */
export async function completeIdempotencyKey(
  accountId: string,
  key: string,
  answer: StoredAnswer,
  fingerprint?: string,
): Promise<void> {
  await db()
    .update(idempotencyKeys)
    .set({
      status: answer.status,
      headers: JSON.stringify(answer.headers),
      body: answer.body,
      ...(fingerprint ? { fingerprint } : {}),
    })
    .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
}

/**
 * The answer already kept for (account, key), or null. For the held items of a suspended worker
 * (decision 0065), whose session — and so the usual claim — is gone: an item that was created
 * before the suspension, its answer lost, is answered again rather than kept a second time.
 */
export async function answeredIdempotencyKey(accountId: string, key: string): Promise<StoredAnswer | null> {
  const row = await first(
    db()
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key))),
  );
  if (!row || row.status == null) return null;
  return { status: row.status, headers: JSON.parse(row.headers ?? "{}"), body: row.body ?? "" };
}

/** A completed key's fingerprint and kept answer, or null (none, or still pending). */
export async function keptIdempotencyKey(
  accountId: string,
  key: string,
): Promise<{ fingerprint: string; answer: StoredAnswer } | null> {
  const row = await first(
    db()
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key))),
  );
  if (!row || row.status == null) return null;
  return {
    fingerprint: row.fingerprint,
    answer: { status: row.status, headers: JSON.parse(row.headers ?? "{}"), body: row.body ?? "" },
  };
}

/** A refused or failed request frees its key: nothing was created, so a retry may run again. */
export async function releaseIdempotencyKey(accountId: string, key: string): Promise<void> {
  await db()
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.accountId, accountId),
        eq(idempotencyKeys.key, key),
        isNull(idempotencyKeys.status),
      ),
    );
}

/** Hourly: keys older than 7 days go. */
export async function pruneIdempotencyKeys(now = Date.now()): Promise<number> {
  return affected(
    await db()
      .delete(idempotencyKeys)
      .where(lt(idempotencyKeys.createdAt, new Date(now - IDEMPOTENCY_KEEP_MS))),
  );
}
