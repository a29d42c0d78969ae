import { and, count, desc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { alias } from "~/db/alias";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Readable } from "node:stream";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction, type DB, type TxSteps } from "~/db/client.server";
import { patients, reports, shareLinks, users } from "~/db/schema";
import {
  createShareLinkFormSchema,
  createShareLinkSchema,
  normalizePasscode,
  type ShareLinkStatus,
} from "~/schemas/share-links";
import { formSchema } from "~/schemas/strict";
import type { Paged, PageQuery } from "../platform/paging";
import { newId, newToken, sha256 } from "~/utils/ids.server";
import { audit, auditInsert } from "../platform/audit.server";
import type { Client } from "../platform/client";
import { DomainError, zodFieldErrors, type DomainErrorCode } from "../platform/errors";
import { expertDetailsFor } from "../accounts/expert-details.server";
import { openDecrypted } from "../records/index.server";
import { followUpsFor, renderOpinionLetter, toApiReport } from "../consultation/index.server";
import { hashPassword, verifyPassword } from "../accounts/passwords.server";
import { forgive, limit } from "../platform/ratelimit.server";
import type { Actor } from "../accounts/sessions.server";
import { familyProfiles, patientAccess, traceAccess, type PatientAccess } from "../care/patients.server";
import { newestFirstWindow } from "../platform/cursor.server";

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
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

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

// ---------------------------------------------------------------------------------------
// The doctor: the public page, the file and the letter

export type ShareRefusalReason =
  | "unknown"
  | "revoked"
  | "unavailable"
  | "locked"
  | "expired"
  | "used_up"
  | "passcode_required"
  | "wrong_passcode"
  | "not_opened"
  | "not_shared";

const REFUSALS: Record<ShareRefusalReason, { code: DomainErrorCode; key: string; status: number }> = {
  unknown: { code: "not_found", key: "share.refused.unknown", status: 404 },
  revoked: { code: "forbidden", key: "share.refused.revoked", status: 410 },
  unavailable: { code: "forbidden", key: "share.refused.unavailable", status: 410 },
  locked: { code: "forbidden", key: "share.refused.locked", status: 410 },
  expired: { code: "forbidden", key: "share.refused.expired", status: 410 },
  used_up: { code: "forbidden", key: "share.refused.usedUp", status: 410 },
  passcode_required: { code: "not_authenticated", key: "share.refused.passcodeRequired", status: 401 },
  wrong_passcode: { code: "not_authenticated", key: "share.refused.wrongPasscode", status: 401 },
  not_opened: { code: "not_authenticated", key: "share.refused.notOpened", status: 401 },
  not_shared: { code: "not_found", key: "share.refused.notShared", status: 404 },
};

/**
 * A link that does not answer, and why. `status` is what the public page and its files answer:
 * 404 unknown (or a part not shared), 410 gone (revoked, expired, used up, locked, the owner's
 * account suspended), 401 a passcode is needed or was wrong, or the link was not opened first.
 */
export class ShareLinkRefused extends DomainError {
  status: number;
  /** The link is dead for good: the page says so and offers nothing to type. */
  gone: boolean;
  constructor(
    public reason: ShareRefusalReason,
    values?: Record<string, string | number>,
  ) {
    const r = REFUSALS[reason];
    super(r.code, r.key, values ? { values } : {});
    this.status = r.status;
    this.gone = r.status === 410 || reason === "unknown";
  }
}

export function isShareRefusal(err: unknown): err is ShareLinkRefused {
  return err instanceof ShareLinkRefused;
}

const patientAccount = alias(users, "share_patient");
const expertUser = alias(users, "share_expert");

async function findByToken(token: unknown, client: Client) {
  // Every lookup costs the address a point of its miss budget; a known token gives it back.
  await limit("shareMiss", null, client);
  const t = typeof token === "string" ? token : "";
  const found = TOKEN_RE.test(t)
    ? await first(
        db()
          .select({
            link: shareLinks,
            report: reports,
            // The report's patient profile (decision 0030): a family member's as much as the person's own.
            patient: {
              firstName: patients.firstName,
              lastName: patients.lastName,
              locale: patients.locale,
            },
            // Their own login, if any: a suspended account's links open nothing.
            account: { suspendedAt: patientAccount.suspendedAt },
            expert: { id: expertUser.id, firstName: expertUser.firstName, lastName: expertUser.lastName },
          })
          .from(shareLinks)
          .innerJoin(reports, eq(reports.id, shareLinks.reportId))
          .innerJoin(patients, eq(patients.id, shareLinks.patientId))
          .leftJoin(patientAccount, eq(patientAccount.id, patients.accountId))
          .leftJoin(expertUser, eq(expertUser.id, reports.expertId))
          // share_links_token_uq
          .where(eq(shareLinks.tokenHash, sha256(t))),
      )
    : undefined;
  if (!found) throw new ShareLinkRefused("unknown");
  await forgive("shareMiss", null, client);
  return found;
}

type Found = Awaited<ReturnType<typeof findByToken>>;

/** Refuses a link that cannot be used now; a browser holding an open (`opened`) is past the open limit. */
function refuseIfDead(f: Found, opened: boolean, now = Date.now()) {
  const status = linkStatus(f.link, now);
  if (status === "revoked") throw new ShareLinkRefused("revoked");
  if (f.account?.suspendedAt) throw new ShareLinkRefused("unavailable");
  if (status === "locked") throw new ShareLinkRefused("locked");
  if (status === "expired") throw new ShareLinkRefused("expired");
  if (status === "used_up" && !opened) throw new ShareLinkRefused("used_up");
}

function grantMac(linkId: string, exp: number) {
  return createHmac("sha256", config().sessionSecret)
    .update(`share-grant\u0000${linkId}\u0000${exp}`)
    .digest("base64url");
}

export type ShareGrant = { value: string; maxAgeSeconds: number };

function newGrant(linkId: string, now = Date.now()): ShareGrant {
  const exp = now + SHARE_LIMITS.grantMs;
  return { value: `${exp}.${grantMac(linkId, exp)}`, maxAgeSeconds: Math.floor(SHARE_LIMITS.grantMs / 1000) };
}

/** Whether a browser's grant (the cookie's value) is a live open of this link. */
function grantValid(linkId: string, value: unknown, now = Date.now()): boolean {
  if (typeof value !== "string") return false;
  const m = /^(\d{10,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!m) return false;
  const exp = Number(m[1]);
  if (exp <= now || exp > now + SHARE_LIMITS.grantMs + 60_000) return false;
  const want = Buffer.from(grantMac(linkId, exp));
  const got = Buffer.from(m[2]);
  return want.length === got.length && timingSafeEqual(want, got);
}

export type ShareLanding = {
  kind: "landing";
  /** The doctor must type the passcode the patient gave them. */
  passcode: boolean;
  expiresAt: string;
};

export type SharedView = {
  kind: "view";
  expiresAt: string;
  patientName: string;
  reportType: string;
  submittedAt: string;
  reviewedAt: string | null;
  file: null | { isPdf: boolean; mimeType: string; size: number };
  opinion: null | {
    review: string | null;
    findings: string | null;
    recommendations: string | null;
    seeDoctorSoon: boolean;
    expert: null | { firstName: string; lastName: string; registrationNumber: string; specialties: string[] };
  };
  /** The opinion or the letter was shared but the expert has not written it yet. */
  opinionPending: boolean;
  letter: boolean;
};

async function viewOf(f: Found): Promise<SharedView> {
  const r = f.report;
  const reviewed = r.status === "Reviewed";
  let opinion: SharedView["opinion"] = null;
  if (f.link.includeOpinion && reviewed) {
    const expertId = f.expert?.id ?? null;
    const details = expertId ? (await expertDetailsFor([expertId])).get(expertId) : undefined;
    opinion = {
      review: r.review,
      findings: r.findings,
      recommendations: r.recommendations,
      seeDoctorSoon: r.seeDoctorSoon,
      expert: f.expert?.id
        ? {
            // As the letter was signed (decision 0023), not the expert's current details.
            firstName: r.signerFirstName ?? f.expert.firstName,
            lastName: r.signerLastName ?? f.expert.lastName,
            registrationNumber: r.signerRegistrationNumber ?? "",
            specialties: details?.specialties ?? [],
          }
        : null,
    };
  }
  return {
    kind: "view",
    expiresAt: f.link.expiresAt.toISOString(),
    patientName: `${f.patient.firstName} ${f.patient.lastName}`.trim(),
    reportType: r.reportType,
    submittedAt: r.createdAt.toISOString(),
    reviewedAt: reviewed && r.reviewedAt ? r.reviewedAt.toISOString() : null,
    file: f.link.includeFile
      ? { isPdf: r.mimeType === "application/pdf", mimeType: r.mimeType, size: r.size }
      : null,
    opinion,
    opinionPending: (f.link.includeOpinion || f.link.includeLetter) && !reviewed,
    letter: f.link.includeLetter && reviewed && !!r.letterCode,
  };
}

/**
 * The public page's GET: for a browser holding an open of this link, what was shared; otherwise
 * the landing page (whether a passcode is needed). Nothing is counted here. Refuses dead links.
 */
export async function visitShareLink(
  token: string,
  grant: string | null | undefined,
  client: Client,
): Promise<ShareLanding | SharedView> {
  const f = await findByToken(token, client);
  const opened = grantValid(f.link.id, grant);
  refuseIfDead(f, opened);
  if (!opened)
    return { kind: "landing", passcode: !!f.link.passcodeHash, expiresAt: f.link.expiresAt.toISOString() };
  return viewOf(f);
}

/**
 * Checks a passcode. A try is taken from the link before the (slow) check and given back when
 * the passcode is right, so guesses sent in parallel can never pass the link's PASSCODE_TRIES.
 */
async function checkPasscode(f: Found, input: unknown, client: Client) {
  const raw = (input as { passcode?: unknown } | null)?.passcode;
  const passcode = typeof raw === "string" ? normalizePasscode(raw).slice(0, 200) : "";
  if (!passcode) throw new ShareLinkRefused("passcode_required");
  await limit("sharePasscode", null, client);
  const taken = await db()
    .update(shareLinks)
    .set({ passcodeFailures: sql`${shareLinks.passcodeFailures} + 1` })
    .where(and(eq(shareLinks.id, f.link.id), lt(shareLinks.passcodeFailures, SHARE_LIMITS.passcodeTries)))
    .returning({ failures: shareLinks.passcodeFailures });
  if (taken.length === 0) throw new ShareLinkRefused("locked");
  if (await verifyPassword(passcode, f.link.passcodeHash!)) {
    await db()
      .update(shareLinks)
      .set({ passcodeFailures: sql`${shareLinks.passcodeFailures} - 1` })
      .where(and(eq(shareLinks.id, f.link.id), gt(shareLinks.passcodeFailures, 0)));
    await forgive("sharePasscode", null, client);
    return;
  }
  const left = Math.max(0, SHARE_LIMITS.passcodeTries - taken[0].failures);
  await audit(null, "share.passcode_fail", "report", f.link.reportId, { linkId: f.link.id, left }, client.ip);
  if (left === 0) throw new ShareLinkRefused("locked");
  throw new ShareLinkRefused("wrong_passcode", { count: left });
}

/**
 * The doctor opens the link ("Open", with the passcode when it has one): counts one open — a
 * single conditional UPDATE, so of simultaneous opens of a link limited to N opens at most N
 * succeed — records it in the audit trail (no actor: the doctor has no account; the link id, not
 * the token) and returns the grant the browser keeps. A browser already holding a live open gets
 * it back without counting again (a reload of the form's answer).
 */
export async function openShareLink(
  token: string,
  input: unknown,
  grant: string | null | undefined,
  client: Client,
): Promise<ShareGrant> {
  const f = await findByToken(token, client);
  if (grantValid(f.link.id, grant)) {
    refuseIfDead(f, true);
    return { value: grant!, maxAgeSeconds: Math.floor(SHARE_LIMITS.grantMs / 1000) };
  }
  refuseIfDead(f, false);
  await limit("shareOpen", null, client);
  if (f.link.passcodeHash) await checkPasscode(f, input, client);
  const now = new Date();
  const counted = await transaction(function* (tx) {
    const updated = yield* rows(
      tx
        .update(shareLinks)
        .set({ opens: sql`${shareLinks.opens} + 1`, lastOpenedAt: now })
        .where(
          and(
            eq(shareLinks.id, f.link.id),
            isNull(shareLinks.revokedAt),
            gt(shareLinks.expiresAt, now),
            lt(shareLinks.passcodeFailures, SHARE_LIMITS.passcodeTries),
            or(isNull(shareLinks.maxOpens), lt(shareLinks.opens, shareLinks.maxOpens)),
          ),
        )
        .returning({ opens: shareLinks.opens }),
    );
    if (updated.length === 1)
      yield* exec(
        auditInsert(
          tx,
          null,
          "share.open",
          "report",
          f.link.reportId,
          { linkId: f.link.id, open: updated[0].opens },
          client.ip,
        ),
      );
    return updated.length === 1;
  });
  if (!counted) {
    // Something changed since the lookup (revoked, used up by another open): say what.
    const again = await first(db().select().from(shareLinks).where(eq(shareLinks.id, f.link.id)));
    if (!again) throw new ShareLinkRefused("unknown");
    refuseIfDead({ ...f, link: again }, false);
    throw new ShareLinkRefused("used_up");
  }
  return newGrant(f.link.id, now.getTime());
}

/** The file and the letter: only in a browser holding a live open of a link that shares them. */
async function openedLink(token: string, grant: string | null | undefined, client: Client) {
  const f = await findByToken(token, client);
  const opened = grantValid(f.link.id, grant);
  refuseIfDead(f, opened);
  if (!opened) throw new ShareLinkRefused("not_opened");
  return f;
}

export async function openSharedFile(
  token: string,
  grant: string | null | undefined,
  client: Client,
): Promise<{ stream: Readable; mimeType: string; fileName: string; size: number }> {
  const f = await openedLink(token, grant, client);
  if (!f.link.includeFile) throw new ShareLinkRefused("not_shared");
  const stream = await openDecrypted(f.report.fileKey);
  try {
    await audit(null, "share.file_open", "report", f.report.id, { linkId: f.link.id }, client.ip);
  } catch (err) {
    stream.destroy();
    throw err;
  }
  return { stream, mimeType: f.report.mimeType, fileName: f.report.fileName, size: f.report.size };
}

export async function sharedLetter(
  token: string,
  grant: string | null | undefined,
  client: Client,
): Promise<{ pdf: Buffer; fileName: string }> {
  const f = await openedLink(token, grant, client);
  const r = f.report;
  if (!f.link.includeLetter || r.status !== "Reviewed" || !r.letterCode) {
    throw new ShareLinkRefused("not_shared");
  }
  const expert = f.expert?.id
    ? { id: f.expert.id, firstName: f.expert.firstName, lastName: f.expert.lastName }
    : null;
  const report = toApiReport(
    r,
    { id: r.patientId, firstName: f.patient.firstName, lastName: f.patient.lastName },
    expert,
  );
  if (report.expert && expert) {
    // Name, registration and council as signed come with the report (decision 0023).
    const d = (await expertDetailsFor([expert.id])).get(expert.id);
    report.expert.specialties = d?.specialties ?? [];
  }
  report.followUps = (await followUpsFor([r.id])).get(r.id) ?? [];
  const letter = await renderOpinionLetter(report, r.letterCode, f.patient.locale);
  await audit(null, "share.letter_open", "report", r.id, { linkId: f.link.id }, client.ip);
  return letter;
}

/**
 * Inside a transaction: ends the live links to a profile's reports that `userId` made while acting
 * for it — when the person revokes a family member's access, the links that member made go too
 * (decision 0030). Returns how many.
 */
export function* revokeLinksMadeBy(tx: DB, patientId: string, userId: string): TxSteps<number> {
  const ended = yield* rows(
    tx
      .update(shareLinks)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(shareLinks.patientId, patientId),
          eq(shareLinks.createdBy, userId),
          isNull(shareLinks.revokedAt),
        ),
      )
      .returning({ id: shareLinks.id }),
  );
  return ended.length;
}
