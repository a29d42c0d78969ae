import { and, count, desc, eq, isNotNull, isNull, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { db, exec, first, transaction } from "~/db/client.server";
import { centres, healthWorkers, users, type UserRow } from "~/db/schema";
import type { HealthWorkerRole } from "~/db/types";
import {
  healthWorkerQuerySchema,
  rejectWorkerSchema,
  updateWorkerSchema,
  type HealthWorkerStatus,
} from "~/schemas/centres";
import { audit, auditInsert } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import type { Paged, PageQuery } from "../platform/paging";
import { notify } from "../messaging/index.server";
import { approveLogin, declineLogin, type Actor, setSuspended } from "../accounts/index.server";
import { findCentre } from "./centres.server";
import { flagTakeOversStartedBy } from "./takeover-review.server";
import { newestFirstWindow } from "../platform/index.server";

/**
 * Health workers (decision 0030): a CHO, ANM, ASHA, VLE or doctor signs up for a centre and waits
 * for an admin, like an expert. Admins approve (the worker is told by mail or SMS), decline with a
 * reason, move a worker to another centre and suspend or reinstate them.
 *
 * A declined application is a suspended, unapproved account: the person cannot sign in with it and
 * has been told why; lifting the suspension puts them back in the queue. The account's status is
 * read from the user row: pending (not approved, not suspended), approved, suspended.
 */

export type ApiHealthWorker = {
  _id: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  role: HealthWorkerRole;
  workerId: string;
  status: HealthWorkerStatus;
  approved: boolean;
  suspendedAt: string | null;
  centre: { _id: string; name: string; district: string; state: string };
  createdAt: string;
};

const workerColumns = {
  user: users,
  role: healthWorkers.role,
  workerId: healthWorkers.workerId,
  centre: { id: centres.id, name: centres.name, district: centres.district, state: centres.state },
};

type WorkerJoined = {
  user: UserRow;
  role: HealthWorkerRole;
  workerId: string;
  centre: { id: string; name: string; district: string; state: string };
};

function statusOf(u: Pick<UserRow, "approved" | "suspendedAt">): HealthWorkerStatus {
  return u.suspendedAt ? "suspended" : u.approved ? "approved" : "pending";
}

function toApiWorker(r: WorkerJoined): ApiHealthWorker {
  return {
    _id: r.user.id,
    firstName: r.user.firstName,
    lastName: r.user.lastName,
    email: r.user.email,
    phone: r.user.phone,
    role: r.role,
    workerId: r.workerId,
    status: statusOf(r.user),
    approved: r.user.approved,
    suspendedAt: r.user.suspendedAt ? r.user.suspendedAt.toISOString() : null,
    centre: { _id: r.centre.id, name: r.centre.name, district: r.centre.district, state: r.centre.state },
    createdAt: r.user.createdAt.toISOString(),
  };
}

function selectWorkers() {
  return db()
    .select(workerColumns)
    .from(healthWorkers)
    .innerJoin(users, eq(users.id, healthWorkers.userId))
    .innerJoin(centres, eq(centres.id, healthWorkers.centreId));
}

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "centres.adminsOnly");
}

function parse<S extends z.ZodTypeAny>(schema: S, input: unknown): z.infer<S> {
  const r = schema.safeParse(input);
  if (!r.success)
    throw new DomainError("invalid", "centres.invalid", { fieldErrors: zodFieldErrors(r.error) });
  return r.data;
}

const statusWhere: Record<HealthWorkerStatus, SQL> = {
  pending: and(eq(users.approved, false), isNull(users.suspendedAt))!,
  approved: and(eq(users.approved, true), isNull(users.suspendedAt))!,
  suspended: isNotNull(users.suspendedAt),
};

/** A health worker with their centre, or undefined (also for an account of another type). */
export async function findHealthWorker(userId: string): Promise<ApiHealthWorker | undefined> {
  if (typeof userId !== "string" || !userId || userId.length > 64) return undefined;
  const row = await first(selectWorkers().where(eq(healthWorkers.userId, userId)));
  return row && row.user.accountType === "HealthWorker" ? toApiWorker(row) : undefined;
}

/** The signed-in health worker's own record (their centre and whether they are approved yet). */
export async function ownHealthWorker(actor: Actor): Promise<ApiHealthWorker | null> {
  if (actor.accountType !== "HealthWorker") return null;
  return (await findHealthWorker(actor.id)) ?? null;
}

async function requireWorker(userId: string): Promise<ApiHealthWorker> {
  const w = await findHealthWorker(userId);
  if (!w) throw new DomainError("not_found", "centres.workerNotFound");
  return w;
}

/**
 * Admin: health workers by status — pending (newest application first) by default, approved or
 * suspended — optionally of one centre.
 */
export async function listHealthWorkers(
  actor: Actor,
  query: unknown,
  pageQuery: PageQuery,
): Promise<Paged<ApiHealthWorker>> {
  const { page, pageSize } = pageQuery;
  requireAdmin(actor);
  const q = parse(healthWorkerQuerySchema, query ?? {});
  const where = and(
    eq(users.accountType, "HealthWorker"),
    statusWhere[q.status],
    q.centreId ? eq(healthWorkers.centreId, q.centreId) : undefined,
  );
  const total =
    (
      await first(
        db()
          .select({ n: count() })
          .from(healthWorkers)
          .innerJoin(users, eq(users.id, healthWorkers.userId))
          .where(where),
      )
    )?.n ?? 0;
  const win = newestFirstWindow(pageQuery, users.createdAt, users.id);
  const read = await selectWorkers()
    .where(and(where, win.after))
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows: found, nextCursor } = win.cut(read, (r) => r.user);
  return { items: found.map(toApiWorker), total, page, pageSize, nextCursor };
}

/**
 * Admin: approves a waiting health worker, who may then register patients and send reports for
 * their centre, and is told so. Approving an approved worker changes nothing (no second notice); a
 * suspended one must be reinstated first (conflict).
 */
export async function approveHealthWorker(
  actor: Actor,
  userId: string,
  ip?: string | null,
): Promise<ApiHealthWorker> {
  requireAdmin(actor);
  const before = await requireWorker(userId);
  if (before.status === "suspended") throw new DomainError("conflict", "centres.workerSuspended");
  const won = await transaction(function* (tx) {
    if (!(yield* approveLogin(tx, userId, "HealthWorker"))) return false;
    yield* exec(
      auditInsert(tx, actor, "centre.worker_approve", "user", userId, { centreId: before.centre._id }, ip),
    );
    return true;
  });
  if (won) {
    const user = await first(db().select().from(users).where(eq(users.id, userId)));
    if (user && !user.suspendedAt)
      notify(user, {
        subject: "centres.mailApprovedSubject",
        body: "centres.mailApprovedBody",
        action: "centres.mailApprovedAction",
        path: "/dashboard/home",
        vars: { centre: before.centre.name },
      });
  }
  return requireWorker(userId);
}

/**
 * Admin: declines a waiting health worker's application with a reason they are told. The account
 * is suspended (it cannot be used) and leaves the queue; reinstating it puts it back.
 */
export async function rejectHealthWorker(
  actor: Actor,
  userId: string,
  input: unknown,
  ip?: string | null,
): Promise<ApiHealthWorker> {
  requireAdmin(actor);
  const { reason } = parse(rejectWorkerSchema, input);
  const before = await requireWorker(userId);
  if (before.status !== "pending") throw new DomainError("conflict", "centres.workerNotPending");
  const won = await transaction(function* (tx) {
    if (!(yield* declineLogin(tx, userId))) return false;
    yield* exec(auditInsert(tx, actor, "centre.worker_reject", "user", userId, { reason }, ip));
    return true;
  });
  if (!won) throw new DomainError("conflict", "centres.workerNotPending");
  await flagTakeOversStartedBy(userId, "starter_declined");
  const user = await first(db().select().from(users).where(eq(users.id, userId)));
  if (user)
    notify(user, {
      subject: "centres.mailRejectedSubject",
      body: "centres.mailRejectedBody",
      action: "centres.mailRejectedAction",
      path: "/contact-us",
      lines: (t) => [t("centres.mailRejectedReason", { reason })],
    });
  return requireWorker(userId);
}

/**
 * Admin: moves a health worker to another centre (from then on they act for that centre's
 * patients only), and/or suspends them (their sessions end at once) or lifts the suspension.
 */
export async function updateHealthWorker(
  actor: Actor,
  userId: string,
  input: unknown,
  ip?: string | null,
): Promise<ApiHealthWorker> {
  requireAdmin(actor);
  const v = parse(updateWorkerSchema, input);
  const before = await requireWorker(userId);
  if (v.centreId !== undefined && !(await findCentre(v.centreId)))
    throw new DomainError("invalid", "centres.invalid", {
      fieldErrors: { centreId: ["centres.centreUnknown"] },
    });
  const now = new Date();
  await transaction(function* (tx) {
    if (v.centreId !== undefined && v.centreId !== before.centre._id) {
      yield* exec(
        tx
          .update(healthWorkers)
          .set({ centreId: v.centreId, updatedAt: now })
          .where(eq(healthWorkers.userId, userId)),
      );
      yield* exec(
        auditInsert(
          tx,
          actor,
          "centre.worker_move",
          "user",
          userId,
          { from: before.centre._id, to: v.centreId },
          ip,
        ),
      );
    }
  });
  // Moved: the take-overs they started for the old centre's patients stop or go to review.
  if (v.centreId !== undefined && v.centreId !== before.centre._id)
    await flagTakeOversStartedBy(userId, "starter_moved");
  // The accounts' own suspension (sessions end at once, login refused with a clear message).
  if (v.suspended !== undefined && v.suspended !== (before.status === "suspended")) {
    await setSuspended(actor, userId, v.suspended);
    if (v.suspended) await flagTakeOversStartedBy(userId, "starter_suspended");
    await audit(
      actor,
      v.suspended ? "centre.worker_suspend" : "centre.worker_unsuspend",
      "user",
      userId,
      null,
      ip,
    );
  }
  return requireWorker(userId);
}
