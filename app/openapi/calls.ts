import { z } from "zod";
import { CALL_WINDOWS, NOTICE_BY } from "~/db/types";
import { noticeSchema, numberProofSchema } from "~/schemas/calls";
import type { Endpoint } from "./endpoint";

/** How a profile hears that an opinion is ready (decision 0080). */
const noticeObject = z.object({
  noticeBy: z.enum(NOTICE_BY).describe("sms, call (instead of the SMS) or both"),
  callWindow: z
    .enum(CALL_WINDOWS)
    .describe("The part of the day a call may come (VOICE_WINDOWS, local time)"),
  phone: z
    .string()
    .nullable()
    .describe(
      "The number a call goes to, masked; null: none on record (only sms). Called only once `phoneProven`",
    ),
  phoneProven: z
    .boolean()
    .describe(
      "Whether that number is proven to be the person's (decision 0102): the mobile number an account proved with an SMS code, or proven with a code sent to it (`/notice/proof`) or a missed call from it to `clinicNumber`. A call can be chosen only then",
    ),
  clinicNumber: z
    .string()
    .nullable()
    .describe(
      "The clinic's number (VOICE_NUMBER): a missed call to it from the number proves it; null: none set",
    ),
});

const proofSentObject = z.object({
  phone: z.string().describe("Where the code went, masked"),
  expiresInMinutes: z.number().int(),
});

/** A call as admins see it: never whose, never what was said. */
const phoneCallObject = z.object({
  _id: z.string(),
  direction: z.enum(["in", "out"]).describe("in: a missed call to the clinic; out: a call placed"),
  number: z.string().describe("Masked: country code and the last 4 digits"),
  purpose: z.string().describe("missed-call, callback, opinion-ready or general"),
  status: z.string().describe("queued, calling, done or failed"),
  outcome: z.string().nullable().describe("heard, callback-asked, not-verified, no-answer, busy, failed, …"),
  attempts: z.number().int(),
  durationMs: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string().datetime(),
  endedAt: z.string().datetime().nullable(),
});

const WHO = "the person, a family manager of the profile, or a health worker of its centre";

export const CALL_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/patients/{patientId}/notice",
    who: WHO,
    summary:
      "How the profile hears that an opinion is ready (SMS, a phone call or both) and when a call may come",
    auth: true,
    data: noticeObject,
    errors: [401, 404],
  },
  {
    method: "put",
    path: "/patients/{patientId}/notice",
    who: WHO,
    summary:
      "Choose SMS, a phone call or both, and the call window. A call needs a number on record (the profile's, or the person's account's mobile number or contact number) that is proven to be the person's (`phoneProven`, decision 0102): 400 otherwise, `calls.noPhone` without a number, `calls.numberUnproven` while it is not proven (prove it with `POST` then `PUT /patients/{patientId}/notice/proof`, or a missed call from it to `clinicNumber`). Before anything medical, a call asks for the year of birth; the call names no one before it",
    auth: true,
    body: noticeSchema,
    data: noticeObject,
    errors: [400, 401, 404],
  },
  {
    method: "post",
    path: "/patients/{patientId}/notice/proof",
    who: WHO,
    summary:
      "Send a 6-digit code by SMS to the number a call about the profile would go to (never to a number given here), in the profile's language: 10 minutes, single use, 5 tries, valid only for this profile; SMS budgets as for signup codes (429). 409 when the number is already proven; 400 `calls.noPhone` without a number, `calls.proofNoSms` for a number that cannot get an SMS (a fixed line: prove it with a missed call to `clinicNumber`)",
    auth: true,
    data: proofSentObject,
    errors: [400, 401, 404, 409, 429],
  },
  {
    method: "put",
    path: "/patients/{patientId}/notice/proof",
    who: WHO,
    summary:
      "Type back the code sent to the number: the number is then proven to be the person's (a line in her access trail) and a call can be chosen. A wrong, used or expired code, or one sent for another profile, is a 400; 5 tries per profile an hour, then 429. Answers with how the profile hears about opinions",
    auth: true,
    body: numberProofSchema,
    data: noticeObject,
    errors: [400, 401, 404, 429],
  },
  {
    method: "get",
    path: "/admin/phone-calls",
    who: "Admin",
    summary:
      "Missed calls to the clinic's number and the calls CareBridge placed, newest first: masked number, purpose, outcome, attempts, duration — never whose or what was said",
    auth: true,
    list: true,
    data: z.array(phoneCallObject),
    errors: [401, 403],
  },
];
