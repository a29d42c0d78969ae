import { z } from "zod";
import { profileConsentObject } from "./control";
import { strictBoolean } from "./strict";
import { CONSENT_PURPOSES, RIGHTS_REQUEST_STATUSES, RIGHTS_REQUEST_TYPES } from "~/db/types";
import {
  CONSENT_TEXTS,
  CORRECTION_MAX,
  RESPONSE_MAX,
  NOMINEE_NAME_MAX,
  NOMINEE_RELATIONSHIP_MAX,
  NOMINEE_CONTACT_MAX,
} from "./limits";

export {
  CONSENT_TEXTS,
  CORRECTION_MAX,
  RESPONSE_MAX,
  NOMINEE_NAME_MAX,
  NOMINEE_RELATIONSHIP_MAX,
  NOMINEE_CONTACT_MAX,
};

/**
 * Inputs of the consent and rights centre (decision 0019), shared by the My data screen, the admin
 * queue, /api/v1/rights/* and the OpenAPI document. Messages are i18n keys (section `rights`).
 */

const purposeField = z.enum(CONSENT_PURPOSES, {
  errorMap: () => ({ message: "rights.purposeInvalid" }),
});

/** true/false (a form's "true"/"false"/"on" through formSchema). */
const grantedField = strictBoolean("rights.grantedRequired");

/** Give or withdraw one purpose's consent. */
export const consentChangeSchema = z.object({
  purpose: purposeField,
  granted: grantedField,
});
export type ConsentChange = z.infer<typeof consentChangeSchema>;

/** A correction request: what is wrong and what it should say (free text). */
export const correctionSchema = z.object({
  details: z
    .string({ required_error: "rights.detailsRequired", invalid_type_error: "rights.detailsRequired" })
    .trim()
    .min(1, "rights.detailsRequired")
    .max(CORRECTION_MAX, "rights.detailsTooLong"),
});

const erasurePassword = z
  .string({
    required_error: "profile.deletePasswordRequired",
    invalid_type_error: "profile.deletePasswordRequired",
  })
  .min(1, "profile.deletePasswordRequired")
  .max(128, "accounts.passwordTooLong");

/** The second factor, when the account has two-step login on: a code from the app or a recovery code. */
const proofFields = {
  code: z
    .string({ invalid_type_error: "mfa.codeShape" })
    .max(40, "mfa.codeShape")
    .nullish()
    .describe("When two-step login is on: the 6-digit code the authenticator app shows now"),
  recoveryCode: z
    .string({ invalid_type_error: "mfa.recoveryWrong" })
    .max(40, "mfa.recoveryWrong")
    .nullish()
    .describe("When two-step login is on and the phone is lost: a recovery code instead of `code`"),
};

/**
 * An erasure request (My data, POST /rights/erasure): the account's password, asked again, and
 * the second factor when two-step login is on (decision 0022).
 */
export const erasureSchema = z.object({ password: erasurePassword, ...proofFields });

/**
 * Deleting the account (DELETE /profile/delete-profile, decision 0022): the same re-authentication;
 * by default an erasure due after the notice, `immediate: true` erases now.
 */
export const deleteProfileSchema = erasureSchema.extend({
  immediate: strictBoolean("rights.immediateInvalid")
    .optional()
    .describe("true: erase the account now instead of after the notice (default false)"),
});

/**
 * Settings' "Delete account" form: the password, one field for the second factor (a code or a
 * recovery code, when two-step login is on) and the box that skips the notice.
 */
export const deleteAccountFormSchema = z.object({
  password: erasurePassword,
  proof: z.string().max(40, "mfa.codeShape").optional(),
  immediate: strictBoolean().optional(),
});

/** Cancelling an erasure: signed in (no body needed), or with the token of the link in the notice. */
export const cancelErasureSchema = z.object({
  token: z.string({ invalid_type_error: "rights.cancelLinkInvalid" }).max(200).optional(),
});

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE_RE = /^\+?[0-9][0-9 ()-]{5,24}$/;

/** The nominee: who may act for the person (their name, how they are related, how to reach them). */
export const nomineeSchema = z.object({
  name: z
    .string({
      required_error: "rights.nomineeNameRequired",
      invalid_type_error: "rights.nomineeNameRequired",
    })
    .trim()
    .min(1, "rights.nomineeNameRequired")
    .max(NOMINEE_NAME_MAX, "rights.nomineeNameTooLong"),
  relationship: z
    .string({ invalid_type_error: "rights.nomineeRelationshipTooLong" })
    .trim()
    .max(NOMINEE_RELATIONSHIP_MAX, "rights.nomineeRelationshipTooLong")
    .optional()
    .transform((v) => v ?? ""),
  contact: z
    .string({
      required_error: "rights.nomineeContactRequired",
      invalid_type_error: "rights.nomineeContactRequired",
    })
    .trim()
    .min(1, "rights.nomineeContactRequired")
    .max(NOMINEE_CONTACT_MAX, "rights.nomineeContactInvalid")
    .refine((v) => EMAIL_RE.test(v) || PHONE_RE.test(v), "rights.nomineeContactInvalid"),
});
export type NomineeInput = z.infer<typeof nomineeSchema>;

/** An admin's answer to a request. */
export const resolveSchema = z.object({
  status: z.enum(["done", "rejected"], { errorMap: () => ({ message: "rights.resolveStatusInvalid" }) }),
  response: z
    .string({ required_error: "rights.responseRequired", invalid_type_error: "rights.responseRequired" })
    .trim()
    .min(1, "rights.responseRequired")
    .max(RESPONSE_MAX, "rights.responseTooLong"),
});
export type ResolveInput = z.infer<typeof resolveSchema>;

/** The admin queue's filters (`status` defaults to open; "all" lifts it). */
export const rightsQueueQuerySchema = z.object({
  status: z
    .enum([...RIGHTS_REQUEST_STATUSES, "all"], { errorMap: () => ({ message: "rights.filterInvalid" }) })
    .optional(),
  type: z.enum(RIGHTS_REQUEST_TYPES, { errorMap: () => ({ message: "rights.filterInvalid" }) }).optional(),
});
export type RightsQueueQuery = z.infer<typeof rightsQueueQuerySchema>;

// ---------------------------------------------------------------------------------------------
// Response objects (OpenAPI and tests)

export const consentStateObject = z.object({
  purpose: z.enum(CONSENT_PURPOSES),
  granted: z.boolean(),
  /** Whether a record says so; otherwise the purpose's default (see docs/decisions/0019). */
  recorded: z.boolean(),
  /** The version of the text the person agreed to or withdrew (null without a record). */
  textVersion: z.string().nullable(),
  /** The version of the text shown today. */
  currentTextVersion: z.string(),
  /** The text shown today, in the request's language. */
  text: z.string(),
  /** Granted under an older text: asking again shows the new one. */
  outdated: z.boolean(),
  at: z.string().datetime().nullable(),
  via: z
    .string()
    .nullable()
    .describe(
      '"upload", "settings" or "api" (the person), or — for reports someone uploaded for them before a take-over — "manager" (a family member) or "centre" (a health worker), named in `by`',
    ),
  by: z
    .string()
    .nullable()
    .describe("Who gave it for the person (via manager or centre), by name; null when the person did"),
});

export const consentRecordObject = z.object({
  _id: z.string(),
  purpose: z.enum(CONSENT_PURPOSES),
  granted: z.boolean(),
  textVersion: z.string(),
  locale: z.string(),
  via: z.string(),
  createdAt: z.string().datetime(),
});

export const consentOverviewObject = z.object({
  consents: z.array(consentStateObject),
  history: z.array(consentRecordObject),
  /** What withdrawing review consent now would do: these pending reports leave the queue (deleted with their files); reviewed ones stay. */
  withdrawEffect: z.object({ pendingReports: z.number().int(), reviewedReports: z.number().int() }),
  /** On a change: how many pending reports were withdrawn by it. */
  withdrawnReports: z.number().int().optional(),
  /** Consents given for the profile by others: facilitated at a centre (method, witness, who recorded it), a guardian's, a family member's. */
  profileConsents: z.array(profileConsentObject),
});

export const rightsRequestObject = z.object({
  _id: z.string(),
  type: z.enum(RIGHTS_REQUEST_TYPES),
  status: z.enum(RIGHTS_REQUEST_STATUSES),
  details: z.string(),
  /** Erasure: when it is carried out unless cancelled. */
  dueAt: z.string().datetime().nullable(),
  response: z.string(),
  resolvedAt: z.string().datetime().nullable(),
  createdAt: z.string().datetime(),
  /** Admin views: who asked (null once the account is erased) and who answered. */
  user: z
    .object({
      _id: z.string(),
      firstName: z.string(),
      lastName: z.string(),
      email: z.string(),
      accountType: z.string(),
    })
    .nullable()
    .optional(),
  resolvedBy: z
    .object({ _id: z.string(), firstName: z.string(), lastName: z.string() })
    .nullable()
    .optional(),
});

export const nomineeObject = z.object({
  name: z.string(),
  relationship: z.string(),
  contact: z.string(),
  updatedAt: z.string().datetime(),
});

export const grievanceObject = z.object({ name: z.string(), email: z.string(), phone: z.string() });

/** My data's erasure form: the password and (two-step login on) the code; always with the notice. */
export const erasureFormSchema = deleteAccountFormSchema.omit({ immediate: true });
