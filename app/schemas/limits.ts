import {
  CENTRE_KINDS,
  CONSENT_METHODS,
  CONSENT_PURPOSES,
  HEALTH_WORKER_ROLES,
  PATIENT_CONSENT_KINDS,
} from "~/db/types";

/**
 * Limits and choices the forms show in the browser (maxlength, select options), kept apart from the
 * zod schemas that enforce them on the server, so a screen that shows a form without checking it
 * as you type loads no zod (decision 0036). The schema modules re-export them.
 */

/** Country codes offered on the signup form's contact number. */
export const SIGNUP_COUNTRY_CODES = ["+91", "+1", "+44", "+61", "+81"] as const;

/** An expert's registration number and council (decision 0013). */
export const REGISTRATION_MAX = 40;
export const COUNCIL_MAX = 120;

/** A health worker's ID at their centre (decision 0030). */
export const WORKER_ID_MAX = 40;

/** i18n key of each health worker role's name. */
export const WORKER_ROLE_KEYS: Record<(typeof HEALTH_WORKER_ROLES)[number], string> = {
  cho: "centres.roleCho",
  anm: "centres.roleAnm",
  asha: "centres.roleAsha",
  vle: "centres.roleVle",
  doctor: "centres.roleDoctor",
  other: "centres.roleOther",
};

/** Display pictures: images only, at most 2 MiB (checked in the browser as a courtesy, enforced on the server). */
export const DISPLAY_PICTURE_MAX_BYTES = 2 * 1024 * 1024;

export const GENDERS = ["Male", "Female", "Non-Binary", "Prefer not to say", "Other"] as const;

/** i18n key of each stored (English) gender value: the settings form and the profile page. */
export const GENDER_LABEL_KEYS: Record<(typeof GENDERS)[number], string> = {
  Male: "profile.genderMale",
  Female: "profile.genderFemale",
  "Non-Binary": "profile.genderNonBinary",
  "Prefer not to say": "profile.genderPreferNot",
  Other: "profile.genderOther",
};

/** The text each purpose shows (an i18n key) and its version: change the text, change the version. */
export const CONSENT_TEXTS: Record<
  (typeof CONSENT_PURPOSES)[number],
  { version: string; key: string; titleKey: string }
> = {
  // The upload form's checkbox says exactly this (the spec's wording), so it is the text recorded.
  review: { version: "review-2026-11", key: "reports.consentLabel", titleKey: "rights.purposeReview" },
  contact: {
    version: "contact-2026-11",
    key: "rights.consentContactText",
    titleKey: "rights.purposeContact",
  },
  statistics: {
    version: "statistics-2026-11",
    key: "rights.consentStatisticsText",
    titleKey: "rights.purposeStatistics",
  },
};

export const CORRECTION_MAX = 2000;

export const RESPONSE_MAX = 2000;

export const NOMINEE_NAME_MAX = 100;

export const NOMINEE_RELATIONSHIP_MAX = 60;

export const NOMINEE_CONTACT_MAX = 254;

/** SMART Health Links allow a label of at most 80 characters; ours follows. */
export const SHARE_LABEL_MAX = 80;

export const SHARE_DAYS_DEFAULT = 7;

export const SHARE_DAYS_MAX = 30;

export const SHARE_PASSCODE_MIN = 6;

export const SHARE_PASSCODE_MAX = 40;

export const SHARE_MAX_OPENS_MAX = 100;

/** The words for each kind of consent given by others, method and centre kind (screens and the FHIR export). */
export const CONSENT_KIND_KEYS: Record<(typeof PATIENT_CONSENT_KINDS)[number], string> = {
  facilitated: "control.consentKind.facilitated",
  guardian: "control.consentKind.guardian",
  family: "control.consentKind.family",
};

export const CONSENT_METHOD_KEYS: Record<(typeof CONSENT_METHODS)[number], string> = {
  verbal: "control.consentMethod.verbal",
  witnessed: "control.consentMethod.witnessed",
  signature: "control.consentMethod.signature",
  thumbprint: "control.consentMethod.thumbprint",
  online: "control.consentMethod.online",
};

/** A follow-up question or answer, and a second opinion's note to its expert (decision 0038). */
export const FOLLOWUP_TEXT_MAX = 2000;
export const SECOND_NOTE_MAX = 2000;

/** i18n key of how a second opinion stands to the first ("partly agrees"), by agreement. */
export const AGREEMENT_VERDICT_KEYS = {
  agree: "panel.verdict.agree",
  partly: "panel.verdict.partly",
  disagree: "panel.verdict.disagree",
} as const;

/** A family member as seen from the account holder ("my daughter"), and a name's length (decision 0030). */
export const FAMILY_RELATIONSHIPS = ["daughter", "son", "father", "mother", "spouse", "other"] as const;
export const FAMILY_NAME_MAX = 80;

/** An opinion's summary, findings and recommendations (decision 0013). */
export const REVIEW_MAX = 10_000;

/** The reason an admin gives when declining an expert (decision 0013). */
export const REJECTION_MAX = 500;

/** A centre's name and place (decision 0030), and the i18n key of each kind's name. */
export const CENTRE_NAME_MAX = 120;
export const PLACE_MAX = 80;
export const CENTRE_KIND_KEYS: Record<(typeof CENTRE_KINDS)[number], string> = {
  hwc: "centres.kindHwc",
  phc: "centres.kindPhc",
  chc: "centres.kindChc",
  clinic: "centres.kindClinic",
  csc: "centres.kindCsc",
};

/** The reason an admin gives when declining a health worker (decision 0030). */
export const WORKER_REJECTION_MAX = 500;

/** A health worker's standing (decision 0030): i18n key of each status's name and of its empty list. */
export const HEALTH_WORKER_STATUSES = ["pending", "approved", "suspended"] as const;
export const WORKER_STATUS_KEYS: Record<(typeof HEALTH_WORKER_STATUSES)[number], string> = {
  pending: "centres.status_pending",
  approved: "centres.status_approved",
  suspended: "centres.status_suspended",
};
export const NO_WORKERS_KEYS: Record<(typeof HEALTH_WORKER_STATUSES)[number], string> = {
  pending: "centres.noWorkers_pending",
  approved: "centres.noWorkers_approved",
  suspended: "centres.noWorkers_suspended",
};
