import { z } from "zod";
import {
  ACCOUNT_TYPES,
  AGREEMENTS,
  NOTIFY_CHANNELS,
  SMS_PURPOSES,
  SMS_STATUSES,
  STEP_KINDS,
  STEP_STATES,
  STEP_URGENCIES,
} from "~/db/types";
import { SPECIALTIES } from "~/schemas/specialties";
import { REPORT_TYPES } from "./reports";

/** Response objects of the contract, for the OpenAPI document and for tests that check real responses. */
export const userObject = z.object({
  _id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  /** "" for a patient who signed up with a mobile number (decision 0020). */
  email: z.string(),
  /** The mobile number (E.164) a patient signed up with, else null. */
  phone: z.string().nullable(),
  /** How notifications reach the account. */
  notify: z.enum(NOTIFY_CHANNELS),
  accountType: z.enum(ACCOUNT_TYPES),
  contactNumber: z.string(),
  countryCode: z.string(),
  image: z.string().nullable(),
  approved: z.boolean(),
  additionalDetails: z.object({
    about: z.string().nullable(),
    gender: z.string().nullable(),
    dateOfBirth: z.string().nullable(),
    contactNumber: z.string().nullable(),
  }),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
  /** Experts only (decision 0013): verification details and the admin's decision. */
  expertDetails: z
    .object({
      specialties: z.array(z.enum(SPECIALTIES)),
      registrationNumber: z.string(),
      registrationCouncil: z.string(),
      yearsOfPractice: z.number().int().nullable(),
      approvedAt: z.string().datetime().nullable(),
      approvedBy: z.object({ _id: z.string(), firstName: z.string(), lastName: z.string() }).nullable(),
      rejectedAt: z.string().datetime().nullable(),
      rejectionReason: z.string().nullable(),
    })
    .nullable()
    .optional(),
  /** Two-step login is on (GET /profile/get-user-details). */
  twoFactor: z.boolean().optional(),
});

const person = z.object({ _id: z.string(), firstName: z.string(), lastName: z.string() });

export const followUpObject = z.object({
  _id: z.string(),
  question: z.string(),
  askedAt: z.string().datetime(),
  answer: z.string().nullable(),
  answeredAt: z.string().datetime().nullable(),
  answeredBy: person.nullable(),
});

/** Medical images (decision 0039): a report whose file is a DICOM file or a ZIP of one study. */
export const studyObject = z.object({
  studyUid: z
    .string()
    .describe(
      "Issued by the server for this report (2.25.…), never the file's own; the PACS files the study under it",
    ),
  modality: z.string().nullable(),
  bodyPart: z.string().nullable(),
  studyDate: z.string().nullable().describe("YYYY-MM-DD, when the file gives a valid date"),
  description: z.string().nullable(),
  personalFields: z
    .array(z.string())
    .describe(
      "Names of the personal DICOM fields the files carry (PatientName, PatientBirthDate, …), never their values",
    ),
  series: z.array(
    z.object({
      seriesUid: z.string(),
      seriesNumber: z.number().int().nullable(),
      description: z.string().nullable(),
      modality: z.string().nullable(),
      frames: z.number().int(),
      instances: z.array(
        z.object({
          id: z.string().describe("Names the instance in …/study/frames/{instance}/{frame}.png"),
          instanceNumber: z.number().int().nullable(),
          sopInstanceUid: z.string().describe("Issued by the server, like the study's and series' UIDs"),
          rows: z.number().int(),
          columns: z.number().int(),
          frames: z.number().int(),
          transferSyntax: z.string(),
        }),
      ),
    }),
  ),
  instanceCount: z.number().int(),
  pacs: z
    .object({
      status: z
        .enum(["none", "queued", "sending", "sent", "failed"])
        .describe(
          "none: no PACS configured; queued: waiting; sent; failed: not sent (no further attempts). Only admins see `sending`; everyone else sees `queued` meanwhile",
        ),
      attempts: z.number().int().describe("Attempts so far (admins only; 0 for everyone else)"),
      sentAt: z.string().datetime().nullable(),
      error: z
        .string()
        .nullable()
        .describe("The PACS's last refusal or the network error (admins only; null for everyone else)"),
    })
    .describe("The hand-off to the PACS (STOW-RS)"),
  viewerUrl: z
    .string()
    .nullable()
    .describe("The study in the OHIF viewer, when OHIF_URL is set (by the study UID the server issued)"),
});

/** An opinion's next step (decision 0114), as the expert gave it and where it stands. */
export const nextStepObject = z.object({
  _id: z.string(),
  reportId: z.string(),
  position: z.number().int().describe("The order the expert gave the steps in, from 0"),
  kind: z.enum(STEP_KINDS),
  tests: z
    .array(z.object({ loinc: z.string(), name: z.string() }))
    .nullable()
    .describe("tests: the analytes to repeat, by LOINC code, with the lab catalogue's English name"),
  specialty: z.enum(SPECIALTIES).nullable().describe("specialist: whom to see"),
  facility: z
    .string()
    .nullable()
    .describe("facility: its name as the expert wrote it; null with kind facility: the nearest hospital"),
  urgency: z
    .enum(STEP_URGENCIES)
    .nullable()
    .describe("specialist and facility: today, this week, within N weeks"),
  reason: z.string().nullable().describe("facility: why she should go, as the expert wrote it"),
  inDays: z.number().int().describe("Days from the opinion to the due date"),
  dueOn: z.string().describe("The due date, YYYY-MM-DD on the clinic's calendar"),
  state: z.enum(STEP_STATES),
  stateReason: z.string().nullable().describe("Why she cannot go (declined)"),
  stateAt: z.string().datetime().nullable(),
  attachedReportId: z.string().nullable().describe("tests: the repeat report attached to the step"),
  referral: z
    .object({ code: z.string(), seenAt: z.string().datetime().nullable(), note: z.string().nullable() })
    .nullable()
    .describe("facility: the referral code the facility opens, and its acknowledgement"),
  remindOff: z.boolean(),
});

const reportCore = z.object({
  _id: z.string(),
  reportType: z.enum(REPORT_TYPES),
  description: z.string().nullable(),
  phoneNumber: z.string(),
  status: z.enum(["Pending", "Reviewed"]),
  review: z.string().nullable(),
  reportUrl: z.string(),
  resourceType: z.enum(["raw", "image"]),
  fileName: z.string(),
  mimeType: z.string(),
  size: z.number().int(),
  patient: person.extend({ email: z.string() }),
  expert: person
    .extend({
      registrationNumber: z.string(),
      registrationCouncil: z.string(),
      specialties: z.array(z.string()),
    })
    .nullable(),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
  reviewedAt: z.string().datetime().nullable(),
  // The consultation's fields (decision 0013), added so old clients can ignore them; status keeps its
  // two values — a claimed report is Pending with claimedBy set.
  urgent: z.boolean(),
  urgentReason: z.string().nullable(),
  claimedBy: person.nullable(),
  claimedAt: z.string().datetime().nullable(),
  findings: z.string().nullable(),
  recommendations: z.string().nullable(),
  seeDoctorSoon: z.boolean(),
  phrases: z
    .array(z.string())
    .describe("Phrase-book entries the expert chose (ids of GET /phrases), in order"),
  dueAt: z.string().datetime(),
  overdue: z.boolean(),
  opinionUrl: z.string().nullable(),
  /** The opinion letter's verification code and its public /verify address, once reviewed. */
  letter: z
    .object({ verifyCode: z.string(), verifyUrl: z.string() })
    .nullable()
    .describe(
      "Once reviewed, for the patient, the reviewer and admins: the code printed on the letter and the public page confirming it",
    ),
  matchesSpecialties: z.boolean().optional(),
  followUps: z.array(followUpObject).optional(),
  followUpsLeft: z.number().int().optional(),
  followUpsUntil: z.string().datetime().nullable().optional(),
  study: studyObject
    .optional()
    .describe("Medical images: given with the upload (and by GET /report/{reportId}/study)"),
  // A second opinion from another specialty (decision 0038), added so old clients can ignore them.
  secondOf: z
    .string()
    .nullable()
    .optional()
    .describe(
      "On a second opinion: the id of the case's first report (the patient's list shows only first reports)",
    ),
  secondSpecialty: z
    .enum(SPECIALTIES)
    .nullable()
    .optional()
    .describe("On a second opinion: the specialty asked"),
  secondNote: z.string().nullable().optional().describe("On a second opinion: why it was asked for"),
  agreement: z
    .enum(AGREEMENTS)
    .nullable()
    .optional()
    .describe("On a given second opinion: how it stands to the first (agree, partly, disagree)"),
  agreementReason: z.string().nullable().optional().describe("On a given second opinion: why"),
  nextSteps: z
    .array(nextStepObject)
    .optional()
    .describe(
      "A reviewed report's next steps (decision 0114), in the expert's order: for the patient's side, her centre and the expert who gave the opinion",
    ),
});

export const reportObject = reportCore.extend({
  secondOpinions: z
    .array(reportCore)
    .optional()
    .describe("On a case's first report, for the patient and admins: the second opinions asked for it"),
  firstOpinion: reportCore
    .nullable()
    .optional()
    .describe("On a second opinion, for its expert: the first opinion (null until it is written)"),
});

export const turnaroundObject = z.object({
  pending: z.number().int(),
  inReview: z.number().int(),
  overdue: z.number().int(),
  windowDays: z.number().int(),
  reviewedInWindow: z.number().int(),
  medianMs: z.number().nullable(),
  p90Ms: z.number().nullable(),
  experts: z.array(
    z.object({
      expert: person,
      claimed: z.number().int(),
      reviewed: z.number().int(),
      medianMs: z.number().nullable(),
    }),
  ),
  overdueReports: z.array(reportObject),
});

export const paginationObject = z.object({
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
  /** The list was counted only up to a cap (a search): it holds more than `total` rows. */
  totalIsLowerBound: z.boolean().optional(),
  /**
   * Keyset pagination: pass it as `cursor` to get the page after this one, in the same order
   * without OFFSET (a row added meanwhile is neither repeated nor skipped); null after the last
   * page. Lists that do not page by cursor yet leave it null.
   */
  nextCursor: z.string().nullable().optional(),
});

export const errorObject = z.object({
  success: z.literal(false),
  message: z.string(),
  errors: z.record(z.array(z.string())).optional(),
});

export const contactMessageObject = z.object({
  _id: z.string(),
  name: z.string(),
  email: z.string(),
  message: z.string(),
  userId: z.string().nullable(),
  createdAt: z.string().datetime(),
});

export const smsMessageObject = z.object({
  _id: z.string(),
  to: z.string().describe("The number masked: country code and the last 4 digits, e.g. +91******3210"),
  purpose: z
    .string()
    .describe(
      `One of ${SMS_PURPOSES.join(", ")} (erased: the last message to a person whose account was erased; deleted once sent)`,
    ),
  status: z.enum(SMS_STATUSES),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  createdAt: z.string().datetime(),
  sentAt: z.string().datetime().nullable(),
});

export const callbackRequestObject = z.object({
  _id: z.string(),
  name: z.string(),
  countryCode: z.string(),
  phoneNumber: z.string(),
  message: z.string().nullable(),
  userId: z.string().nullable(),
  createdAt: z.string().datetime(),
});
