import { and, count, desc, eq } from "drizzle-orm";
import { db, first, isUniqueViolation } from "~/db/client.server";
import { auditEvents, heldItems, type HeldItemRow } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { audit, type Actor, type Client, limit } from "../platform/index.server";
import type { Paged, PageQuery } from "../platform/paging";
import { newestFirstWindow } from "../platform/index.server";
import { endedSessionOf } from "../accounts/index.server";
import { findHealthWorker, requireCentre, requireCentreAdmin } from "../care/index.server";
import { deleteStored, type StoredFile } from "../records/index.server";

/**
 * Held items (decision 0065). What a health worker recorded offline reaches the server after they
 * were suspended or moved to another centre: it is refused with the reason, and kept — the
 * request's fields and its file (encrypted like every file) — for the centre it was recorded at,
 * where an admin hands it to another worker of the centre (held-handover). Never silently dropped.
 */
export const HELD_KINDS = ["register", "upload", "voice", "follow-up"] as const;
export type HeldKind = (typeof HELD_KINDS)[number];
/** Held items one worker may leave waiting; the next is refused (kept on the phone) with the reason. */
export const HELD_PER_WORKER = 200;

type Named = { _id: string; name: string };

/** Why an outbox item of this worker is refused, and the centre it is kept for. */
export type OutboxRefusal = {
  reason: "suspended" | "moved";
  worker: Named;
  /** The centre the item was recorded for (where it is kept). */
  centre: Named;
  /** A moved worker's centre now. */
  movedTo?: Named;
  /** When they were moved away from `centre` (ISO-8601). */
  movedAt?: string;
  /**
   * Why a moved worker's item is NOT kept for the old centre (decision 0073): it was recorded after
   * the move, the phone did not say when it was recorded, or the move is over MOVED_ITEMS_DAYS old.
   */
  notKept?: "after" | "unknown" | "expired";
};

/** A moved worker's items recorded at the old centre are kept for it this many days after the move. */
export const MOVED_ITEMS_DAYS = 30;
/** A phone's clock may run this far ahead of the server's (as for a consent read offline). */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

export type ApiHeldItem = {
  _id: string;
  kind: HeldKind;
  reason: "suspended" | "moved";
  status: "held" | "handing" | "handed";
  centre: Named;
  recordedBy: { _id: string | null; name: string };
  hasFile: boolean;
  createdAt: string;
  handedTo: string | null;
  handedAt: string | null;
  resultId: string | null;
};

const named = (w: { firstName: string; lastName: string }) => `${w.firstName} ${w.lastName}`.trim();

/** When the worker was last moved away from `centreId` (the moves' audit trail), or null: never. */
async function movedAwayFrom(userId: string, centreId: string): Promise<Date | null> {
  const moves = await db()
    .select({ detail: auditEvents.detail, at: auditEvents.createdAt })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.action, "centre.worker_move"),
        eq(auditEvents.subjectType, "user"),
        eq(auditEvents.subjectId, userId),
      ),
    )
    .orderBy(desc(auditEvents.createdAt))
    .limit(100);
  const left = moves.find((m) => {
    try {
      return (JSON.parse(m.detail ?? "{}") as { from?: unknown }).from === centreId;
    } catch {
      return false;
    }
  });
  return left?.at ?? null;
}

/**
 * Whether a moved worker's item may still be kept for the centre they left (decision 0073): only
 * what was recorded there before the move (the phone's recorded time, `X-CareBridge-Recorded-At`,
 * against the move's time, with the phone's clock allowed 5 minutes ahead), and only for
 * MOVED_ITEMS_DAYS after the move — never an open door to the old centre.
 */
function movedItemStanding(movedAt: Date, recordedAt: string | null | undefined, now = Date.now()) {
  if (now - movedAt.getTime() > MOVED_ITEMS_DAYS * 86_400_000) return "expired" as const;
  const at = recordedAt && recordedAt.length <= 40 ? Date.parse(recordedAt) : NaN;
  if (!Number.isFinite(at)) return "unknown" as const;
  if (at > movedAt.getTime() + CLOCK_SKEW_MS) return "after" as const;
  return undefined;
}

/**
 * An outbox request's standing: null when it goes its normal way (anything not a health worker's,
 * a live session at the centre the item was recorded for, a claimed centre they never left, no
 * session at all); otherwise why it is refused. `actor` is the live session; `endedToken` the web
 * session token when no live session matched (a suspension's tombstone may know it);
 * `claimedCentreId` the centre the outbox says the item was recorded at, `recordedAt` when (a moved
 * worker's item is kept only when recorded there before the move: else `notKept` says why).
 */
export async function outboxRefusal(input: {
  actor: Actor | null;
  endedToken: unknown;
  claimedCentreId: string | null;
  recordedAt?: string | null;
}): Promise<OutboxRefusal | null> {
  const claimed = input.claimedCentreId && input.claimedCentreId.length <= 64 ? input.claimedCentreId : null;
  if (input.actor) {
    if (input.actor.accountType !== "HealthWorker" || !claimed) return null;
    const w = await findHealthWorker(input.actor.id);
    if (!w || w.status !== "approved" || w.centre._id === claimed) return null;
    const movedAt = await movedAwayFrom(w._id, claimed);
    if (!movedAt) return null;
    const from = await requireCentre(claimed);
    const notKept = movedItemStanding(movedAt, input.recordedAt);
    return {
      reason: "moved",
      worker: { _id: w._id, name: named(w) },
      centre: { _id: from.id, name: from.name },
      movedTo: { _id: w.centre._id, name: w.centre.name },
      movedAt: movedAt.toISOString(),
      ...(notKept ? { notKept } : {}),
    };
  }
  const ended = await endedSessionOf(input.endedToken);
  if (!ended) return null;
  const w = await findHealthWorker(ended.userId);
  if (!w) return null;
  let centre: Named = { _id: w.centre._id, name: w.centre.name };
  if (claimed && claimed !== w.centre._id && (await movedAwayFrom(w._id, claimed))) {
    const from = await requireCentre(claimed);
    centre = { _id: from.id, name: from.name };
  }
  return { reason: "suspended", worker: { _id: w._id, name: named(w) }, centre };
}

/** A worker's refused outbox item is kept for the centre: the API shape of one held item. */
export function toApiHeldItem(r: HeldItemRow, centreName: string): ApiHeldItem {
  return {
    _id: r.id,
    kind: r.kind as HeldKind,
    reason: r.reason as ApiHeldItem["reason"],
    status: r.status as ApiHeldItem["status"],
    centre: { _id: r.centreId, name: centreName },
    recordedBy: { _id: r.workerId, name: r.workerName },
    hasFile: !!r.fileKey,
    createdAt: r.createdAt.toISOString(),
    handedTo: r.handedTo,
    handedAt: r.handedAt ? r.handedAt.toISOString() : null,
    resultId: r.resultId,
  };
}

async function heldByKey(workerId: string, key: string) {
  return first(
    db()
      .select()
      .from(heldItems)
      .where(and(eq(heldItems.workerId, workerId), eq(heldItems.idemKey, key))),
  );
}

/**
 * Keeps a refused item for its centre, once per (worker, Idempotency-Key): a resend answers the
 * item already kept (its new file removed). Over HELD_PER_WORKER waiting items nothing is kept
 * (null): the phone keeps it. The file is the caller's until it is kept here.
 */
export async function holdItem(
  refusal: OutboxRefusal,
  item: { kind: HeldKind; key: string; fields: Record<string, unknown>; file: StoredFile | null },
  client: Client,
): Promise<ApiHeldItem | null> {
  const drop = () => (item.file ? deleteStored(item.file.key).catch(() => {}) : Promise.resolve());
  const workerId = refusal.worker._id;
  try {
    const before = await heldByKey(workerId, item.key);
    if (before) {
      await drop();
      return toApiHeldItem(before, refusal.centre.name);
    }
    const [{ n }] = await db()
      .select({ n: count() })
      .from(heldItems)
      .where(and(eq(heldItems.workerId, workerId), eq(heldItems.status, "held")));
    if (n >= HELD_PER_WORKER) {
      await drop();
      return null;
    }
    const row: HeldItemRow = {
      id: newId(),
      centreId: refusal.centre._id,
      workerId,
      workerName: refusal.worker.name,
      kind: item.kind,
      idemKey: item.key,
      reason: refusal.reason,
      fields: JSON.stringify(item.fields),
      fileKey: item.file?.key ?? null,
      fileName: item.file?.fileName ?? null,
      fileType: item.file?.mimeType ?? null,
      fileSize: item.file?.size ?? null,
      status: "held",
      handedTo: null,
      handedBy: null,
      handedAt: null,
      resultId: null,
      createdAt: new Date(),
    };
    try {
      await db().insert(heldItems).values(row);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const won = await heldByKey(workerId, item.key); // the same item sent twice at once
      if (!won) throw err;
      await drop();
      return toApiHeldItem(won, refusal.centre.name);
    }
    await audit(
      { id: workerId },
      "centre.item_held",
      "centre",
      refusal.centre._id,
      { heldItemId: row.id, kind: row.kind, reason: row.reason },
      client.ip,
    ).catch((e) => log("error", "could not audit a held item", { error: String(e) }));
    return toApiHeldItem(row, refusal.centre.name);
  } catch (err) {
    await drop();
    throw err;
  }
}

/** The budget a held item spends: the one its normal endpoint spends. */
export async function holdBudget(refusal: OutboxRefusal, kind: HeldKind, client: Client) {
  if (kind === "register") await limit("registration", refusal.worker._id, client);
  else if (kind !== "follow-up") await limit("upload", refusal.worker._id, client);
}

/** Admin: a centre's held items, newest first (no medical content: kind, who, why, when, where it went). */
export async function listHeldItems(
  actor: Actor,
  centreId: string,
  pageQuery: PageQuery,
): Promise<Paged<ApiHeldItem>> {
  requireCentreAdmin(actor);
  const centre = await requireCentre(centreId);
  const where = eq(heldItems.centreId, centre.id);
  const [{ n }] = await db().select({ n: count() }).from(heldItems).where(where);
  const win = newestFirstWindow(pageQuery, heldItems.createdAt, heldItems.id);
  const read = await db()
    .select()
    .from(heldItems)
    .where(and(where, win.after))
    .orderBy(desc(heldItems.createdAt), desc(heldItems.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows, nextCursor } = win.cut(read, (r) => r);
  return {
    items: rows.map((r) => toApiHeldItem(r, centre.name)),
    total: n,
    page: pageQuery.page,
    pageSize: pageQuery.pageSize,
    nextCursor,
  };
}
