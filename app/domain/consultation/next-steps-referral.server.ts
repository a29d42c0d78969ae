import { and, eq } from "drizzle-orm";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { nextSteps, patients, profiles, reports } from "~/db/schema";
import { isLocale, type Locale } from "~/i18n/config";
import { getT } from "~/i18n/i18n.server";
import { DEFAULT_TIME_ZONE, formatDay } from "~/lib/format";
import { referralAckSchema } from "~/schemas/next-steps";
import { site } from "~/site";
import { audit, forgive, limit, type Actor } from "../platform/index.server";
import type { Client } from "../platform/client";
import { DomainError, zodFieldErrors } from "../platform/errors";
import { letterVerifyUrl } from "./api-report.server";
import { renderReferralPdf } from "./referral-pdf.server";
import { normalReferralCode, requireStepAccess, type StepRow } from "./next-steps.server";

/**
 * A facility step's referral (decision 0114): the letter the patient carries (a PDF drawn with the
 * opinion letter's machinery, for those who may see the step), and the public page
 * /referral/{code} where the facility acknowledges it. That page says nothing about the patient
 * until the code and her year of birth are given together; a wrong code and a wrong year get the
 * same answer, and only wrong tries count (per address, and per code: a code is locked for the
 * day after 5).
 */

/** What the facility sees once the code and the year of birth match: the least it needs. */
export type ReferralView = {
  code: string;
  /** The patient's first name's initial, nothing more. */
  initial: string;
  facility: string | null;
  urgency: StepRow["urgency"];
  reason: string | null;
  dueOn: string;
  seenAt: string | null;
  note: string | null;
};

const refused = () => new DomainError("not_found", "referral.noMatch");

/** Same answer whether the code is unknown or the year is wrong; the try counts unless it matched. */
async function checked(codeInput: unknown, input: unknown, client: Client) {
  const parsed = referralAckSchema.safeParse(input);
  if (!parsed.success)
    throw new DomainError("invalid", "referral.checkFailed", { fieldErrors: zodFieldErrors(parsed.error) });
  const code = normalReferralCode(codeInput);
  // A malformed code counts under one key of its own, so it cannot be used to dodge the per-code lock.
  const key = `referral:${code ?? "malformed"}`;
  await limit("referralTry", key, client);
  if (!code) throw refused();
  const found = await first(
    db()
      .select({
        step: nextSteps,
        birthYear: patients.birthYear,
        estimated: patients.birthYearEstimated,
        firstName: patients.firstName,
        dateOfBirth: profiles.dateOfBirth,
      })
      .from(nextSteps)
      .innerJoin(patients, eq(patients.id, nextSteps.patientId))
      // A patient's own account keeps her date of birth on its profile, not as a year on the patient row.
      .leftJoin(profiles, eq(profiles.userId, patients.accountId))
      .where(and(eq(nextSteps.referralCode, code), eq(nextSteps.kind, "facility"))),
  );
  const year = parsed.data.birthYear;
  // A year worked out from an age she gave may be one off either way.
  const profileYear = /^\d{4}-/.test(found?.dateOfBirth ?? "")
    ? Number(found!.dateOfBirth!.slice(0, 4))
    : null;
  const known = found?.birthYear ?? profileYear;
  const matches =
    !!found &&
    known !== null &&
    (found.birthYear !== null && found.estimated ? Math.abs(known - year) <= 1 : known === year);
  if (!found || !matches) throw refused();
  await forgive("referralTry", key, client);
  return { ...found, note: parsed.data.note, code };
}

const view = (found: Awaited<ReturnType<typeof checked>>): ReferralView => ({
  code: found.code,
  initial: [...found.firstName.trim()][0]?.toUpperCase() ?? "",
  facility: found.step.facility,
  urgency: found.step.urgency,
  reason: found.step.reason,
  dueOn: found.step.dueOn,
  seenAt: found.step.referralSeenAt?.toISOString() ?? null,
  note: found.step.referralNote,
});

/** The referral behind a code, when the year of birth matches (public; rate-limited). */
export async function openReferral(code: unknown, input: unknown, client: Client): Promise<ReferralView> {
  return view(await checked(code, input, client));
}

/**
 * The facility says it has seen the patient's referral, with an optional note: recorded once (the
 * first date stays; a later note replaces the earlier), in her access trail.
 */
export async function acknowledgeReferral(
  code: unknown,
  input: unknown,
  client: Client,
): Promise<ReferralView> {
  const found = await checked(code, input, client);
  const now = new Date();
  const seenAt = found.step.referralSeenAt ?? now;
  const note = found.note ?? found.step.referralNote;
  await db()
    .update(nextSteps)
    .set({ referralSeenAt: seenAt, referralNote: note, updatedAt: now })
    .where(eq(nextSteps.id, found.step.id));
  await audit(
    null,
    "patient.referral_seen",
    "patient",
    found.step.patientId,
    { step: found.step.id, note: !!note },
    client.ip,
  );
  return view({ ...found, step: { ...found.step, referralSeenAt: seenAt, referralNote: note } });
}

/** The address a referral code is opened at. */
export function referralUrl(code: string): string {
  return `${config().appUrl}/referral/${code}`;
}

/**
 * The referral letter of a facility step as a PDF, in the patient's language: for those who may
 * see the step (the patient's side, her centre, the expert who asked); anyone else and a step
 * that is not a facility's get not-found. Each fetch is in the audit trail.
 */
export async function referralLetter(
  actor: Actor,
  stepId: unknown,
  ip?: string | null,
): Promise<{ pdf: Buffer; fileName: string }> {
  const { step } = await requireStepAccess(actor, stepId);
  if (step.kind !== "facility" || !step.referralCode) throw new DomainError("not_found", "steps.notFound");
  const found = await first(
    db()
      .select({
        review: reports.review,
        letterCode: reports.letterCode,
        reviewedAt: reports.reviewedAt,
        signerFirst: reports.signerFirstName,
        signerLast: reports.signerLastName,
        registration: reports.signerRegistrationNumber,
        firstName: patients.firstName,
        lastName: patients.lastName,
        locale: patients.locale,
      })
      .from(reports)
      .innerJoin(patients, eq(patients.id, reports.patientId))
      .where(eq(reports.id, step.reportId)),
  );
  if (!found) throw new DomainError("not_found", "steps.notFound");
  await audit(actor, "report.letter_open", "report", step.reportId, { referral: step.id }, ip);
  const locale: Locale = isLocale(found.locale ?? "") ? (found.locale as Locale) : "en";
  const t = await getT(locale);
  const day = (d: Date | string | null) => (d ? formatDay(d, locale, DEFAULT_TIME_ZONE) : "");
  const urgency =
    step.urgency === "today"
      ? t("referral.urgencyToday")
      : step.urgency === "week"
        ? t("referral.urgencyWeek")
        : t("referral.urgencyWeeks", { count: Math.max(1, Math.round(step.inDays / 7)) });
  const pdf = await renderReferralPdf({
    locale,
    productName: site.productName,
    title: t("referral.letterTitle"),
    rows: [
      [t("referral.letterPatient"), `${found.firstName} ${found.lastName}`.trim()],
      [t("referral.letterFacility"), step.facility ?? t("referral.nearestHospital")],
      [t("referral.letterUrgency"), urgency],
      [t("referral.letterDue"), day(`${step.dueOn}T12:00:00Z`)],
      [t("referral.letterReviewed"), day(found.reviewedAt)],
    ],
    sections: [
      [t("referral.letterReason"), step.reason ?? ""],
      [t("referral.letterSummary"), found.review ?? ""],
    ],
    signedBy: found.signerFirst
      ? t("letter.doctorName", { name: `${found.signerFirst} ${found.signerLast ?? ""}`.trim() }) +
        (found.registration ? ` · ${t("opinion.regNo")} ${found.registration}` : "")
      : "",
    referralLabel: t("referral.letterCodeLabel"),
    referralCode: step.referralCode,
    referralHint: t("referral.letterCodeHint", { url: referralUrl(step.referralCode) }),
    verificationLabel: t("letter.verificationCode"),
    verificationCode: found.letterCode ?? "",
    verifyHint: found.letterCode ? t("letter.verifyHint", { url: letterVerifyUrl(found.letterCode) }) : "",
  });
  return { pdf, fileName: `${site.productName}-referral-${step.referralCode}.pdf` };
}
