import { z } from "zod";
import { registrationFields, centreQueueQuery } from "~/schemas/registration";
import type { Endpoint } from "./endpoint";

/** A patient profile as the API gives it (care/patients.server.ts toApiPatient). */
export const patientProfileObject = z.object({
  _id: z.string(),
  shortId: z.string().nullable().describe("The short ID printed on the slip, e.g. CB-7K4M-2Q"),
  firstName: z.string(),
  lastName: z.string(),
  sex: z.enum(["female", "male", "other"]).nullable(),
  birthYear: z.number().int().nullable(),
  birthYearEstimated: z.boolean().describe("Worked out from the age the patient gave"),
  locality: z.string(),
  preferredLanguage: z.string().describe("en, hi, bn or ta: the language of letters and messages"),
  phone: z.string().nullable().describe("E.164; notices to it never name the patient"),
  phoneOwner: z.enum(["self", "family", "none"]),
  phoneRelationship: z.string(),
  centreId: z.string().nullable(),
  hasOwnAccount: z.boolean(),
  createdAt: z.string().datetime(),
});

/** A printed slip (care/slip.server.ts): its take-over code is answered here only. */
export const printedSlipObject = z.object({
  patientId: z.string(),
  shortId: z.string().describe("The short ID printed on the slip, e.g. CB-7K4M-2Q"),
  slipCode: z.string().describe("The take-over code to print on the slip (XXXX-XXXX-XX); shown once"),
  printedAt: z.string().datetime(),
  prints: z.number().int().describe("How many slips with a code this patient has had (1: the first)"),
});

const centreObject = z.object({
  _id: z.string(),
  name: z.string(),
  kind: z.enum(["hwc", "phc", "chc", "clinic", "csc"]),
  district: z.string(),
  state: z.string(),
});

const facilitatedConsentObject = z.object({
  _id: z.string(),
  kind: z.enum(["facilitated", "guardian", "family"]),
  granted: z.boolean(),
  textVersion: z.string(),
  locale: z.string(),
  method: z.enum(["verbal", "witnessed", "signature", "thumbprint", "online"]),
  witnessName: z.string().nullable(),
  hasEvidence: z.boolean().describe("A photo of the signature or thumbprint is kept (encrypted)"),
  recordedByName: z.string(),
  shownAt: z
    .string()
    .datetime()
    .nullable()
    .describe(
      "When the consent text was read aloud, for one recorded offline and sent later (`consentShownAt`); null: when it was recorded (createdAt)",
    ),
  createdAt: z.string().datetime(),
});

export const centrePatientObject = patientProfileObject.extend({
  centre: centreObject.nullable(),
  consent: facilitatedConsentObject.nullable(),
});

export const centreQueueItemObject = patientProfileObject.extend({
  reports: z.number().int(),
  latestReport: z
    .object({
      _id: z.string(),
      reportType: z.string(),
      status: z.enum(["Pending", "Reviewed"]),
      createdAt: z.string().datetime(),
      reviewedAt: z.string().datetime().nullable(),
    })
    .nullable(),
  waitingSince: z
    .string()
    .datetime()
    .nullable()
    .describe("Upload time of the oldest report without an opinion"),
  opinionsReady: z.number().int(),
  opinionReady: z.boolean().describe("The latest report has its opinion"),
  followUpsPending: z.number().int().describe("Follow-up questions not answered yet"),
});

/** Registering a patient at a centre with their facilitated consent, the centre queue, printing (decision 0030). */
export const REGISTRATION_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/centre/patients",
    who: "HealthWorker (approved; their centre's patients only)",
    summary:
      "The centre's patients, newest first, with where their reports stand (latest status, waiting since, opinion ready, follow-ups pending); `q`: part of a name or a short ID",
    auth: true,
    list: true,
    query: centreQueueQuery,
    data: centreQueueItemObject,
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/centre/patients",
    who: "HealthWorker (approved)",
    summary:
      "Register a patient at the worker's centre after reading the facilitated-consent text aloud (consent=granted; refused saves nothing and answers 400). Methods: verbal, witnessed (witnessName), signature or thumbprint (a photo as `evidence`, stored encrypted). Age or birthYear; phone unless phoneOwner=none. Recorded offline: `consentShownAt` (ISO 8601 with a zone, when the text was read) with `consentTextVersion` (the text shown) is accepted when that version was in use at that time, the time is not ahead of the server's by more than 5 minutes and not more than 30 days ago; otherwise 400 with a field error on `consentShownAt` (or `consentTextVersion` for an unknown version)",
    auth: true,
    multipart: {
      fileField: "evidence",
      fields: registrationFields,
      types: "image/png, image/jpeg, image/webp, image/gif",
    },
    data: centrePatientObject,
    status: 201,
    errors: [400, 401, 403, 413, 415, 429],
    idempotent: true,
    held: true,
  },
  {
    method: "get",
    path: "/centre/patients/{patientId}",
    who: "HealthWorker of the patient's centre, the patient, their family manager, Admin",
    summary: "One patient: profile, centre, the consent in force (the opening is in their access trail)",
    auth: true,
    data: centrePatientObject,
    errors: [401, 403, 404],
  },
  {
    method: "post",
    path: "/centre/patients/{patientId}/slip",
    operationId: "printCentrePatientSlip",
    who: "HealthWorker of the patient's centre",
    summary:
      "Print the patient's slip (decision 0073): a new take-over code, answered here only (no other answer about the patient carries it; the server keeps its hash). Print it on the slip handed to the patient; the previous slip's code stops working at once. Each print is in the patient's access trail; whoever printed a slip cannot start a take-over with its code (except the registering worker's first slip). 409 when the profile already has its own login",
    auth: true,
    data: printedSlipObject,
    status: 201,
    errors: [401, 403, 409],
  },
];
