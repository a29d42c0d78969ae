import { z } from "zod";
import { CONSENT_METHODS, PHONE_OWNERS, SEXES } from "~/db/types";
import { checkConsentShown, CONSENT_TEXT_VERSION } from "./consent-versions";

/**
 * Registering a patient at a centre (decision 0030): who they are, how notices reach them and the
 * consent to a facilitated consultation the health worker took first. Shared by the register
 * screen (Conform), the domain, the JSON API (multipart, the evidence photo as `evidence`) and the
 * OpenAPI document. Messages are i18n keys of the `registration` section.
 */

/** The facilitated-consent text in force; the versions and when each was in use are in consent-versions.ts. */
export { CONSENT_TEXT_VERSION };

export const NAME_MAX = 100;
export const LOCALITY_MAX = 200;
export const RELATIONSHIP_MAX = 60;
export const WITNESS_MAX = 120;
export const AGE_MAX = 120;

/** The methods a health worker may record (online consent is the patient's own, not a centre's). */
export const FACILITATED_METHODS = ["verbal", "witnessed", "signature", "thumbprint"] as const;
export type FacilitatedMethod = (typeof FACILITATED_METHODS)[number];
/** The i18n keys of each method's name and hint (written out, so the catalogue check finds them). */
export const METHOD_KEYS: Record<(typeof CONSENT_METHODS)[number], { label: string; hint: string }> = {
  verbal: { label: "registration.methods.verbal", hint: "registration.methodHints.verbal" },
  witnessed: { label: "registration.methods.witnessed", hint: "registration.methodHints.witnessed" },
  signature: { label: "registration.methods.signature", hint: "registration.methodHints.signature" },
  thumbprint: { label: "registration.methods.thumbprint", hint: "registration.methodHints.thumbprint" },
  // Online consent is the patient's own (no centre); it reads like a spoken yes.
  online: { label: "registration.methods.verbal", hint: "registration.methodHints.verbal" },
};
/** Methods that need a photo of the signature or thumbprint. */
export const EVIDENCE_METHODS: readonly string[] = ["signature", "thumbprint"];

export const PREFERRED_LANGUAGES = ["en", "hi", "bn", "ta"] as const;

const blank = (v: unknown) => (v === "" || v === null ? undefined : v);

const text = (max: number, tooLong: string) =>
  z.preprocess(
    blank,
    z.string({ invalid_type_error: tooLong }).trim().max(max, tooLong).optional().default(""),
  );

const requiredText = (max: number, required: string, tooLong: string) =>
  z
    .string({ required_error: required, invalid_type_error: required })
    .trim()
    .min(1, required)
    .max(max, tooLong);

const choice = <T extends readonly [string, ...string[]]>(values: T, required: string) =>
  z.preprocess(blank, z.enum(values, { errorMap: () => ({ message: required }) }));

const whole = (min: number, max: number, key: string) =>
  z.preprocess(
    blank,
    z.coerce.number({ invalid_type_error: key }).int(key).min(min, key).max(max, key).optional(),
  );

export const registrationFields = z.object({
  firstName: requiredText(NAME_MAX, "registration.firstNameRequired", "registration.nameTooLong"),
  lastName: text(NAME_MAX, "registration.nameTooLong"),
  sex: choice(SEXES, "registration.sexRequired"),
  /** Age in years, when the year of birth is not known (the year is then worked out and marked estimated). */
  age: whole(0, AGE_MAX, "registration.ageInvalid"),
  birthYear: whole(1890, 2200, "registration.birthYearInvalid"),
  locality: requiredText(LOCALITY_MAX, "registration.localityRequired", "registration.localityTooLong"),
  preferredLanguage: choice(PREFERRED_LANGUAGES, "registration.languageRequired"),
  phoneOwner: choice(PHONE_OWNERS, "registration.phoneOwnerRequired"),
  /** A mobile number (national digits with countryCode, or +CC…); required unless phoneOwner is none. */
  phone: text(20, "registration.phoneInvalid"),
  countryCode: z.preprocess(
    blank,
    z
      .string({ invalid_type_error: "registration.phoneInvalid" })
      .trim()
      .regex(/^\+[1-9]\d{0,3}$/, "registration.phoneInvalid")
      .optional()
      .default("+91"),
  ),
  /** Whose phone it is when it is a family member's ("son", "husband"). */
  phoneRelationship: text(RELATIONSHIP_MAX, "registration.relationshipTooLong"),
  /** The patient's answer after the consent text was read: "granted" or "refused". */
  consent: choice(["granted", "refused"] as const, "registration.consentRequired"),
  consentMethod: choice(FACILITATED_METHODS, "registration.methodRequired"),
  witnessName: text(WITNESS_MAX, "registration.witnessTooLong"),
  /** The version of the text that was read (the screen sends the one it showed). */
  consentTextVersion: text(40, "registration.consentTextChanged"),
  /**
   * When the consent was read aloud (ISO 8601 with a zone), for one recorded offline and sent later;
   * empty: now. Accepted when `consentTextVersion` was the text in use then (decision 0064).
   */
  consentShownAt: text(40, "registration.consentShownAtInvalid"),
});

/** The rules across fields: an age or a year of birth; a phone unless none; whose phone; the witness. */
export function registrationRules(v: z.output<typeof registrationFields>, ctx: z.RefinementCtx) {
  const add = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (v.consent === "refused") return; // nothing else matters: nothing is saved
  if (v.age === undefined && v.birthYear === undefined) add("age", "registration.ageOrYearRequired");
  if (v.age !== undefined && v.birthYear !== undefined) add("birthYear", "registration.ageOrYearNotBoth");
  if (v.phoneOwner !== "none" && !v.phone) add("phone", "registration.phoneRequired");
  if (v.phoneOwner === "family" && !v.phoneRelationship)
    add("phoneRelationship", "registration.relationshipRequired");
  if (v.consentMethod === "witnessed" && !v.witnessName) add("witnessName", "registration.witnessRequired");
  const shown = checkConsentShown(v.consentTextVersion, v.consentShownAt || undefined);
  if (!shown.ok) add(shown.field, shown.message);
}

export const registrationSchema = registrationFields.superRefine(registrationRules);
export type RegistrationInput = z.input<typeof registrationSchema>;
export type RegistrationData = z.output<typeof registrationSchema>;

/** The fields a registration form posts (the evidence photo travels as `evidence`). */
export const REGISTRATION_FIELDS = Object.keys(
  registrationFields.shape,
) as (keyof typeof registrationFields.shape)[];

/** `GET /centre/patients`: besides the page, `q` (part of a name, or a short ID as typed). */
export const centreQueueQuery = z.object({
  q: z.preprocess(
    blank,
    z
      .string({ invalid_type_error: "registration.searchTooLong" })
      .trim()
      .max(100, "registration.searchTooLong")
      .optional(),
  ),
});
