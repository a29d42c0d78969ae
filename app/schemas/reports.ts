import { z } from "zod";
import { strictBoolean } from "./strict";
import { AGREEMENTS } from "~/db/types";
import { SPECIALTIES } from "~/schemas/specialties";
import { REPORT_TYPES, REPORT_TYPE_KEYS, type ReportType } from "./report-types";
import { FOLLOWUP_TEXT_MAX, REVIEW_MAX, SECOND_NOTE_MAX } from "./limits";
import { nextStepsField } from "./next-steps";
export { AGREEMENT_VERDICT_KEYS, FOLLOWUP_TEXT_MAX, REVIEW_MAX, SECOND_NOTE_MAX } from "./limits";

export { REPORT_TYPES, REPORT_TYPE_KEYS };
export type { ReportType };

/**
 * Report and expert inputs, shared by the screens (Conform), the actions, the JSON API and
 * the OpenAPI document. Messages are i18n keys (see the `reports` and `experts` sections of
 * app/i18n/locales/en.ts); the English text is the spec's wording.
 */

export const DESCRIPTION_MAX = 2000;

/** A dial code such as +91 (same rule as the callback form). */
const DIAL_CODE_RE = /^\+[1-9]\d{0,3}$/;
/** Separators people type inside phone numbers; removed before the digit check. */
const PHONE_SEPARATORS_RE = /[\s\-().]/g;

const reportTypeField = z
  .string({ required_error: "reports.reportTypeRequired", invalid_type_error: "reports.reportTypeRequired" })
  .trim()
  .min(1, "reports.reportTypeRequired")
  .pipe(z.enum(REPORT_TYPES, { errorMap: () => ({ message: "reports.reportTypeInvalid" }) }));

const descriptionField = z
  .string({ invalid_type_error: "reports.descriptionTooLong" })
  .trim()
  .max(DESCRIPTION_MAX, "reports.descriptionTooLong")
  .optional();

/** Digits with an optional leading "+CC" (the API's phoneNumber "may carry a +CC prefix"). */
const phoneNumberField = z
  .string({ required_error: "reports.phoneRequired", invalid_type_error: "reports.phoneRequired" })
  .trim()
  .min(1, "reports.phoneRequired")
  .transform((v) => v.replace(PHONE_SEPARATORS_RE, ""))
  .pipe(z.string().regex(/^\+?\d{6,15}$/, "reports.phoneInvalid"));

const countryCodeField = z
  .string({ invalid_type_error: "reports.countryCodeRequired" })
  .trim()
  .regex(DIAL_CODE_RE, "reports.countryCodeRequired");

/** The consent checkbox: it must be ticked (a form sends "on"); anything but yes is refused. */
const consentField = strictBoolean("reports.consentRequired").refine((v) => v, "reports.consentRequired");

/**
 * Upload fields as the JSON API accepts them (the file travels separately, as `report`):
 * countryCode and consent are optional there, because the original client never sent them.
 * When consent is sent it must be given.
 */
export const URGENT_REASON_MAX = 300;

/** An urgent report says why (a short reason the experts read first). */
export function urgentNeedsReason(v: { urgent?: boolean; urgentReason?: string }, ctx: z.RefinementCtx) {
  if (v.urgent && !v.urgentReason)
    ctx.addIssue({ code: "custom", path: ["urgentReason"], message: "reports.urgentReasonRequired" });
}

/**
 * The upload form's text fields (the file travels as `report`): what the screen form posts and
 * what a resumable upload carries as metadata.
 */
export const UPLOAD_FORM_FIELDS = [
  "reportType",
  "countryCode",
  "phoneNumber",
  "description",
  "consent",
  "urgent",
  "urgentReason",
  "patientId",
] as const;

export const uploadReportSchema = z
  .object({
    reportType: reportTypeField,
    description: descriptionField,
    phoneNumber: phoneNumberField,
    countryCode: countryCodeField.optional(),
    consent: consentField.optional(),
    /**
     * Whose report it is: a patient profile the uploader acts for (a health worker: one of their
     * centre's patients; a family account: a member). Left out, the uploader's own profile.
     */
    patientId: z
      .string({ invalid_type_error: "care.choosePatient" })
      .trim()
      .max(100, "care.notYourPatient")
      .optional(),
    /** The patient may mark a report urgent, with a short reason. */
    urgent: strictBoolean().optional(),
    urgentReason: z
      .string({ invalid_type_error: "reports.urgentReasonTooLong" })
      .trim()
      .max(URGENT_REASON_MAX, "reports.urgentReasonTooLong")
      .optional(),
  })
  .superRefine(urgentNeedsReason);

/** The upload screen: country code and the consent checkbox are required there. */
export const uploadReportFormFields = uploadReportSchema.innerType().extend({
  countryCode: z
    .string({
      required_error: "reports.countryCodeRequired",
      invalid_type_error: "reports.countryCodeRequired",
    })
    .pipe(countryCodeField),
  consent: consentField,
});
export const uploadReportFormSchema = uploadReportFormFields.superRefine(urgentNeedsReason);

export type UploadReportInput = z.input<typeof uploadReportSchema>;
export type UploadReportData = z.output<typeof uploadReportSchema>;

/** Optional text: absent, empty or null all mean none (so parsing the parsed value again gives the same). */
const optionalText = (max: number, tooLong: string) =>
  z
    .string({ invalid_type_error: tooLong })
    .trim()
    .max(max, tooLong)
    .nullish()
    .transform((v) => (v ? v : null));

/**
 * The structured opinion (decision 0013): `review` is the summary (the contract's field, required);
 * findings, recommendations and the "see a doctor in person soon" flag are optional additions.
 */
export const reviewSchema = z.object({
  review: z
    .string({ required_error: "reports.reviewRequired", invalid_type_error: "reports.reviewRequired" })
    .trim()
    .min(1, "reports.reviewRequired")
    .max(REVIEW_MAX, "reports.reviewTooLong"),
  findings: optionalText(REVIEW_MAX, "reports.findingsTooLong"),
  recommendations: optionalText(REVIEW_MAX, "reports.recommendationsTooLong"),
  seeDoctorSoon: strictBoolean().optional(),
  // A second opinion's view of the first (decision 0038): required for a second opinion and
  // refused for a first one — the domain decides, as only it knows which the report is.
  agreement: z.preprocess(
    (v) => (v === "" || v === null ? undefined : v),
    z.enum(AGREEMENTS, { errorMap: () => ({ message: "panel.agreementRequired" }) }).optional(),
  ),
  agreementReason: optionalText(REVIEW_MAX, "panel.reasonTooLong"),
  // Phrase-book entries (decision 0081), by id: a form sends one value per ticked box, JSON an array.
  phrases: z.preprocess(
    (v) => (v === undefined || v === null || v === "" ? undefined : Array.isArray(v) ? v : [v]),
    z
      .array(z.string({ invalid_type_error: "phrases.unknown" }).max(64, "phrases.unknown"), {
        invalid_type_error: "phrases.unknown",
      })
      .max(12, "phrases.tooMany")
      .optional(),
  ),
  // The opinion's next steps (decision 0114), signed with it.
  nextSteps: nextStepsField,
});
export type ReviewInput = z.input<typeof reviewSchema>;

const idField = (requiredKey: string) =>
  z
    .string({ required_error: requiredKey, invalid_type_error: requiredKey })
    .trim()
    .min(1, requiredKey)
    .max(100, requiredKey);

export const approveExpertSchema = z.object({ expertId: idField("experts.expertIdRequired") });
export const deleteReportSchema = z.object({ reportId: idField("reports.reportIdRequired") });

/** `?reportType=` on the pending list: empty means all types. */
export const reportTypeFilter = z.preprocess(
  (v) => (v === "" || v === null ? undefined : v),
  z.enum(REPORT_TYPES, { errorMap: () => ({ message: "reports.reportTypeInvalid" }) }).optional(),
);

export function isReportType(value: unknown): value is ReportType {
  return typeof value === "string" && (REPORT_TYPES as readonly string[]).includes(value);
}

export const followUpQuestionSchema = z.object({
  question: z
    .string({
      required_error: "followups.questionRequired",
      invalid_type_error: "followups.questionRequired",
    })
    .trim()
    .min(1, "followups.questionRequired")
    .max(FOLLOWUP_TEXT_MAX, "followups.tooLong"),
});

/** A follow-up question spoken in a voice note: its typed words are optional. */
export const spokenQuestionSchema = z.object({
  question: z
    .string({ invalid_type_error: "followups.questionRequired" })
    .trim()
    .max(FOLLOWUP_TEXT_MAX, "followups.tooLong")
    .default(""),
});

export const followUpAnswerSchema = z.object({
  answer: z
    .string({ required_error: "followups.answerRequired", invalid_type_error: "followups.answerRequired" })
    .trim()
    .min(1, "followups.answerRequired")
    .max(FOLLOWUP_TEXT_MAX, "followups.tooLong"),
});

export const reassignSchema = z.object({
  expertId: idField("experts.expertIdRequired"),
});

/** `?sort=queue` (urgent first, then oldest) and `?match=first|only` on the pending list. */
export const queueQuerySchema = z.object({
  sort: z.enum(["newest", "queue"]).optional(),
  match: z.enum(["all", "first", "only"]).optional(),
});

/** Asking for a second opinion (decision 0038): the specialty asked and a note for its expert. */
export const secondOpinionSchema = z.object({
  specialty: z
    .string({ required_error: "panel.specialtyRequired", invalid_type_error: "panel.specialtyRequired" })
    .trim()
    .min(1, "panel.specialtyRequired")
    .pipe(z.enum(SPECIALTIES, { errorMap: () => ({ message: "panel.specialtyRequired" }) })),
  note: z
    .string({ required_error: "panel.noteRequired", invalid_type_error: "panel.noteRequired" })
    .trim()
    .min(1, "panel.noteRequired")
    .max(SECOND_NOTE_MAX, "panel.noteTooLong"),
});
export type SecondOpinionInput = z.input<typeof secondOpinionSchema>;
