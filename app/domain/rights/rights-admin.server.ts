import { and, count, desc, eq } from "drizzle-orm";
import { alias } from "~/db/alias";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { rightsRequests, users } from "~/db/schema";
import type { ResolveInput, RightsQueueQuery } from "~/schemas/rights";
import type { Paged, PageQuery } from "../platform/paging";
import { auditInsert } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { notify, recipientColumns } from "../messaging/index.server";
import type { Actor } from "../platform/index.server";
import { COUNT_KEYS, listCount } from "../platform/index.server";
import { newestFirstWindow } from "../platform/index.server";
import { toApi, type ApiRightsRequest } from "./rights.server";
// ---------------------------------------------------------------------------------------------
// Admins

function requireAdmin(actor: Actor) {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "rights.adminsOnly");
}

const resolver = alias(users, "resolver");

/** Admin: requests, newest first, by status (open unless told; "all") and type. */
export async function listRightsRequests(
  actor: Actor,
  query: PageQuery & RightsQueueQuery,
): Promise<Paged<ApiRightsRequest>> {
  requireAdmin(actor);
  const status = query.status ?? "open";
  const where = and(
    status === "all" ? undefined : eq(rightsRequests.status, status),
    query.type ? eq(rightsRequests.type, query.type) : undefined,
  );
  const total = await listCount(
    status === "all"
      ? query.type
        ? COUNT_KEYS.rightsOfType(query.type)
        : COUNT_KEYS.rightsAll
      : query.type
        ? COUNT_KEYS.rightsOfStatusType(status, query.type)
        : COUNT_KEYS.rightsOfStatus(status),
  );
  const win = newestFirstWindow(query, rightsRequests.createdAt, rightsRequests.id);
  const foundRead = await db()
    .select({ r: rightsRequests, u: users, by: resolver })
    .from(rightsRequests)
    .leftJoin(users, eq(users.id, rightsRequests.userId))
    .leftJoin(resolver, eq(resolver.id, rightsRequests.resolvedBy))
    // rights_requests_status_idx (status, created_at, id)
    .where(and(where, win.after))
    .orderBy(desc(rightsRequests.createdAt), desc(rightsRequests.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows: found, nextCursor } = win.cut(foundRead, (r) => r.r);
  return {
    nextCursor,
    items: found.map(({ r, u, by }) => ({
      ...toApi(r),
      user: u
        ? {
            _id: u.id,
            firstName: u.firstName,
            lastName: u.lastName,
            email: u.email,
            accountType: u.accountType,
          }
        : null,
      resolvedBy: by ? { _id: by.id, firstName: by.firstName, lastName: by.lastName } : null,
    })),
    total,
    page: query.page,
    pageSize: query.pageSize,
  };
}

/**
 * Admin: answers an open request — a correction done or rejected, an erasure rejected (the law may
 * require keeping the data; erasures are otherwise carried out by the job when due, never early).
 * One conditional update decides, so two admins answering at once give one answer; the person is
 * told (no content in the message) and reads the answer on My data.
 */
export async function resolveRightsRequest(
  actor: Actor,
  requestId: string,
  input: ResolveInput,
  opts: { ip?: string | null } = {},
): Promise<ApiRightsRequest> {
  requireAdmin(actor);
  const id = typeof requestId === "string" && requestId.length <= 100 ? requestId : "";
  const current = id
    ? await first(db().select().from(rightsRequests).where(eq(rightsRequests.id, id)))
    : undefined;
  if (!current) throw new DomainError("not_found", "rights.requestNotFound");
  if (current.type === "erasure" && input.status === "done") {
    throw new DomainError("invalid", "rights.erasureNotDoneByHand", {
      fieldErrors: { status: ["rights.erasureNotDoneByHand"] },
    });
  }
  const now = new Date();
  const row = await transaction(function* (tx) {
    const [updated] = yield* rows(
      tx
        .update(rightsRequests)
        .set({ status: input.status, response: input.response, resolvedBy: actor.id, resolvedAt: now })
        .where(and(eq(rightsRequests.id, id), eq(rightsRequests.status, "open")))
        .returning(),
    );
    if (!updated) return null;
    yield* exec(
      auditInsert(
        tx,
        actor,
        "account.request_resolve",
        "rights_request",
        id,
        { type: updated.type, status: input.status },
        opts.ip,
      ),
    );
    return updated;
  });
  if (!row) throw new DomainError("conflict", "rights.alreadyResolved");
  if (row.userId) {
    const to = await first(
      db()
        .select({ ...recipientColumns, suspendedAt: users.suspendedAt })
        .from(users)
        .where(eq(users.id, row.userId)),
    );
    if (to && !to.suspendedAt) {
      notify(to, {
        subject: "rights.answeredMailSubject",
        body: "rights.answeredMailBody",
        action: "rights.answeredMailAction",
        path: "/dashboard/my-data",
        sms: { key: "rights.smsRequestAnswered", purpose: "notice" },
      });
    }
  }
  return {
    ...toApi(row),
    resolvedBy: { _id: actor.id, firstName: actor.firstName, lastName: actor.lastName },
  };
}

/** Admin: how many requests are open (the queue's badge). */
export async function openRequestCount(actor: Actor): Promise<number> {
  requireAdmin(actor);
  return (
    (await first(db().select({ n: count() }).from(rightsRequests).where(eq(rightsRequests.status, "open"))))
      ?.n ?? 0
  );
}
