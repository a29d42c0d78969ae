import { and, desc, eq, lt, sql, type SQLWrapper } from "drizzle-orm";
import {
  affected,
  constantText,
  db,
  epochMs,
  exec,
  inList,
  jsonRows,
  listParam,
  preparedOnce,
  unindexed,
  type DB,
  type TxSteps,
} from "~/db/client.server";
import { auditEvents, shareLinks, users, type AccountType } from "~/db/schema";
import type { Paged, PageQuery } from "./paging";
import { newId } from "~/lib/ids.server";
import { DomainError } from "./errors";
import type { Actor } from "./actor";
import { COUNT_KEYS, listCount } from "./list-counts.server";
import { newestFirstWindow } from "./cursor.server";

/**
 * The audit trail: who did what to which record, when and from where. Details never hold
 * medical content (no report text, no file contents, no review text) — only ids and flags.
 */

/**
 * Every action recorded on a person's profile (subject "patient"). Each is a line of the access
 * trail the person (or the family member acting for them) reads in My data, so each has a
 * sentence in every language (care/access.server.ts); a test walks this list. A new action is
 * added here first (the type refuses any other), and then needs its sentence and its label.
 */
export const PATIENT_ACTIONS = [
  "patient.registered",
  "patient.opened",
  "patient.family_add",
  "patient.reports_open",
  "patient.file_open",
  "patient.letter_open",
  "patient.report_upload",
  "patient.followup_ask",
  "patient.voice_add",
  "patient.voice_open",
  "patient.voice_heard",
  "patient.share_create",
  "patient.share_revoke",
  "patient.fhir_export",
  "patient.manager_revoked",
  "patient.centre_revoked",
  "patient.takeover_start",
  "patient.takeover",
  "patient.takeover_report",
  "patient.takeover_undo",
  "patient.takeover_clear",
  "patient.slip_print",
  "patient.call_heard",
  "patient.call_unverified",
  "patient.notice_set",
  "patient.number_proven",
  "patient.step_state",
  "patient.step_reminded",
  "patient.step_answered",
  "patient.step_reminders",
  "patient.step_attached",
  "patient.referral_seen",
] as const;
export type PatientAction = (typeof PATIENT_ACTIONS)[number];

/**
 * Every action the trail records, each by name: `audit`/`auditInsert` refuse any other, and the
 * admin's audit log gives each its label (components/audit/actions.ts, `Record<AuditAction, …>`),
 * so a new action is added here first and then needs its label in every language.
 */
export type AuditAction =
  | "report.upload"
  | "report.file_open"
  | "report.study_open"
  | "report.frame_open"
  | "report.file_refused"
  | "voice_note.add"
  | "voice_note.open"
  | "voice_note.refused"
  | "voice_note.heard"
  | "report.review"
  | "report.delete"
  | "report.claim"
  | "report.release"
  | "report.letter_open"
  | "report.first_opinion_open"
  | "report.second_opinion_request"
  | "report.overdue_notice"
  | "expert.approve"
  | "expert.reject"
  | "expert.details_review"
  | "followup.ask"
  | "followup.answer"
  | "followup.reassign"
  | "account.2fa_enable"
  | "account.2fa_disable"
  | "account.2fa_reset"
  | "account.2fa_recovery_codes"
  | "account.2fa_recovery_login"
  | "account.data_export"
  | "account.consent_grant"
  | "account.consent_withdraw"
  | "account.correction_request"
  | "account.erasure_request"
  | "account.erasure_cancel"
  | "account.erasure"
  | "account.nominee_add"
  | "account.nominee_change"
  | "account.nominee_remove"
  | "account.request_resolve"
  | "account.audit_prune"
  | PatientAction
  | "centre.create"
  | "centre.update"
  | "centre.worker_approve"
  | "centre.worker_reject"
  | "centre.worker_move"
  | "centre.worker_suspend"
  | "centre.worker_unsuspend"
  | "centre.item_held"
  | "centre.held_handed"
  | "share.create"
  | "share.revoke"
  | "share.open"
  | "share.file_open"
  | "share.letter_open"
  | "share.passcode_fail"
  | "backup.started"
  | "backup.restore_tested"
  | "backup.recovery_sheet_printed"
  | "job.retried"
  | "job.dropped"
  | "phrase.add"
  | "phrase.review"
  | "phrase.retire"
  | "lab_word.review"
  | "lab_word.correct"
  | "lab_word.revert";

export type AuditSubjectType = "report" | "user" | (string & {});

const DETAIL_MAX = 2000;

type AuditArgs = [
  actor: Pick<Actor, "id"> | null,
  action: AuditAction,
  subjectType: AuditSubjectType,
  subjectId: string | null,
  detail?: Record<string, unknown> | string | null,
  ip?: string | null,
];

/** Records one event. Never throws on a bad detail; a database failure does throw. */
export async function audit(...args: AuditArgs): Promise<void> {
  await auditInsert(db(), ...args);
}

/**
 * The insert that records one event, on `q` (the database or a transaction): inside a
 * transaction, `yield* exec(auditInsert(tx, …))` commits the event with the change it records.
 */
export function auditInsert(
  q: DB,
  actor: Pick<Actor, "id"> | null,
  action: AuditAction,
  subjectType: AuditSubjectType,
  subjectId: string | null,
  detail?: Record<string, unknown> | string | null,
  ip?: string | null,
) {
  let text: string | null = null;
  if (detail !== undefined && detail !== null) {
    try {
      text = typeof detail === "string" ? detail : JSON.stringify(detail);
    } catch {
      text = null;
    }
    if (text && text.length > DETAIL_MAX) text = text.slice(0, DETAIL_MAX);
  }
  return q.insert(auditEvents).values({
    id: newId(),
    actorId: actor?.id ?? null,
    action,
    subjectType,
    subjectId,
    detail: text,
    ip: ip ? ip.slice(0, 64) : null,
    createdAt: new Date(),
  });
}

/**
 * An erased person's place in the trail (decision 0022): their id as actor or as the subject "user"
 * replaced by a pseudonym, their address dropped — one transaction's steps, run by the erasure.
 */
export function* pseudonymiseInTrail(tx: DB, userId: string, pseudonym: string): TxSteps<void> {
  yield* exec(
    tx.update(auditEvents).set({ actorId: pseudonym, ip: null }).where(eq(auditEvents.actorId, userId)),
  );
  yield* exec(
    tx
      .update(auditEvents)
      .set({ subjectId: pseudonym })
      .where(and(eq(auditEvents.subjectType, "user"), eq(auditEvents.subjectId, userId))),
  );
}

/** Removes the audit events older than `cutoff`; returns how many. */
export async function pruneAuditBefore(cutoff: Date): Promise<number> {
  // audit_events_created_idx (created_at, id)
  return affected(await db().delete(auditEvents).where(lt(auditEvents.createdAt, cutoff)));
}

export type ApiAuditEvent = {
  _id: string;
  action: string;
  subjectType: string;
  subjectId: string | null;
  detail: unknown;
  ip: string | null;
  createdAt: string;
  actor: { _id: string; firstName: string; lastName: string; email: string; accountType: AccountType } | null;
};

export function parseDetail(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Admin only: the trail, newest first, optionally one action, with the actor's name and e-mail. */
export async function listAuditEvents(
  actor: Actor,
  query: PageQuery & { action?: string | null },
): Promise<Paged<ApiAuditEvent>> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "audit.adminsOnly");
  const { page, pageSize } = query;
  const where = query.action ? eq(auditEvents.action, query.action) : undefined;
  // The trail's counter rows (all events, or one action's), kept by triggers (decision 0031).
  const total = await listCount(query.action ? COUNT_KEYS.auditOfAction(query.action) : COUNT_KEYS.auditAll);
  const win = newestFirstWindow(query, auditEvents.createdAt, auditEvents.id);
  const found = await db()
    .select({ e: auditEvents, u: users })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorId))
    .where(and(where, win.after))
    // audit_events_created_idx / audit_events_action_created_idx (…, created_at, id).
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows, nextCursor } = win.cut(found, (r) => r.e);
  return {
    nextCursor,
    items: rows.map(({ e, u }) => ({
      _id: e.id,
      action: e.action,
      subjectType: e.subjectType,
      subjectId: e.subjectId,
      detail: parseDetail(e.detail),
      ip: e.ip,
      createdAt: e.createdAt.toISOString(),
      actor: u
        ? {
            _id: u.id,
            firstName: u.firstName,
            lastName: u.lastName,
            email: u.email,
            accountType: u.accountType,
          }
        : null,
    })),
    total,
    page,
    pageSize,
  };
}

export type FileView = {
  viewerFirstName: string;
  viewerLastName: string;
  viewerAccountType: AccountType;
  /** ISO-8601 UTC. */
  at: string;
};

/** At most this many views are kept per report (the newest). */
const VIEWS_PER_REPORT = 50;

/** An opening of one of the patient's sharing links (decision 0016), for the report's access trail. */
export type LinkOpen = {
  /** ISO-8601 UTC. */
  at: string;
  linkId: string;
  /** Who the patient made the link for, in their words ("" when they gave none). */
  label: string;
};

/**
 * A report's access trail, for many reports in one statement (decision 0042):
 * - `views`: who opened each file — "report.file_open" events by Experts and Admins (the patient's
 *   own views are not listed);
 * - `opens`: the openings of sharing links — "share.open" events, recorded without an actor (the
 *   doctor has no account) — with the label the patient gave the link;
 * newest first, at most VIEWS_PER_REPORT of each per report id. `viewIds` and `openIds` are the
 * reports whose views and whose link openings are wanted.
 */
export async function accessTrailsForReports(
  viewIds: string[],
  openIds: string[],
): Promise<{ views: Map<string, FileView[]>; opens: Map<string, LinkOpen[]> }> {
  const views = new Map<string, FileView[]>(viewIds.map((id) => [id, []]));
  const opens = new Map<string, LinkOpen[]>(openIds.map((id) => [id, []]));
  const ids = [...new Set([...viewIds, ...openIds])];
  const trail = preparedOnce("access_trails_of_reports", (d) =>
    d
      .select({
        reportId: auditEvents.subjectId,
        action: auditEvents.action,
        detail: auditEvents.detail,
        at: auditEvents.createdAt,
        firstName: users.firstName,
        lastName: users.lastName,
        accountType: users.accountType,
      })
      .from(auditEvents)
      .leftJoin(users, eq(users.id, auditEvents.actorId))
      .where(
        and(
          // audit_events_subject_idx (subject_type, subject_id, created_at, id). unindexed() keeps
          // SQLite from walking every such event via the action index instead.
          eq(auditEvents.subjectType, "report"),
          inList(auditEvents.subjectId, "ids"),
          sql`${unindexed(auditEvents.action)} in (${"report.file_open"}, ${"share.open"})`,
        ),
      )
      // Per report, newest first: the index order, so no sort step.
      .orderBy(desc(auditEvents.subjectId), desc(auditEvents.createdAt), desc(auditEvents.id)),
  );
  // One list parameter whatever the number of reports (inList): no batches.
  if (ids.length)
    for (const r of await trail.execute({ ids: listParam(ids) })) {
      if (r.action === "report.file_open") {
        const list = views.get(r.reportId!);
        if (!list || list.length >= VIEWS_PER_REPORT) continue;
        if (r.accountType !== "Expert" && r.accountType !== "Admin") continue;
        list.push(toView({ ...r, at: r.at.getTime() }));
      } else {
        const list = opens.get(r.reportId!);
        if (!list || list.length >= VIEWS_PER_REPORT) continue;
        list.push(toOpen({ at: r.at.getTime(), detail: r.detail }));
      }
    }
  await labelLinkOpens([...opens.values()]);
  return { views, opens };
}

type ViewFacts = {
  at: number;
  firstName: string | null;
  lastName: string | null;
  accountType: AccountType | null;
};

function toView(e: ViewFacts): FileView {
  return {
    viewerFirstName: e.firstName!,
    viewerLastName: e.lastName!,
    viewerAccountType: e.accountType!,
    at: new Date(e.at).toISOString(),
  };
}

/** A link opening; its label is filled in by `labelLinkOpens`. */
function toOpen(e: { at: number; detail: string | null }): LinkOpen {
  const detail = parseDetail(e.detail) as { linkId?: unknown } | null;
  const linkId = typeof detail?.linkId === "string" ? detail.linkId : "";
  return { at: new Date(e.at).toISOString(), linkId, label: "" };
}

/** The labels the patient gave their links, on these openings (one statement, none when there are none). */
export async function labelLinkOpens(lists: LinkOpen[][]) {
  const linkIds = [...new Set(lists.flatMap((l) => l.map((o) => o.linkId)).filter(Boolean))];
  if (!linkIds.length) return;
  const query = preparedOnce("share_link_labels", (d) =>
    d
      .select({ id: shareLinks.id, label: shareLinks.label })
      .from(shareLinks)
      .where(inList(shareLinks.id, "ids")),
  );
  const labels = new Map((await query.execute({ ids: listParam(linkIds) })).map((l) => [l.id, l.label]));
  for (const list of lists) for (const o of list) o.label = labels.get(o.linkId) ?? "";
}

// Named in the sub-selects by hand: they stand inside sql`` (see followUpsColumn).
const VIEW_ROWS = sql.identifier("trail_views");
const OPEN_ROWS = sql.identifier("trail_opens");
const col = (rows: ReturnType<typeof sql.identifier>, name: string) => sql`${rows}.${sql.identifier(name)}`;

/**
 * The access trail of the report whose id is in `reportId`, as two columns of a select (correlated
 * JSON lists, each the newest VIEWS_PER_REPORT events on audit_events_subject_idx), so that the
 * patient's list brings each case's trail with its page instead of asking for it after: who opened
 * the file (Experts and Admins) and the openings of sharing links. Read with `accessTrailFromColumns`.
 */
export function accessTrailColumns(reportId: SQLWrapper) {
  const newest = sql`order by ${auditEvents.createdAt} desc, ${auditEvents.id} desc limit ${sql.raw(String(VIEWS_PER_REPORT))}`;
  const ofReport = (action: string) =>
    sql`${auditEvents.subjectType} = ${constantText("report")} and ${auditEvents.subjectId} = ${reportId} and ${unindexed(auditEvents.action)} = ${constantText(action)}`;
  return {
    fileViewList: jsonRows(
      {
        at: col(VIEW_ROWS, "at"),
        id: col(VIEW_ROWS, "id"),
        firstName: col(VIEW_ROWS, "first_name"),
        lastName: col(VIEW_ROWS, "last_name"),
        accountType: col(VIEW_ROWS, "account_type"),
      },
      sql`from (select ${epochMs(auditEvents.createdAt)} as at, ${auditEvents.id} as id, ${users.firstName} as first_name, ${users.lastName} as last_name, ${users.accountType} as account_type from ${auditEvents} inner join ${users} on ${users.id} = ${auditEvents.actorId} where ${ofReport("report.file_open")} and ${users.accountType} in (${constantText("Expert")}, ${constantText("Admin")}) ${newest}) as ${VIEW_ROWS}`,
    ),
    linkOpenList: jsonRows(
      { at: col(OPEN_ROWS, "at"), id: col(OPEN_ROWS, "id"), detail: col(OPEN_ROWS, "detail") },
      sql`from (select ${epochMs(auditEvents.createdAt)} as at, ${auditEvents.id} as id, ${auditEvents.detail} as detail from ${auditEvents} where ${ofReport("share.open")} ${newest}) as ${OPEN_ROWS}`,
    ),
  };
}

/** The trail `accessTrailColumns` brought, newest first; the openings still need `labelLinkOpens`. */
export function accessTrailFromColumns(row: { fileViewList?: string | null; linkOpenList?: string | null }) {
  // Newest first, as the index walked them (JSON aggregation does not promise to keep it).
  type Event = { at: number; id: string };
  const newestFirst = <T extends Event>(list: T[]) =>
    list.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const read = <T extends Event>(text: string | null | undefined) =>
    newestFirst(text ? (JSON.parse(text) as T[]) : []);
  return {
    views: read<ViewFacts & { id: string }>(row.fileViewList).map(toView),
    opens: read<{ at: number; id: string; detail: string | null }>(row.linkOpenList).map(toOpen),
  };
}
