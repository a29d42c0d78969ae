import { and, eq, lte, type SQL } from "drizzle-orm";
import { createHmac, randomBytes } from "node:crypto";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { rightsRequests, users } from "~/db/schema";
import { isLocale } from "~/i18n/config";
import { DEFAULT_TIME_ZONE, formatDateTime } from "~/lib/format";
import { newId, sha256 } from "~/lib/ids.server";
import { log } from "~/lib/log.server";
import { accountDeletionSteps, personNumbers, reauthenticate, type Actor } from "../accounts/index.server";
import { lockPerson } from "./consent.server";
import { assertMayDeleteReports } from "../care/index.server";
import { auditInsert, pseudonymiseInTrail } from "../platform/index.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import {
  contactErasureSteps,
  deleteOutboxFilesTo,
  notify,
  recipientColumns,
  smsErasureSteps,
  mailErasureSteps,
} from "../messaging/index.server";
import { deletePagePreviews, deleteSegments, deleteStored } from "../records/index.server";
import { callErasureSteps } from "../calls/index.server";
import { toApi, type ApiRightsRequest, type RequestRow } from "./rights.server";

/**
 * The erasure of an account (decision 0022): the request after a notice, its cancel link that needs
 * no sign-in, an erasure at once, and `eraseOne`, which carries one out.
 */

export const CANCEL_PATH = "/my-data/cancel-erasure";

/** The SMS-sized token of a cancel link: 128 random bits, URL-safe (22 characters). */
function newCancelToken() {
  return randomBytes(16).toString("base64url");
}

/** What erasing the account asks: the password again, the second factor when it is on, and when. */
export type ErasureInput = {
  password: string;
  code?: string | null;
  recoveryCode?: string | null;
  /** Erase now instead of after the notice (ERASURE_NOTICE_HOURS); the notice is the default. */
  immediate?: boolean;
};

export type ErasureOutcome = {
  /** True when the account is gone now; false when an erasure is due after the notice. */
  erased: boolean;
  request: ApiRightsRequest;
};

/**
 * Erases the account (decision 0022): the one way an account is deleted, shared by Settings' "Delete
 * account", My data's erasure request, `DELETE /api/v1/profile/delete-profile` and
 * `POST /api/v1/rights/erasure`. A session or token alone is never enough: the password again
 * (counted by the `passwordCheck` budget) and, when two-step login is on, a code from the app or a
 * recovery code. By default an erasure request due after the notice, with a mail and/or SMS
 * whose link cancels it without signing in (one open erasure per person); with `immediate`, the
 * same erasure carried out now. Either way `eraseOne` does it: the audit trail pseudonymised,
 * every trace of the person (SMS, codes, contact and callback messages, unfinished uploads) gone.
 */
export async function eraseAccount(
  actor: Actor,
  input: ErasureInput,
  client: Client,
): Promise<ErasureOutcome> {
  await reauthenticate(actor, input, client, "profile.deletePasswordWrong");
  // A taken-over account erases nothing in its first 72 hours without an admin's review.
  await assertMayDeleteReports(actor, actor.id);
  if (!input.immediate) return { erased: false, request: await scheduleErasure(actor, client) };
  const now = new Date();
  const row = await transaction(function* (tx) {
    if (!(yield* lockPerson(tx, actor.id)))
      throw new DomainError("not_authenticated", "api.notAuthenticated");
    // An erasure already on notice is brought forward; otherwise one is made, due now.
    const [open] = yield* rows(
      tx
        .update(rightsRequests)
        .set({ dueAt: now })
        .where(
          and(
            eq(rightsRequests.userId, actor.id),
            eq(rightsRequests.type, "erasure"),
            eq(rightsRequests.status, "open"),
          ),
        )
        .returning(),
    );
    const [request] = open
      ? [open]
      : yield* rows(
          tx
            .insert(rightsRequests)
            .values({
              id: newId(),
              userId: actor.id,
              type: "erasure",
              status: "open",
              dueAt: now,
              createdAt: now,
            })
            .returning(),
        );
    yield* exec(
      auditInsert(
        tx,
        actor,
        "account.erasure_request",
        "rights_request",
        request.id,
        { dueAt: now.toISOString(), immediate: true },
        client.ip,
      ),
    );
    return request;
  });
  if (!(await eraseOne(row, now))) {
    // The rights job (any node's) may have carried out this request, due now, a moment before us:
    // the person asked for the erasure and it is done.
    const done = await first(
      db()
        .select()
        .from(rightsRequests)
        .where(and(eq(rightsRequests.id, row.id), eq(rightsRequests.status, "done"))),
    );
    if (!done) throw new DomainError("conflict", "profile.deleteFailedLater");
    return { erased: true, request: toApi(done) };
  }
  return { erased: true, request: toApi({ ...row, status: "done", resolvedAt: now, cancelTokenHash: null }) };
}

/** My data's and the rights API's erasure request: `eraseAccount` after the notice. */
export async function requestErasure(
  actor: Actor,
  input: Omit<ErasureInput, "immediate">,
  client: Client,
): Promise<ApiRightsRequest> {
  return (await eraseAccount(actor, { ...input, immediate: false }, client)).request;
}

/**
 * An open erasure request due after the notice (ERASURE_NOTICE_HOURS, 48), and a mail and/or SMS
 * with a link that cancels it without signing in. One open erasure per person.
 */
async function scheduleErasure(actor: Actor, client: Client): Promise<ApiRightsRequest> {
  const token = newCancelToken();
  const id = newId();
  const now = new Date();
  const due = new Date(now.getTime() + config().erasureNoticeMs);
  const row = await transaction(function* (tx) {
    if (!(yield* lockPerson(tx, actor.id)))
      throw new DomainError("not_authenticated", "api.notAuthenticated");
    const [open] = yield* rows(
      tx
        .select({ id: rightsRequests.id })
        .from(rightsRequests)
        .where(
          and(
            eq(rightsRequests.userId, actor.id),
            eq(rightsRequests.type, "erasure"),
            eq(rightsRequests.status, "open"),
          ),
        )
        .limit(1),
    );
    if (open) throw new DomainError("conflict", "rights.erasureAlreadyRequested");
    const [inserted] = yield* rows(
      tx
        .insert(rightsRequests)
        .values({
          id,
          userId: actor.id,
          type: "erasure",
          status: "open",
          dueAt: due,
          cancelTokenHash: sha256(token),
          createdAt: now,
        })
        .returning(),
    );
    yield* exec(
      auditInsert(
        tx,
        actor,
        "account.erasure_request",
        "rights_request",
        id,
        { dueAt: due.toISOString() },
        client.ip,
      ),
    );
    return inserted;
  });
  const to = await first(db().select(recipientColumns).from(users).where(eq(users.id, actor.id)));
  if (to) {
    const locale = isLocale(to.locale) ? to.locale : "en";
    const cancelLink = `${config().appUrl}${CANCEL_PATH}/${token}`;
    notify(to, {
      subject: "rights.erasureMailSubject",
      body: "rights.erasureMailBody",
      action: "rights.erasureMailAction",
      path: `${CANCEL_PATH}/${token}`,
      vars: { date: formatDateTime(due, locale, DEFAULT_TIME_ZONE), cancelLink },
      lines: (t) => [t("rights.erasureMailKept")],
      sms: { key: "rights.smsErasureNotice", purpose: "notice" },
    });
  }
  return toApi(row);
}

/**
 * Cancels an open erasure: signed in (the person's own), or by the token of the link in the notice
 * (no sign-in). One conditional update decides, so a link works once, and a cancel racing the
 * erasure job either wins (nothing is erased) or finds the request done.
 */
export async function cancelErasure(
  actor: Actor | null,
  input: { token?: string | null },
  opts: { ip?: string | null } = {},
): Promise<ApiRightsRequest> {
  const token = typeof input.token === "string" ? input.token.trim() : "";
  let where: SQL;
  if (token) {
    if (token.length > 100) throw new DomainError("not_found", "rights.cancelLinkInvalid");
    where = eq(rightsRequests.cancelTokenHash, sha256(token));
  } else if (actor) {
    where = eq(rightsRequests.userId, actor.id);
  } else {
    throw new DomainError("not_authenticated", "api.notAuthenticated");
  }
  const now = new Date();
  const row = await transaction(function* (tx) {
    const [updated] = yield* rows(
      tx
        .update(rightsRequests)
        .set({ status: "cancelled", resolvedAt: now })
        .where(and(where, eq(rightsRequests.type, "erasure"), eq(rightsRequests.status, "open")))
        .returning(),
    );
    if (!updated) return null;
    yield* exec(
      auditInsert(
        tx,
        updated.userId ? { id: updated.userId } : null,
        "account.erasure_cancel",
        "rights_request",
        updated.id,
        { by: token ? "link" : "signed-in" },
        opts.ip,
      ),
    );
    return updated;
  });
  if (!row) throw new DomainError("not_found", token ? "rights.cancelLinkInvalid" : "rights.noOpenErasure");
  return toApi(row);
}

/** Whether a cancel link still cancels something (the public page asks before showing its button). */
export async function cancelLinkLive(token: string): Promise<{ dueAt: string } | null> {
  if (!token || token.length > 100) return null;
  const row = await first(
    db()
      .select({ dueAt: rightsRequests.dueAt })
      .from(rightsRequests)
      .where(
        and(
          eq(rightsRequests.cancelTokenHash, sha256(token)),
          eq(rightsRequests.type, "erasure"),
          eq(rightsRequests.status, "open"),
        ),
      ),
  );
  return row?.dueAt ? { dueAt: row.dueAt.toISOString() } : null;
}

// ---------------------------------------------------------------------------------------------
// Carrying out an erasure

/**
 * What replaces an erased person's id in the audit trail: a keyed hash (the deployment's session
 * secret), so their events still read as one person's but lead to nobody.
 */
export function erasedPseudonym(userId: string): string {
  return `erased-${createHmac("sha256", config().sessionSecret).update(`erased:${userId}`).digest("hex").slice(0, 24)}`;
}

/**
 * Carries out one due erasure in one transaction: the request is marked done (a conditional
 * update, so a cancel at the same moment wins or loses as a whole), the person's correction
 * requests lose their text, their audit events keep what happened and when but lose the id (a
 * pseudonym instead) and the address, every SMS to their numbers, their codes, and their contact
 * and callback messages (matched by account, e-mail and number) are deleted, and the account goes
 * (profile, sessions, reports, consents, nominee, unfinished uploads by foreign key). Files and
 * upload segments go after the commit; the last message telling the person it is done is an SMS
 * of purpose "erased", which the sender deletes once sent.
 */
export async function eraseOne(request: Pick<RequestRow, "id" | "userId">, now: Date): Promise<boolean> {
  const userId = request.userId;
  const pseudonym = userId ? erasedPseudonym(userId) : null;
  // Read before the row goes: the last message tells the person it is done.
  const to = userId
    ? await first(db().select(recipientColumns).from(users).where(eq(users.id, userId)))
    : undefined;
  const result = await transaction(function* (tx) {
    const [won] = yield* rows(
      tx
        .update(rightsRequests)
        .set({ status: "done", resolvedAt: now, cancelTokenHash: null })
        .where(
          and(
            eq(rightsRequests.id, request.id),
            eq(rightsRequests.status, "open"),
            lte(rightsRequests.dueAt, now),
          ),
        )
        .returning({ id: rightsRequests.id }),
    );
    if (!won) return null;
    let removed: { fileKeys: string[]; uploadIds: string[]; numbers: string[] } = {
      fileKeys: [],
      uploadIds: [],
      numbers: [],
    };
    if (userId && pseudonym) {
      yield* exec(
        tx
          .update(rightsRequests)
          .set({ details: "", response: "" })
          .where(and(eq(rightsRequests.userId, userId), eq(rightsRequests.type, "correction"))),
      );
      yield* pseudonymiseInTrail(tx, userId, pseudonym);
      const [person] = yield* rows(
        tx
          .select({
            email: users.email,
            phone: users.phone,
            countryCode: users.countryCode,
            contactNumber: users.contactNumber,
          })
          .from(users)
          .where(eq(users.id, userId)),
      );
      if (person) {
        const numbers = personNumbers(person);
        yield* smsErasureSteps(tx, numbers);
        yield* callErasureSteps(tx, numbers);
        yield* mailErasureSteps(tx, person.email);
        yield* contactErasureSteps(tx, { userId, email: person.email, numbers });
        removed = { ...(yield* accountDeletionSteps(tx, userId)), numbers };
      }
    }
    yield* exec(
      auditInsert(tx, null, "account.erasure", "rights_request", request.id, {
        person: pseudonym,
        files: removed.fileKeys.length,
        uploads: removed.uploadIds.length,
      }),
    );
    return removed;
  });
  if (result === null) return false;
  if (to) {
    notify(to, {
      subject: "rights.erasedMailSubject",
      body: "rights.erasedMailBody",
      action: "rights.erasedMailAction",
      path: "/",
      lines: (t) => [t("rights.erasureMailKept")],
      sms: { key: "rights.smsErased", purpose: "erased" },
    });
  }
  await Promise.all([
    // Without SMS_URL, the outbox files of messages to the person (decision 0022).
    deleteOutboxFilesTo(result.numbers).catch((err) =>
      log("error", "could not delete erased sms outbox files", { error: String(err) }),
    ),
    // The cached previews of the person's PDF pages (decision 0086).
    deletePagePreviews(result.fileKeys),
    ...result.fileKeys.map((k) =>
      deleteStored(k).catch((err) =>
        log("error", "could not delete erased file", { key: k, error: String(err) }),
      ),
    ),
    ...result.uploadIds.map((id) =>
      deleteSegments(id).catch((err) =>
        log("error", "could not delete erased upload segments", { upload: id, error: String(err) }),
      ),
    ),
  ]);
  return true;
}
