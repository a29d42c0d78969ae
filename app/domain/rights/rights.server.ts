import { and, count, desc, eq } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { rightsRequests } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { lockPerson } from "./consent.server";
import { auditInsert } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import type { Actor } from "../platform/index.server";

/**
 * The rights centre (decision 0019, DPDP Act 2023 ss. 11-14): correction requests answered by admins,
 * erasure of the account after a notice (cancellable with a link that needs no sign-in), the
 * nominee, the grievance contact, and the job that carries out due erasures and keeps the audit
 * trail within its retention. Every step is written to the audit trail (ids and flags only).
 *
 * This module: the requests' shape, the grievance contact and the person's correction requests.
 * The erasure (request, cancel link, carrying it out): erasure.server.ts; the nominee:
 * nominee.server.ts; the admins' queue: rights-admin.server.ts; the daily job: rights-job.server.ts.
 */

export type ApiRightsRequest = {
  _id: string;
  type: "correction" | "erasure";
  status: "open" | "done" | "rejected" | "cancelled";
  details: string;
  dueAt: string | null;
  response: string;
  resolvedAt: string | null;
  createdAt: string;
  user?: { _id: string; firstName: string; lastName: string; email: string; accountType: string } | null;
  resolvedBy?: { _id: string; firstName: string; lastName: string } | null;
};

export type RequestRow = typeof rightsRequests.$inferSelect;

/** A person may have this many correction requests open at once. */
export const OPEN_CORRECTIONS_MAX = 5;
/** The person's own list shows the newest this many. */
const OWN_LIST_MAX = 50;

export function toApi(r: RequestRow): ApiRightsRequest {
  return {
    _id: r.id,
    type: r.type,
    status: r.status,
    details: r.details,
    dueAt: r.dueAt ? r.dueAt.toISOString() : null,
    response: r.response,
    resolvedAt: r.resolvedAt ? r.resolvedAt.toISOString() : null,
    createdAt: r.createdAt.toISOString(),
  };
}

/** The grievance officer of the site configuration (app/site.ts, GRIEVANCE_* override it). */
export function grievanceContact() {
  return { ...config().grievance };
}

// ---------------------------------------------------------------------------------------------
// The person's side

/** The signed-in person's requests, newest first. */
export async function listOwnRequests(actor: Actor): Promise<ApiRightsRequest[]> {
  const found = await db()
    .select()
    .from(rightsRequests)
    .where(eq(rightsRequests.userId, actor.id))
    .orderBy(desc(rightsRequests.createdAt), desc(rightsRequests.id))
    .limit(OWN_LIST_MAX);
  return found.map(toApi);
}

/** The person's open erasure request, if any. */
export async function openErasureOf(userId: string): Promise<ApiRightsRequest | null> {
  const row = await first(
    db()
      .select()
      .from(rightsRequests)
      .where(
        and(
          eq(rightsRequests.userId, userId),
          eq(rightsRequests.type, "erasure"),
          eq(rightsRequests.status, "open"),
        ),
      ),
  );
  return row ? toApi(row) : null;
}

/** Asks admins to correct the person's data (free text). At most OPEN_CORRECTIONS_MAX open at once. */
export async function requestCorrection(
  actor: Actor,
  input: { details: string },
  opts: { ip?: string | null } = {},
): Promise<ApiRightsRequest> {
  const id = newId();
  const now = new Date();
  const row = await transaction(function* (tx) {
    if (!(yield* lockPerson(tx, actor.id)))
      throw new DomainError("not_authenticated", "api.notAuthenticated");
    const [open] = yield* rows(
      tx
        .select({ n: count() })
        .from(rightsRequests)
        .where(
          and(
            eq(rightsRequests.userId, actor.id),
            eq(rightsRequests.type, "correction"),
            eq(rightsRequests.status, "open"),
          ),
        ),
    );
    if ((open?.n ?? 0) >= OPEN_CORRECTIONS_MAX) {
      throw new DomainError("conflict", "rights.tooManyOpen", { values: { max: OPEN_CORRECTIONS_MAX } });
    }
    const [inserted] = yield* rows(
      tx
        .insert(rightsRequests)
        .values({
          id,
          userId: actor.id,
          type: "correction",
          status: "open",
          details: input.details,
          createdAt: now,
        })
        .returning(),
    );
    yield* exec(auditInsert(tx, actor, "account.correction_request", "rights_request", id, null, opts.ip));
    return inserted;
  });
  return toApi(row);
}
