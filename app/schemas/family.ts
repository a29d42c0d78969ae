import { z } from "zod";
import { SEXES } from "~/db/types";
import { SUPPORTED_LOCALES } from "~/i18n/config";
import { newPassword, phone } from "./auth";
import { FAMILY_NAME_MAX, FAMILY_RELATIONSHIPS } from "./limits";
import { strictBoolean } from "./strict";

/**
 * Family under one phone (decision 0030): what a patient account fills in to add a family member
 * whose reports it manages, and the two steps of someone taking their profile over with their own
 * mobile number. Shared by the family screens (Conform), the JSON API, the domain and the OpenAPI
 * document. Messages are i18n keys (section `family`).
 */

export { FAMILY_RELATIONSHIPS };
export type FamilyRelationship = (typeof FAMILY_RELATIONSHIPS)[number];

/** Under this age a guardian consents and the profile cannot be taken over. */
export const ADULT_AGE = 18;
export const AGE_MAX = 120;
export const NAME_MAX = FAMILY_NAME_MAX;

const name = (required: boolean) => {
  const s = z
    .string({ required_error: "family.firstNameRequired", invalid_type_error: "family.firstNameRequired" })
    .trim()
    .max(NAME_MAX, "family.nameTooLong");
  return required ? s.min(1, "family.firstNameRequired") : s.default("");
};

export const familyMemberSchema = z
  .object({
    firstName: name(true).describe("The family member's first name"),
    lastName: name(false).optional().describe("Their last name (optional)"),
    sex: z.enum(SEXES, { errorMap: () => ({ message: "family.sexRequired" }) }),
    birthYear: z
      .number({ invalid_type_error: "family.birthYearInvalid" })
      .int("family.birthYearInvalid")
      .min(1900, "family.birthYearInvalid")
      .max(2100, "family.birthYearInvalid")
      .optional()
      .describe("Year of birth; give this or `age`"),
    age: z
      .number({ invalid_type_error: "family.ageInvalid" })
      .int("family.ageInvalid")
      .min(0, "family.ageInvalid")
      .max(AGE_MAX, "family.ageInvalid")
      .optional()
      .describe("Age in years, when the year of birth is not known (the year is then marked estimated)"),
    relationship: z
      .enum(FAMILY_RELATIONSHIPS, { errorMap: () => ({ message: "family.relationshipRequired" }) })
      .describe("Who they are to the account holder"),
    preferredLanguage: z
      .enum(SUPPORTED_LOCALES as [string, ...string[]], {
        errorMap: () => ({ message: "family.languageRequired" }),
      })
      .describe("The language their letters and messages are in"),
    guardianConsent: strictBoolean()
      .optional()
      .describe(
        "For a child under 18: the account holder declares they are the parent or legal guardian and consents for the child",
      ),
    memberConsent: strictBoolean()
      .optional()
      .describe(
        "For an adult: the account holder confirms the person agreed that the account holder sends their reports and reads the opinions",
      ),
  })
  .strict();
export type FamilyMemberInput = z.infer<typeof familyMemberSchema>;

/**
 * The manager or the centre's health worker starts a take-over (decision 0055). Where the profile has
 * the person's own number the code goes there and no other number is taken; where it has none (or a
 * family member's), the person gives their own number and what only they hold: for a centre's
 * patient the take-over code printed on their latest slip (decision 0073), for a profile a family
 * made the short ID and their year of birth.
 */
export const startTakeOverSchema = z
  .object({
    phone: phone
      .optional()
      .describe(
        "The person's own mobile number (E.164, or 10 digits for India): the code goes there. Leave it out when the profile has the person's own number (the code goes only there; another number is refused)",
      ),
    shortId: z
      .string({ invalid_type_error: "family.takeOverProofWrong" })
      .trim()
      .max(20, "family.takeOverProofWrong")
      .optional()
      .describe(
        "The short ID on the person's slip (CB-7K4M-2Q); needed when the profile has no number of the person's own",
      ),
    birthYear: z
      .number({ invalid_type_error: "family.birthYearInvalid" })
      .int("family.birthYearInvalid")
      .min(1900, "family.birthYearInvalid")
      .max(2100, "family.birthYearInvalid")
      .optional()
      .describe("The person's year of birth; needed with `shortId`"),
    slipCode: z
      .string({ invalid_type_error: "slip.codeWrong" })
      .trim()
      .max(40, "slip.codeWrong")
      .optional()
      .describe(
        "The take-over code printed on the person's latest slip (decision 0073); needed instead of `shortId` and `birthYear` when a centre registered the profile and it has no number of the person's own",
      ),
  })
  .strict();
export type StartTakeOverInput = z.infer<typeof startTakeOverSchema>;

/** The person completes it on their own phone: the number, the code it got, a password, and who keeps access. */
export const completeTakeOverSchema = z
  .object({
    phone: phone.describe("The number the code went to"),
    code: z
      .string({ required_error: "accounts.otpRequired", invalid_type_error: "accounts.otpRequired" })
      .trim()
      .regex(/^\d{6}$/, "accounts.otpInvalid")
      .describe("The 6-digit code sent by SMS to `phone`"),
    password: newPassword(),
    confirmPassword: z.string({
      required_error: "accounts.passwordMismatch",
      invalid_type_error: "accounts.passwordMismatch",
    }),
    keepAccess: strictBoolean("family.keepAccessRequired").describe(
      "Whether the family member (or the centre) who acted for the person may still do so",
    ),
  })
  .strict()
  .refine((v) => v.password === v.confirmPassword, {
    message: "accounts.passwordMismatch",
    path: ["confirmPassword"],
  });
export type CompleteTakeOverInput = z.infer<typeof completeTakeOverSchema>;

/** A profile the account acts for, as the family list and the add answer show it. */
export const familyMemberObject = z.object({
  _id: z.string().describe("The profile's id: the `patientId` of its reports"),
  shortId: z.string().nullable().describe("The short ID to read out (CB-7K4M-2Q)"),
  firstName: z.string(),
  lastName: z.string(),
  sex: z.enum(SEXES).nullable(),
  birthYear: z.number().int().nullable(),
  birthYearEstimated: z.boolean().describe("The year was worked out from an age"),
  locality: z.string(),
  preferredLanguage: z.string(),
  phone: z.string().nullable().describe("Where notices about them may go (never naming them)"),
  phoneOwner: z.enum(["self", "family", "none"]),
  phoneRelationship: z.string(),
  centreId: z.string().nullable(),
  hasOwnAccount: z.boolean().describe("They have a login of their own (their own profile, or taken over)"),
  createdAt: z.string().datetime(),
  relationship: z.string().describe('Who they are to the account holder; "" for the holder\'s own profile'),
  self: z.boolean().describe("The account holder's own profile"),
  age: z.number().int().nullable(),
  minor: z.boolean().describe("Under 18 (or of an unknown age)"),
  canTakeOver: z.boolean().describe("An adult without a login who may take the profile over"),
});

/** The answer to starting a take-over: where the code went (masked). */
export const takeOverSentObject = z.object({
  phone: z.string().describe("The number the code went to, masked (+91******3210)"),
  toOwnNumber: z
    .boolean()
    .describe("The code went to the number the profile already had as the person's own"),
  expiresInMinutes: z.number().int(),
});

/** The admins' list of take-overs (decision 0055): those waiting for a look (default) or all. */
export const takeOverQuerySchema = z
  .object({
    status: z
      .enum(["review", "all"], { errorMap: () => ({ message: "api.invalidInput" }) })
      .optional()
      .describe(
        "`review` (default): reported, flagged or of the last 7 days and not reviewed; `all`: every one",
      ),
  })
  .strict();

/** A completed take-over as admins see it. */
export const takeOverObject = z.object({
  _id: z.string(),
  patient: z.object({ _id: z.string(), name: z.string(), shortId: z.string().nullable() }),
  startedBy: z.object({ _id: z.string(), name: z.string() }).nullable(),
  startedAs: z.string().describe('"manager" (a family member) or "centre" (a health worker)'),
  phone: z.string().describe("The number the new login was made with"),
  keepAccess: z.boolean(),
  flag: z
    .enum(["reported", "starter_suspended", "starter_moved", "starter_declined"])
    .nullable()
    .describe(
      "Why it waits for a look: reported as not the person, or its starter since suspended, moved or declined",
    ),
  reportedAt: z.string().datetime().nullable(),
  reviewedAt: z.string().datetime().nullable(),
  undoneAt: z.string().datetime().nullable(),
  createdAt: z.string().datetime(),
  canUndo: z.boolean().describe("Not undone and at most 7 days old"),
});

/** The "this was not me" link's take-over, as its page shows it. */
export const notMeObject = z.object({
  createdAt: z.string().datetime().optional(),
  reported: z.boolean(),
  undone: z.boolean(),
});
