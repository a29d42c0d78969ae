import { aliasedTable, and, desc, eq, gte, inArray, isNotNull, isNull, or } from "drizzle-orm";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { patientManagers, patients, takeOvers, users, type PatientRow, type TakeOverRow } from "~/db/schema";
import { sha256 } from "~/lib/ids.server";
import { consumeCodesStartedBy, retireLogin, type Actor } from "../accounts/index.server";
import type { Client } from "../platform/client";
import { auditInsert, limit } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import type { TakeOverPrevious } from "./takeover-notice.server";

/**
 * After a take-over (decision 0055): the "this was not me" report anyone holding the announced
 * link can make, the admins' review list, their undo (for 7 days) and clearing, what suspending,
 * moving or declining a health worker does to the take-overs they started, and the wait before a
 * taken-over account may delete reports.
 */

const DAY = 24 * 60 * 60 * 1000;
/** An admin may undo a take-over for this long after it was completed. */
export const UNDO_DAYS = 7;
/** A taken-over account deletes no report for this long, unless an admin cleared the take-over. */
export const DELETE_WAIT_HOURS = 72;

/** Why a take-over waits for an admin's look. */
export type TakeOverFlag = "reported" | "starter_suspended" | "starter_moved" | "starter_declined";

export type ApiTakeOver = {
  _id: string;
  patient: { _id: string; name: string; shortId: string | null };
  startedBy: { _id: string; name: string } | null;
  startedAs: string;
  phone: string;
  keepAccess: boolean;
  flag: TakeOverFlag | null;
  reportedAt: string | null;
  reviewedAt: string | null;
  undoneAt: string | null;
  createdAt: string;
  canUndo: boolean;
};

const notFound = () => new DomainError("not_found", "family.notMeUnknown");

async function rowByToken(token: string): Promise<TakeOverRow | undefined> {
  if (typeof token !== "string" || !/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined;
  return first(
    db()
      .select()
      .from(takeOvers)
      .where(eq(takeOvers.reportTokenHash, sha256(token))),
  );
}

/** The "this was not me" page: when the take-over was, and whether it was reported or undone. */
export async function takeOverByToken(token: string, client: Client) {
  const row = await rowByToken(token);
  if (!row) {
    await limit("takeOverReport", null, client);
    throw notFound();
  }
  return {
    createdAt: row.createdAt.toISOString(),
    reported: !!row.reportedAt,
    undone: !!row.undoneAt,
  };
}

/**
 * "This was not me": whoever holds the announced link (the previous number, a manager, the centre)
 * reports the take-over. It goes to the admins' list (reviewed again even if it had been cleared)
 * and the account may delete nothing until an admin has looked. Reporting twice changes nothing.
 */
export async function reportTakeOver(token: string, client: Client) {
  const row = await rowByToken(token);
  if (!row) {
    await limit("takeOverReport", null, client);
    throw notFound();
  }
  if (row.undoneAt) return { reported: true, undone: true };
  if (!row.reportedAt) {
    const now = new Date();
    await transaction(function* (tx) {
      const took = yield* rows(
        tx
          .update(takeOvers)
          .set({ reportedAt: now, flag: "reported", reviewedAt: null, reviewedBy: null })
          .where(and(eq(takeOvers.id, row.id), isNull(takeOvers.reportedAt)))
          .returning({ id: takeOvers.id }),
      );
      if (took.length === 1)
        yield* exec(
          auditInsert(
            tx,
            null,
            "patient.takeover_report",
            "patient",
            row.patientId,
            { takeOver: row.id },
            client.ip,
          ),
        );
    });
  }
  return { reported: true, undone: false };
}

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "api.forbidden");
}

const canUndo = (r: Pick<TakeOverRow, "undoneAt" | "createdAt">, now = Date.now()) =>
  !r.undoneAt && now - r.createdAt.getTime() <= UNDO_DAYS * DAY;

/**
 * Admin: take-overs, newest first (at most 200). `status` "review" (the default): those waiting
 * for a look — reported, or started by a worker since suspended, moved or declined — and every
 * one of the last 7 days not yet cleared; "all": every one.
 */
export async function listTakeOvers(actor: Actor, query: { status?: "review" | "all" } = {}) {
  requireAdmin(actor);
  const starter = aliasedTable(users, "starter");
  const since = new Date(Date.now() - UNDO_DAYS * DAY);
  const where =
    query.status === "all"
      ? undefined
      : and(
          isNull(takeOvers.undoneAt),
          isNull(takeOvers.reviewedAt),
          or(isNotNull(takeOvers.flag), gte(takeOvers.createdAt, since)),
        );
  const found = await db()
    .select({
      row: takeOvers,
      patient: {
        id: patients.id,
        firstName: patients.firstName,
        lastName: patients.lastName,
        shortId: patients.shortId,
      },
      starter: { id: starter.id, firstName: starter.firstName, lastName: starter.lastName },
    })
    .from(takeOvers)
    .innerJoin(patients, eq(patients.id, takeOvers.patientId))
    .leftJoin(starter, eq(starter.id, takeOvers.startedBy))
    .where(where)
    .orderBy(desc(takeOvers.createdAt), desc(takeOvers.id))
    .limit(200);
  return found.map(
    ({ row, patient, starter: s }): ApiTakeOver => ({
      _id: row.id,
      patient: {
        _id: patient.id,
        name: `${patient.firstName} ${patient.lastName}`.trim(),
        shortId: patient.shortId,
      },
      startedBy: s?.id ? { _id: s.id, name: `${s.firstName} ${s.lastName}`.trim() } : null,
      startedAs: row.startedAs,
      phone: row.phone,
      keepAccess: row.keepAccess,
      flag: (row.flag as TakeOverFlag | null) ?? null,
      reportedAt: row.reportedAt?.toISOString() ?? null,
      reviewedAt: row.reviewedAt?.toISOString() ?? null,
      undoneAt: row.undoneAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      canUndo: canUndo(row),
    }),
  );
}

async function requireRow(id: string): Promise<TakeOverRow> {
  const row =
    typeof id === "string" && id.length <= 100
      ? await first(db().select().from(takeOvers).where(eq(takeOvers.id, id)))
      : undefined;
  if (!row) throw new DomainError("not_found", "family.takeOverUnknown");
  return row;
}

/**
 * Admin: undoes a take-over within 7 days of it. The profile gets back the number it had and the
 * access the take-over ended (the family managers', the centre's); the login it made is taken away
 * from the taker (suspended, its number freed, every session ended), so the person can take the
 * profile over again. Sharing links the take-over ended stay ended. Undoing twice is a conflict.
 */
export async function undoTakeOver(actor: Actor, id: string, ip?: string | null) {
  requireAdmin(actor);
  const row = await requireRow(id);
  if (row.undoneAt) throw new DomainError("conflict", "family.takeOverAlreadyUndone");
  if (!canUndo(row))
    throw new DomainError("conflict", "family.takeOverUndoTooLate", { values: { days: UNDO_DAYS } });
  const prev = JSON.parse(row.previous || "{}") as Partial<TakeOverPrevious>;
  const now = new Date();
  await transaction(function* (tx) {
    const took = yield* rows(
      tx
        .update(takeOvers)
        .set({ undoneAt: now, undoneBy: actor.id, reviewedAt: now, reviewedBy: actor.id })
        .where(and(eq(takeOvers.id, row.id), isNull(takeOvers.undoneAt)))
        .returning({ id: takeOvers.id }),
    );
    if (took.length !== 1) throw new DomainError("conflict", "family.takeOverAlreadyUndone");
    const restore: Partial<PatientRow> = {
      accountId: null,
      takenOverAt: null,
      phone: prev.phone ?? null,
      phoneOwner: prev.phoneOwner ?? "none",
      phoneRelationship: prev.phoneRelationship ?? "",
      updatedAt: now,
      ...(prev.centre ? { centreAccessRevokedAt: null } : {}),
    };
    yield* exec(tx.update(patients).set(restore).where(eq(patients.id, row.patientId)));
    if (prev.managers?.length)
      yield* exec(
        tx
          .update(patientManagers)
          .set({ revokedAt: null })
          .where(
            and(
              eq(patientManagers.patientId, row.patientId),
              inArray(patientManagers.managerId, prev.managers),
            ),
          ),
      );
    // The taker's login: suspended, its number and password gone, signed out everywhere.
    yield* retireLogin(tx, row.patientId, now);
    yield* exec(
      auditInsert(tx, actor, "patient.takeover_undo", "patient", row.patientId, { takeOver: row.id }, ip),
    );
  });
  return (await listTakeOvers(actor, { status: "all" })).find((t) => t._id === row.id)!;
}

/** Admin: has looked at a take-over and lets it stand (the account may then delete reports). */
export async function clearTakeOver(actor: Actor, id: string, ip?: string | null) {
  requireAdmin(actor);
  const row = await requireRow(id);
  if (row.undoneAt) throw new DomainError("conflict", "family.takeOverAlreadyUndone");
  const now = new Date();
  await transaction(function* (tx) {
    yield* exec(
      tx
        .update(takeOvers)
        .set({ reviewedAt: now, reviewedBy: actor.id, flag: null })
        .where(eq(takeOvers.id, row.id)),
    );
    yield* exec(
      auditInsert(tx, actor, "patient.takeover_clear", "patient", row.patientId, { takeOver: row.id }, ip),
    );
  });
  return (await listTakeOvers(actor, { status: "all" })).find((t) => t._id === row.id)!;
}

/**
 * A health worker (or any starter) was suspended, moved or declined: every take-over code they
 * started and nobody used yet stops working, and the take-overs they completed go back to the
 * admins' list to review (decision 0055). Completing also re-checks the starter, so a code is dead
 * even where this was not called (an account suspended from the users list).
 */
export async function flagTakeOversStartedBy(userId: string, flag: Exclude<TakeOverFlag, "reported">) {
  const now = new Date();
  await consumeCodesStartedBy("takeover", userId, now);
  await db()
    .update(takeOvers)
    .set({ flag, reviewedAt: null, reviewedBy: null })
    .where(and(eq(takeOvers.startedBy, userId), isNull(takeOvers.undoneAt)));
}

/**
 * A taken-over account deletes no report in its first 72 hours, nor while a "this was not me"
 * report waits, unless an admin has reviewed the take-over (decision 0055): a 403 with the hours
 * left, the reports untouched.
 */
export async function assertMayDeleteReports(actor: Pick<Actor, "id" | "accountType">, patientId: string) {
  if (actor.accountType !== "Patient" || actor.id !== patientId) return;
  const row = await first(
    db()
      .select()
      .from(takeOvers)
      .where(and(eq(takeOvers.patientId, patientId), isNull(takeOvers.undoneAt)))
      .orderBy(desc(takeOvers.createdAt)),
  );
  if (!row || row.reviewedAt) return;
  const left = DELETE_WAIT_HOURS * 3_600_000 - (Date.now() - row.createdAt.getTime());
  if (row.reportedAt) throw new DomainError("forbidden", "family.takeOverDeleteReported");
  if (left > 0)
    throw new DomainError("forbidden", "family.takeOverDeleteWait", {
      values: { hours: Math.ceil(left / 3_600_000) },
    });
}
