import { and, asc, eq, or } from "drizzle-orm";
import { db, first } from "~/db/client.server";
import { patients, reports } from "~/db/schema";
import { audit } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { expertDetailsFor } from "../accounts/index.server";
import type { Actor } from "../platform/index.server";
import { patientAccess, traceAccess } from "../care/index.server";
import { withFollowUps, withSecondOpinions } from "./report-case.server";
import { withSteps } from "./next-steps.server";
import { findJoined, fromJoined } from "./report-rows.server";

/**
 * Who may fetch a report's opinion letter (reportForLetter, which records each fetch), and what the
 * public /verify page may say about a letter (verifyLetter).
 */

/**
 * The report behind an opinion letter, for those who may fetch it: the owning patient, the
 * reviewing expert and admins. Records the fetch ("report.letter_open").
 */
export async function reportForLetter(actor: Actor, reportId: string, ip?: string | null) {
  const joined = await findJoined(reportId);
  if (!joined) throw new DomainError("not_found", "reports.notFound");
  const r = joined.report;
  const access =
    actor.accountType === "Patient" || actor.accountType === "HealthWorker"
      ? await patientAccess(actor, r.patientId)
      : null;
  const allowed =
    actor.accountType === "Admin" ||
    !!access ||
    (actor.accountType === "Expert" && actor.approved && r.expertId === actor.id);
  if (!allowed) throw new DomainError("forbidden", "letters.notAllowed");
  if (r.status !== "Reviewed" || !r.letterCode) throw new DomainError("not_found", "letters.notReviewedYet");
  // The letter is the case's (decision 0038): its first opinion and every second opinion given,
  // whichever of them was asked for; it keeps the code of the row asked for.
  const root = r.secondOf ? await findJoined(r.secondOf) : joined;
  const main = root && root.report.status === "Reviewed" ? root : joined;
  const [report] = await withSteps(await withSecondOpinions(await withFollowUps([fromJoined(main)])));
  report.secondOpinions = (report.secondOpinions ?? []).filter((x) => x.status === "Reviewed");
  // The letter is in the patient's language: their profile's (their own account's for their own).
  const patientLocale = await first(
    db().select({ locale: patients.locale }).from(patients).where(eq(patients.id, r.patientId)),
  );
  await audit(actor, "report.letter_open", "report", r.id, null, ip);
  if (access) await traceAccess(actor, access, "patient.letter_open", { reportId: r.id }, ip);
  return { report, letterCode: r.letterCode, patientLocale: patientLocale?.locale ?? "en" };
}

/**
 * Public: what /verify/{code} may say about a letter — that it exists, when and who signed it, as
 * the signer was when signing (decision 0023: a later change of registration does not rewrite it).
 */
export async function verifyLetter(code: string) {
  const normal = String(code ?? "")
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, "");
  if (normal.length !== 12) return null;
  const pretty = `${normal.slice(0, 4)}-${normal.slice(4, 8)}-${normal.slice(8, 12)}`;
  const columns = {
    id: reports.id,
    secondOf: reports.secondOf,
    secondSpecialty: reports.secondSpecialty,
    reviewedAt: reports.reviewedAt,
    expertId: reports.expertId,
    first: reports.signerFirstName,
    last: reports.signerLastName,
    registrationNumber: reports.signerRegistrationNumber,
    registrationCouncil: reports.signerRegistrationCouncil,
  };
  const found = await first(
    db()
      .select(columns)
      .from(reports)
      .where(and(eq(reports.letterCode, pretty), eq(reports.status, "Reviewed"))),
  );
  if (!found) return null;
  // Every signed opinion of the case (decision 0038): the first, then the second opinions given.
  const root = found.secondOf ?? found.id;
  const signed = await db()
    .select(columns)
    .from(reports)
    .where(and(or(eq(reports.id, root), eq(reports.secondOf, root)), eq(reports.status, "Reviewed")))
    .orderBy(asc(reports.reviewedAt), asc(reports.id));
  const ids = [...new Set(signed.map((r) => r.expertId).filter((x): x is string => !!x))];
  const details = ids.length ? await expertDetailsFor(ids) : new Map();
  // Null once the signing expert's account is deleted: the letter stays genuine, the signer unnamed.
  const signer = (r: typeof found) =>
    r.expertId
      ? {
          firstName: r.first ?? "",
          lastName: r.last ?? "",
          registrationNumber: r.registrationNumber ?? "",
          registrationCouncil: r.registrationCouncil ?? "",
          specialties: (details.get(r.expertId)?.specialties ?? []) as string[],
        }
      : null;
  return {
    code: pretty,
    reviewedAt: found.reviewedAt?.toISOString() ?? null,
    expert: signer(found),
    /** The case's signed opinions: who signed each and when — never what they said. */
    opinions: signed.map((r) => ({
      kind: r.secondOf ? ("second" as const) : ("first" as const),
      specialty: r.secondSpecialty,
      reviewedAt: r.reviewedAt?.toISOString() ?? null,
      expert: signer(r),
    })),
  };
}
