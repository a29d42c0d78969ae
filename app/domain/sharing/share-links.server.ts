import { and, count, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { reports, shareLinks } from "~/db/schema";
import {
  createShareLinkFormSchema,
  createShareLinkSchema,
  type ShareLinkStatus,
} from "~/schemas/share-links";
import { formSchema } from "~/schemas/strict";
import type { Paged, PageQuery } from "../platform/paging";
import { newId, newToken, sha256 } from "~/lib/ids.server";
import { auditInsert } from "../platform/index.server";
import type { Client } from "../platform/client";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { hashPassword, type Actor } from "../accounts/index.server";
import { limit } from "../platform/index.server";
import { familyProfiles, patientAccess, traceAccess, type PatientAccess } from "../care/index.server";
import { newestFirstWindow } from "../platform/index.server";

/**
 * Sharing links (decision 0016), modelled on SMART Health Links: a patient shares one
 * report — its file, the written opinion, the opinion letter — with a doctor who has no account.
 *
 * - The link is `<APP_URL>/s/<token>`: 32 random bytes (base64url, 43 characters); only the
 *   token's SHA-256 is stored, so a copy of the database opens nothing.
 * - It expires (1–30 days), may need a passcode (Argon2id, told to the doctor separately; the link
 *   locks for good after PASSCODE_TRIES wrong ones), may be limited to a number of opens, and its
 *   owner may revoke it at any time.
 * - An *open* is the doctor pressing "Open" (a POST, so a messaging app fetching the link for a
 *   preview opens nothing): one conditional UPDATE counts it, so two opens at once can never pass
 *   the limit, and it is written to the audit trail (no actor; the link id, never the token). The
 *   browser then holds a grant — a cookie signed with the session secret, scoped to that link's
 *   path, valid GRANT_MS — with which the page, the file and the letter are read without counting
 *   again; every request still re-checks revocation, expiry and the lock.
 *
 * This module: the patient's side (create, list, revoke) and what links have in common. The
 * doctor's side (the public page, the passcode, the open, the file and the letter):
 * share-visit.server.ts.
 */

export const SHARE_LIMITS = {
  /** Wrong passcodes a link takes in its whole life before it locks. */
  passcodeTries: 5,
  /** How long one open lasts in the doctor's browser (page, file, letter). */
  grantMs: 60 * 60 * 1000,
  /** Live links per report (stops a runaway client filling the table). */
  livePerReport: 20,
};

const DAY_MS = 24 * 60 * 60 * 1000;

type LinkRow = typeof shareLinks.$inferSelect;

export type ApiShareLink = {
  _id: string;
  reportId: string;
  reportType: string;
  label: string;
  includeFile: boolean;
  includeOpinion: boolean;
  includeLetter: boolean;
  passcode: boolean;
  expiresAt: string;
  maxOpens: number | null;
  opens: number;
  lastOpenedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
  status: ShareLinkStatus;
};

/** Why a link does not answer (the first that applies): revoked, locked, expired, used up. */
export function linkStatus(
  l: Pick<LinkRow, "revokedAt" | "passcodeFailures" | "expiresAt" | "maxOpens" | "opens">,
  now = Date.now(),
): ShareLinkStatus {
  if (l.revokedAt) return "revoked";
  if (l.passcodeFailures >= SHARE_LIMITS.passcodeTries) return "locked";
  if (l.expiresAt.getTime() <= now) return "expired";
  if (l.maxOpens !== null && l.opens >= l.maxOpens) return "used_up";
  return "active";
}

function toApiShareLink(l: LinkRow, reportType: string, now = Date.now()): ApiShareLink {
  return {
    _id: l.id,
    reportId: l.reportId,
    reportType,
    label: l.label,
    includeFile: l.includeFile,
    includeOpinion: l.includeOpinion,
    includeLetter: l.includeLetter,
    passcode: !!l.passcodeHash,
    expiresAt: l.expiresAt.toISOString(),
    maxOpens: l.maxOpens,
    opens: l.opens,
    lastOpenedAt: l.lastOpenedAt?.toISOString() ?? null,
    revokedAt: l.revokedAt?.toISOString() ?? null,
    createdAt: l.createdAt.toISOString(),
    status: linkStatus(l, now),
  };
}

/** The public address of a token (the only place it is ever put together). */
export function shareUrl(token: string): string {
  return `${config().appUrl}/s/${token}`;
}

function requirePatient(actor: Actor) {
  if (actor.accountType !== "Patient") throw new DomainError("forbidden", "share.patientsOnly");
}

/**
 * Whether the patient account may share this profile's reports: the person themself, or a family
 * member who manages the profile (decision 0030). Centres and admins do not make links.
 */
async function sharingAccess(actor: Actor, patientId: string): Promise<PatientAccess | null> {
  const access = await patientAccess(actor, patientId);
  return access && (access.kind === "self" || access.kind === "manager") ? access : null;
}

function isForeignKeyViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 4; i++) {
    if (e.code === "23503" || e.code === "SQLITE_CONSTRAINT_FOREIGNKEY") return true;
    e = e.cause as typeof e;
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// The patient: create, list, revoke

/**
 * The owning patient makes a link to one of their reports. `form: true` reads checkboxes (absent
 * = not shared); the API's parts default to shared. A report not yet reviewed can be shared only
 * with its file: the opinion and letter parts then appear on the doctor's page once the expert has
 * written them (the link says what the patient chose, not what existed that day).
 * Returns the link and its URL — the one time the URL exists outside the doctor's hands.
 */
export async function createShareLink(
  actor: Actor,
  input: unknown,
  opts: { form?: boolean; client?: Client } = {},
): Promise<ApiShareLink & { url: string }> {
  requirePatient(actor);
  const parsed = (opts.form ? formSchema(createShareLinkFormSchema) : createShareLinkSchema).safeParse(
    input ?? {},
  );
  if (!parsed.success) {
    throw new DomainError("invalid", "share.createFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  }
  const d = parsed.data;
  const report = await first(
    db()
      .select({
        id: reports.id,
        patientId: reports.patientId,
        status: reports.status,
        reportType: reports.reportType,
      })
      .from(reports)
      .where(eq(reports.id, d.reportId)),
  );
  if (!report) throw new DomainError("not_found", "reports.notFound");
  const access = await sharingAccess(actor, report.patientId);
  if (!access) throw new DomainError("forbidden", "share.notYourReport");
  if (report.status !== "Reviewed" && !d.includeFile) {
    throw new DomainError("invalid", "share.notReviewedYet", {
      fieldErrors: { includeFile: ["share.notReviewedYet"] },
    });
  }
  const now = new Date();
  const live =
    (
      await first(
        db()
          .select({ n: count() })
          .from(shareLinks)
          .where(
            and(
              eq(shareLinks.reportId, report.id),
              isNull(shareLinks.revokedAt),
              gt(shareLinks.expiresAt, now),
            ),
          ),
      )
    )?.n ?? 0;
  if (live >= SHARE_LIMITS.livePerReport) {
    throw new DomainError("conflict", "share.tooManyLinks", { values: { max: SHARE_LIMITS.livePerReport } });
  }
  // Counted once the request is sound, before the passcode's (deliberately slow) hash.
  if (opts.client) await limit("shareCreate", actor.id, opts.client);
  const token = newToken(32);
  const row: LinkRow = {
    id: newId(),
    tokenHash: sha256(token),
    reportId: report.id,
    patientId: report.patientId,
    label: d.label,
    includeFile: d.includeFile,
    includeOpinion: d.includeOpinion,
    includeLetter: d.includeLetter,
    passcodeHash: d.passcode ? await hashPassword(d.passcode) : null,
    passcodeFailures: 0,
    expiresAt: new Date(now.getTime() + d.expiresInDays * DAY_MS),
    maxOpens: d.maxOpens ?? null,
    opens: 0,
    lastOpenedAt: null,
    revokedAt: null,
    createdBy: actor.id,
    createdAt: now,
  };
  try {
    await transaction(function* (tx) {
      yield* exec(tx.insert(shareLinks).values(row));
      yield* exec(
        auditInsert(
          tx,
          actor,
          "share.create",
          "report",
          report.id,
          {
            linkId: row.id,
            file: row.includeFile,
            opinion: row.includeOpinion,
            letter: row.includeLetter,
            days: d.expiresInDays,
            passcode: !!row.passcodeHash,
            maxOpens: row.maxOpens,
          },
          opts.client?.ip,
        ),
      );
    });
  } catch (err) {
    // The report was deleted a moment ago.
    if (isForeignKeyViolation(err)) throw new DomainError("not_found", "reports.notFound");
    throw err;
  }
  await traceAccess(
    actor,
    access,
    "patient.share_create",
    { reportId: report.id, linkId: row.id },
    opts.client?.ip,
  );
  return { ...toApiShareLink(row, report.reportType), url: shareUrl(token) };
}

const linkWithType = () =>
  db()
    .select({ link: shareLinks, reportType: reports.reportType })
    .from(shareLinks)
    .innerJoin(reports, eq(reports.id, shareLinks.reportId));

/**
 * The links of the profiles the patient account shares for (their own and the family members they
 * manage), newest first; `reportId` narrows to one report, `patientId` to one of those profiles.
 */
export async function listShareLinks(
  actor: Actor,
  query: { reportId?: string | null; patientId?: string | null },
  page: PageQuery,
): Promise<Paged<ApiShareLink>> {
  requirePatient(actor);
  const mine = (await familyProfiles(actor)).map((p) => p.id);
  const profileIds = query.patientId ? mine.filter((id) => id === query.patientId) : mine;
  if (!profileIds.length) return { items: [], total: 0, page: page.page, pageSize: page.pageSize };
  const where = and(
    profileIds.length === 1
      ? eq(shareLinks.patientId, profileIds[0])
      : inArray(shareLinks.patientId, profileIds),
    query.reportId ? eq(shareLinks.reportId, query.reportId) : undefined,
  );
  const total = (await first(db().select({ n: count() }).from(shareLinks).where(where)))?.n ?? 0;
  // share_links_patient_idx (patient_id, created_at, id)
  const win = newestFirstWindow(page, shareLinks.createdAt, shareLinks.id);
  const foundRead = await linkWithType()
    .where(and(where, win.after))
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id))
    .limit(win.limit)
    .offset(win.offset);
  const { rows: found, nextCursor } = win.cut(foundRead, (r) => r.link);
  const now = Date.now();
  return {
    nextCursor,
    items: found.map((f) => toApiShareLink(f.link, f.reportType, now)),
    total,
    page: page.page,
    pageSize: page.pageSize,
  };
}

/** The share screen: the patient's own report (anything else is not found) and its links, newest first. */
export async function shareScreen(actor: Actor, reportId: string) {
  requirePatient(actor);
  const id = typeof reportId === "string" && reportId.length <= 100 ? reportId : "";
  const report = id
    ? await first(
        db()
          .select({
            id: reports.id,
            patientId: reports.patientId,
            reportType: reports.reportType,
            status: reports.status,
            createdAt: reports.createdAt,
          })
          .from(reports)
          .where(eq(reports.id, id)),
      )
    : undefined;
  if (!report || !(await sharingAccess(actor, report.patientId)))
    throw new DomainError("not_found", "reports.notFound");
  const list = await listShareLinks(
    actor,
    { reportId: report.id, patientId: report.patientId },
    { page: 1, pageSize: 100 },
  );
  return {
    report: {
      _id: report.id,
      patientId: report.patientId,
      reportType: report.reportType,
      status: report.status,
      createdAt: report.createdAt.toISOString(),
    },
    links: list.items,
  };
}

/**
 * The owning patient revokes a link: from then on it opens nothing (a doctor's open page is
 * refused on the next load). Revoking again changes nothing and answers the same.
 */
export async function revokeShareLink(
  actor: Actor,
  linkId: string,
  opts: { ip?: string | null } = {},
): Promise<ApiShareLink> {
  requirePatient(actor);
  const id = typeof linkId === "string" && linkId.length <= 100 ? linkId : "";
  const found = id ? await first(linkWithType().where(eq(shareLinks.id, id))) : undefined;
  if (!found) throw new DomainError("not_found", "share.linkNotFound");
  const access = await sharingAccess(actor, found.link.patientId);
  if (!access) throw new DomainError("forbidden", "share.notYourLink");
  const now = new Date();
  const revoked = await transaction(function* (tx) {
    const updated = yield* rows(
      tx
        .update(shareLinks)
        .set({ revokedAt: now })
        .where(and(eq(shareLinks.id, id), isNull(shareLinks.revokedAt)))
        .returning({ id: shareLinks.id }),
    );
    if (updated.length === 1)
      yield* exec(
        auditInsert(tx, actor, "share.revoke", "report", found.link.reportId, { linkId: id }, opts.ip),
      );
    return updated.length === 1;
  });
  if (revoked)
    await traceAccess(
      actor,
      access,
      "patient.share_revoke",
      { reportId: found.link.reportId, linkId: id },
      opts.ip,
    );
  const after = await first(linkWithType().where(eq(shareLinks.id, id)));
  if (!after) throw new DomainError("not_found", "share.linkNotFound");
  return toApiShareLink(after.link, after.reportType);
}
