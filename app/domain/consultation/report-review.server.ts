import { and, eq } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { exec, isUniqueViolation, rows, transaction } from "~/db/client.server";
import { expertProfiles, reports, users } from "~/db/schema";
import { reviewSchema, type ReviewInput } from "~/schemas/reports";
import { holdLogin } from "../accounts/index.server";
import { auditInsert } from "../platform/index.server";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { hidePhonesOfRefusers } from "../rights/index.server";
import { notifyOpinionReady } from "../care/index.server";
import type { Actor } from "../platform/index.server";
import type { ApiReport } from "./api-report.server";
import {
  assertMayReviewSecond,
  claimIsFree,
  explainRefusal,
  otherPartRefusal,
  partInOtherOpinion,
  type OtherPart,
} from "./report-claims.server";
import { findJoined, fromJoined, requireApprovedExpert } from "./report-rows.server";
import { checkPhraseIds } from "./phrase-book.server";
import { checkSteps, signSteps, withSteps } from "./next-steps.server";

/**
 * The opinion: an approved expert's structured review (`addReview`), signed as the expert is at
 * signing, with the letter's verification code.
 */

const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32: no I, L, O, U

/** A letter's verification code: 60 random bits as XXXX-XXXX-XXXX. */
export function newLetterCode(): string {
  const bytes = randomBytes(12);
  let out = "";
  for (let i = 0; i < 12; i++) out += CODE_ALPHABET[bytes[i] & 31];
  return `${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8, 12)}`;
}

/**
 * An approved Expert submits the structured opinion. One conditional update decides: it matches
 * only while the report is Pending and no other expert holds a live claim, so the first review
 * wins and a report claimed by someone else is refused (conflict "reports.claimedByOther"); a
 * reviewed report gets conflict "reports.alreadyReviewed". The patient is told by mail that the
 * opinion is ready (and, when flagged, that it is important to read it soon) — never its content.
 */
export async function addReview(
  actor: Actor,
  reportId: string,
  input: ReviewInput | Record<string, unknown>,
  opts: { ip?: string | null } = {},
): Promise<ApiReport> {
  requireApprovedExpert(actor);
  const parsed = reviewSchema.safeParse(input);
  if (!parsed.success) {
    throw new DomainError("invalid", "reports.reviewFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  }
  if (typeof reportId !== "string" || !reportId || reportId.length > 100) {
    throw new DomainError("not_found", "reports.notFound");
  }
  const now = new Date();
  const data = parsed.data;
  const phraseIds = await checkPhraseIds(data.phrases ?? []);
  const steps = data.nextSteps ?? [];
  checkSteps(steps);
  const second = await assertMayReviewSecond(actor, reportId);
  // A second opinion says how it stands to the first, and why; a first opinion has nothing to agree with.
  const agreementErrors: Record<string, string[]> = {};
  if (second) {
    if (!data.agreement) agreementErrors.agreement = ["panel.agreementRequired"];
    if (!data.agreementReason) agreementErrors.agreementReason = ["panel.reasonRequired"];
  } else if (data.agreement || data.agreementReason) {
    agreementErrors.agreement = ["panel.agreementOnlySecond"];
  }
  if (Object.keys(agreementErrors).length) {
    throw new DomainError("invalid", "reports.reviewFailed", { fieldErrors: agreementErrors });
  }
  let won: boolean | "unapproved" | "unregistered" | OtherPart = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      won = await transaction(function* (tx) {
        // A write to the signer's own row first: on PostgreSQL it makes one expert's claims and
        // reviews wait for each other, so two opinions of one case signed at once see each other.
        yield* holdLogin(tx, actor.id);
        const part = yield* partInOtherOpinion(tx, actor.id, reportId);
        if (part) return part;
        // The signer as the letter prints them, read in the transaction that signs (decision 0023); an
        // expert sent back to admin review since this request began cannot sign.
        const [signer] = yield* rows(
          tx
            .select({
              approved: users.approved,
              firstName: users.firstName,
              lastName: users.lastName,
              registrationNumber: expertProfiles.registrationNumber,
              registrationCouncil: expertProfiles.registrationCouncil,
            })
            .from(users)
            .leftJoin(expertProfiles, eq(expertProfiles.userId, users.id))
            .where(eq(users.id, actor.id)),
        );
        if (!signer?.approved) return "unapproved" as const;
        // Approval needs a registration number (decision 0023), but experts approved before that rule
        // may have none: they cannot sign until they add it in Settings (which sends them back to
        // admin review), so no letter says "Reg. No. not given".
        if (!signer.registrationNumber?.trim()) return "unregistered" as const;
        const updated = yield* rows(
          tx
            .update(reports)
            .set({
              signerFirstName: signer.firstName,
              signerLastName: signer.lastName,
              signerRegistrationNumber: signer.registrationNumber ?? "",
              signerRegistrationCouncil: signer.registrationCouncil ?? "",
              status: "Reviewed",
              review: data.review,
              findings: data.findings ?? null,
              recommendations: data.recommendations ?? null,
              seeDoctorSoon: !!data.seeDoctorSoon,
              phraseIds: phraseIds.length ? JSON.stringify(phraseIds) : null,
              agreement: second ? data.agreement : null,
              agreementReason: second ? data.agreementReason : null,
              expertId: actor.id,
              followupExpertId: actor.id,
              claimedBy: actor.id,
              claimExpiresAt: null,
              letterCode: newLetterCode(),
              reviewedAt: now,
              updatedAt: now,
            })
            .where(and(eq(reports.id, reportId), eq(reports.status, "Pending"), claimIsFree(actor.id, now)))
            .returning({ id: reports.id, patientId: reports.patientId, centreId: reports.centreId }),
        );
        if (updated.length === 1)
          yield* signSteps(
            tx,
            {
              reportId,
              patientId: updated[0].patientId,
              centreId: updated[0].centreId,
              expertId: actor.id,
              signedAt: now,
            },
            steps,
          );
        if (updated.length === 1)
          yield* exec(
            auditInsert(
              tx,
              actor,
              "report.review",
              "report",
              reportId,
              second
                ? {
                    seeDoctorSoon: !!data.seeDoctorSoon,
                    secondOf: second.secondOf,
                    agreement: data.agreement,
                  }
                : { seeDoctorSoon: !!data.seeDoctorSoon, ...(steps.length ? { steps: steps.length } : {}) },
              opts.ip,
            ),
          );
        return updated.length === 1;
      });
      break;
    } catch (err) {
      // A letter code already in use (one in 2^60): draw another.
      if (!isUniqueViolation(err) || attempt === 2) throw err;
    }
  }
  if (won === "unapproved") throw new DomainError("forbidden", "reports.awaitApproval");
  if (won === "gaveFirst" || won === "other") throw otherPartRefusal(won);
  if (won === "unregistered") throw new DomainError("forbidden", "reports.registrationToSign");
  if (!won) await explainRefusal(reportId);
  const joined = (await findJoined(reportId))!;
  await notifyOpinionReady(joined.report.patientId, { seeDoctorSoon: !!data.seeDoctorSoon });
  // The steps just signed (decision 0114), as the expert's lists give them.
  const [report] = await withSteps([fromJoined(joined)]);
  return (await hidePhonesOfRefusers(actor, [report]))[0];
}
