import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { alias } from "~/db/alias";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Readable } from "node:stream";
import { config } from "~/config.server";
import { db, exec, first, rows, transaction } from "~/db/client.server";
import { patients, reports, shareLinks, users } from "~/db/schema";
import { normalizePasscode } from "~/schemas/share-links";
import { sha256 } from "~/lib/ids.server";
import { audit, auditInsert } from "../platform/index.server";
import type { Client } from "../platform/client";
import { DomainError, type DomainErrorCode } from "../platform/errors";
import { expertDetailsFor, verifyPassword } from "../accounts/index.server";
import { openDecrypted } from "../records/index.server";
import { followUpsFor, renderOpinionLetter, toApiReport } from "../consultation/index.server";
import { forgive, limit } from "../platform/index.server";
import { linkStatus, SHARE_LIMITS } from "./share-links.server";

/**
 * A sharing link's doctor (decision 0016; see share-links.server.ts): the public page, the
 * passcode, the counted open and its grant, then the file and the letter.
 */

const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

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
