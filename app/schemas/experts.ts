import { z } from "zod";
import { SPECIALTIES } from "~/schemas/specialties";
import { strictArray } from "./strict";
import { COUNCIL_MAX, REGISTRATION_MAX } from "./limits";
import { REJECTION_MAX } from "./limits";

export { COUNCIL_MAX, REGISTRATION_MAX };

/**
 * An expert's verification details (decision 0013), shared by the signup screen, Settings, the API and
 * the OpenAPI document. Messages are i18n keys. On the API every field is optional (older clients
 * sign experts up without them); the signup screen requires them for experts.
 */
export { REJECTION_MAX };

const specialty = z.enum(SPECIALTIES, { errorMap: () => ({ message: "experts.specialtyInvalid" }) });

/** A list (JSON: an array; a form sends one field per ticked box, made a list by formSchema). */
export const specialtiesField = strictArray(specialty).max(SPECIALTIES.length, "experts.specialtyInvalid");

export const registrationNumberField = z
  .string({ invalid_type_error: "experts.registrationInvalid" })
  .trim()
  .max(REGISTRATION_MAX, "experts.registrationInvalid")
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} /.-]*$/u, "experts.registrationInvalid")
  .or(z.literal(""));

export const councilField = z
  .string({ invalid_type_error: "experts.councilInvalid" })
  .trim()
  .max(COUNCIL_MAX, "experts.councilInvalid");

export const yearsField = z.preprocess(
  (v) => (v === "" || v === null ? undefined : v),
  z.coerce
    .number({ invalid_type_error: "experts.yearsInvalid" })
    .int("experts.yearsInvalid")
    .min(0, "experts.yearsInvalid")
    .max(70, "experts.yearsInvalid")
    .optional(),
);

/** The details as the API accepts them (all optional). */
export const expertDetailsSchema = z.object({
  specialties: specialtiesField.optional(),
  registrationNumber: registrationNumberField.optional(),
  registrationCouncil: councilField.optional(),
  yearsOfPractice: yearsField,
});
export type ExpertDetailsInput = z.infer<typeof expertDetailsSchema>;

/** Screens (signup as an expert, Settings): every detail is required. */
export function requireExpertDetails(v: ExpertDetailsInput, ctx: z.RefinementCtx) {
  if (!v.specialties?.length)
    ctx.addIssue({ code: "custom", path: ["specialties"], message: "experts.specialtiesRequired" });
  if (!v.registrationNumber)
    ctx.addIssue({ code: "custom", path: ["registrationNumber"], message: "experts.registrationRequired" });
  if (!v.registrationCouncil)
    ctx.addIssue({ code: "custom", path: ["registrationCouncil"], message: "experts.councilRequired" });
  if (v.yearsOfPractice === undefined)
    ctx.addIssue({ code: "custom", path: ["yearsOfPractice"], message: "experts.yearsRequired" });
}

export const expertDetailsFormSchema = expertDetailsSchema.superRefine(requireExpertDetails);

export const rejectExpertSchema = z.object({
  expertId: z
    .string({ required_error: "experts.expertIdRequired", invalid_type_error: "experts.expertIdRequired" })
    .trim()
    .min(1, "experts.expertIdRequired")
    .max(100, "experts.expertIdRequired"),
  reason: z
    .string({
      required_error: "experts.rejectReasonRequired",
      invalid_type_error: "experts.rejectReasonRequired",
    })
    .trim()
    .min(1, "experts.rejectReasonRequired")
    .max(REJECTION_MAX, "experts.rejectReasonTooLong"),
});
