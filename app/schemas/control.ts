import { z } from "zod";
import { CENTRE_KINDS, CONSENT_METHODS, PATIENT_CONSENT_KINDS } from "~/db/types";
import { CONSENT_KIND_KEYS, CONSENT_METHOD_KEYS } from "./limits";

export { CONSENT_KIND_KEYS, CONSENT_METHOD_KEYS };

/** The patient stays in control (decision 0030): who may act for a profile, its access trail, consents given by others. */

const blankToUndefined = (v: unknown) => (v === "" || v === null ? undefined : v);

export const accessTrailQuery = z.object({
  /** A profile the caller manages (a family member without a login of their own); default: their own. */
  patientId: z.preprocess(blankToUndefined, z.string().max(100, "reports.patientNotFound").optional()),
});

export const accessHoldersObject = z.object({
  patientId: z.string(),
  managers: z.array(
    z.object({
      managerId: z.string(),
      firstName: z.string(),
      lastName: z.string(),
      relationship: z.string(),
      since: z.string().datetime(),
    }),
  ),
  centre: z
    .object({ _id: z.string(), name: z.string(), kind: z.string(), district: z.string(), state: z.string() })
    .nullable(),
});

export const trailEntryObject = z.object({
  _id: z.string(),
  /** patient.registered, patient.reports_open, patient.file_open, patient.letter_open, … */
  action: z.string(),
  at: z.string().datetime(),
  by: z.enum(["self", "manager", "centre", "admin", "other"]),
  actor: z.object({ _id: z.string(), firstName: z.string(), lastName: z.string() }).nullable(),
  centre: z.object({ _id: z.string(), name: z.string() }).nullable(),
  reportId: z.string().nullable(),
  /** What happened, in the request's language, without the date ("…, 3 times" for repeats). */
  text: z.string(),
  /** How many events of the same person doing the same thing within minutes this line stands for (1: one). */
  count: z.number().int(),
  /** The oldest of those events; `at` is the newest. */
  firstAt: z.string().datetime(),
});

/** A consent given for the profile by someone else: facilitated at a centre, a guardian's, a family member's. */
export const profileConsentObject = z.object({
  _id: z.string(),
  kind: z.enum(PATIENT_CONSENT_KINDS),
  granted: z.boolean(),
  textVersion: z.string(),
  locale: z.string(),
  method: z.enum(CONSENT_METHODS),
  witnessName: z.string().nullable(),
  /** A photo of the signature or thumbprint is kept (encrypted). */
  evidence: z.boolean(),
  recordedBy: z.object({ _id: z.string().nullable(), name: z.string() }),
  centre: z.object({ _id: z.string(), name: z.string() }).nullable(),
  relationship: z.string(),
  /** When the consent text was read aloud, when that was before it was recorded (offline, decision 0064); null: at createdAt. */
  shownAt: z.string().datetime().nullable(),
  createdAt: z.string().datetime(),
});

export const CENTRE_KIND_KEYS: Record<(typeof CENTRE_KINDS)[number], string> = {
  hwc: "control.centreKind.hwc",
  phc: "control.centreKind.phc",
  chc: "control.centreKind.chc",
  clinic: "control.centreKind.clinic",
  csc: "control.centreKind.csc",
};
