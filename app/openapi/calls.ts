import { z } from "zod";
import { CALL_WINDOWS, NOTICE_BY } from "~/db/types";
import { noticeSchema } from "~/schemas/calls";
import type { Endpoint } from "./endpoint";

/** How a profile hears that an opinion is ready (decision 0080). */
const noticeObject = z.object({
  noticeBy: z.enum(NOTICE_BY).describe("sms, call (instead of the SMS) or both"),
  callWindow: z
    .enum(CALL_WINDOWS)
    .describe("The part of the day a call may come (VOICE_WINDOWS, local time)"),
  phone: z.string().nullable().describe("The number a call goes to, masked; null: none on record (only sms)"),
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
      "Choose SMS, a phone call or both, and the call window. A call needs a number on record (the profile's, or the person's account's mobile number): 400 otherwise. Before anything medical, a call asks for the year of birth",
    auth: true,
    body: noticeSchema,
    data: noticeObject,
    errors: [400, 401, 404],
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
