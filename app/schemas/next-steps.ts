import { z } from "zod";
import { STEP_STATES, STEP_URGENCIES, REMIND_BY } from "~/db/types";
import { SPECIALTIES } from "~/schemas/specialties";

/**
 * An opinion's next steps as the expert gives them (decision 0114), the same for the review form
 * and the API: repeat tests in N days or weeks, see a specialist, go to a facility. The domain
 * checks what only it knows (the analytes are in the lab catalogue) and works out each due date.
 */

export const STEPS_MAX = 8;
export const STEP_TESTS_MAX = 10;
/** The furthest a step may be due: a year. */
export const STEP_DAYS_MAX = 366;
export const STEP_WEEKS_MAX = 52;
export const STEP_TEXT_MAX = 300;

const count = (max: number, message: string) =>
  z
    .number({ required_error: message, invalid_type_error: message })
    .int(message)
    .min(1, message)
    .max(max, message);

const text = (max: number, required: string, tooLong: string) =>
  z.string({ required_error: required, invalid_type_error: required }).trim().max(max, tooLong);

const loinc = z
  .string({ invalid_type_error: "steps.testUnknown" })
  .regex(/^\d{1,7}-\d$/, "steps.testUnknown");

const testsStep = z.object({
  kind: z.literal("tests"),
  loincs: z.preprocess(
    (v) => (v === undefined || v === null || v === "" ? [] : Array.isArray(v) ? v : [v]),
    z
      .array(loinc, { invalid_type_error: "steps.testsRequired" })
      .min(1, "steps.testsRequired")
      .max(STEP_TESTS_MAX, "steps.testsTooMany"),
  ),
  in: count(STEP_DAYS_MAX, "steps.whenRequired"),
  unit: z.enum(["days", "weeks"], { errorMap: () => ({ message: "steps.whenRequired" }) }),
});

/** How soon: today, this week, or within `weeks` weeks. */
const soon = {
  urgency: z.enum(STEP_URGENCIES, { errorMap: () => ({ message: "steps.urgencyRequired" }) }),
  weeks: z.preprocess(
    (v) => (v === "" || v === null ? undefined : v),
    count(STEP_WEEKS_MAX, "steps.weeksRequired").optional(),
  ),
};

const specialistStep = z.object({
  kind: z.literal("specialist"),
  specialty: z.enum(SPECIALTIES, { errorMap: () => ({ message: "steps.specialtyRequired" }) }),
  ...soon,
});

const facilityStep = z.object({
  kind: z.literal("facility"),
  /** Empty or absent: the nearest hospital. */
  facility: text(STEP_TEXT_MAX, "steps.facilityTooLong", "steps.facilityTooLong")
    .nullish()
    .transform((v) => (v ? v : null)),
  reason: text(STEP_TEXT_MAX, "steps.reasonRequired", "steps.reasonTooLong").min(1, "steps.reasonRequired"),
  ...soon,
});

export const nextStepSchema = z
  .discriminatedUnion("kind", [testsStep, specialistStep, facilityStep], {
    errorMap: () => ({ message: "steps.kindRequired" }),
  })
  .superRefine((step, ctx) => {
    if (step.kind !== "tests" && step.urgency === "weeks" && step.weeks === undefined)
      ctx.addIssue({ code: "custom", path: ["weeks"], message: "steps.weeksRequired" });
    if (step.kind === "tests" && step.unit === "weeks" && step.in > STEP_WEEKS_MAX)
      ctx.addIssue({ code: "custom", path: ["in"], message: "steps.whenRequired" });
  });

export const nextStepsField = z.preprocess(
  (v) => (v === undefined || v === null || v === "" ? undefined : v),
  z.array(nextStepSchema, { invalid_type_error: "steps.invalid" }).max(STEPS_MAX, "steps.tooMany").optional(),
);

export type NextStepInput = z.input<typeof nextStepSchema>;
export type NextStepData = z.output<typeof nextStepSchema>;

/** Days from the opinion to a step's due date. */
export function stepDays(step: NextStepData): number {
  if (step.kind === "tests") return step.unit === "weeks" ? step.in * 7 : step.in;
  if (step.urgency === "today") return 0;
  if (step.urgency === "week") return 7;
  return (step.weeks ?? 1) * 7;
}

/** Closing a step (the patient, her centre, or the expert who asked): how it ended, and why when declined. */
export const stepStateSchema = z
  .object({
    state: z.enum(STEP_STATES, { errorMap: () => ({ message: "steps.stateRequired" }) }),
    reason: text(STEP_TEXT_MAX, "steps.reasonTooLong", "steps.reasonTooLong")
      .nullish()
      .transform((v) => (v ? v : null)),
  })
  .superRefine((v, ctx) => {
    if (v.state === "declined" && !v.reason)
      ctx.addIssue({ code: "custom", path: ["reason"], message: "steps.declineReasonRequired" });
  });

/** How and when a patient is reminded of her steps. */
export const reminderPreferenceSchema = z.object({
  remindBy: z.enum(REMIND_BY, { errorMap: () => ({ message: "steps.remindByRequired" }) }),
  remindHour: z
    .number({ invalid_type_error: "steps.hourRequired", required_error: "steps.hourRequired" })
    .int("steps.hourRequired")
    .min(6, "steps.hourRequired")
    .max(21, "steps.hourRequired"),
});

/** The facility's acknowledgement of a referral: the code, the patient's year of birth, a note. */
export const referralAckSchema = z.object({
  birthYear: z
    .number({
      invalid_type_error: "referral.birthYearRequired",
      required_error: "referral.birthYearRequired",
    })
    .int("referral.birthYearRequired")
    .min(1900, "referral.birthYearRequired")
    .max(2100, "referral.birthYearRequired"),
  note: text(STEP_TEXT_MAX, "referral.noteTooLong", "referral.noteTooLong")
    .nullish()
    .transform((v) => (v ? v : null)),
});
