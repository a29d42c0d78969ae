import { z } from "zod";
import { REMIND_BY } from "~/db/types";
import { reminderPreferenceSchema } from "~/schemas/next-steps";
import type { Endpoint } from "./endpoint";

/** Reminders of an opinion's next steps, and the repeat report that closes a tests step (decision 0114). */

const WHO = "the patient, a family manager of the profile, or a health worker of its centre";

const preferenceObject = z.object({
  remindBy: z.enum(REMIND_BY).describe("sms, call, email or none (no reminders at all)"),
  remindHour: z.number().int().describe("The hour of the clinic's day (CLINIC_TIME_ZONE), 6 to 21"),
  phone: z.string().nullable().describe("The number an SMS or call goes to, masked; null: none on record"),
  phoneProven: z
    .boolean()
    .describe("Whether that number is proven to be hers (a call needs it, decision 0102)"),
  hasEmail: z.boolean().describe("Whether her account has an e-mail address (an e-mail reminder needs one)"),
});

const stepObject = z
  .object({
    _id: z.string(),
    reportId: z.string(),
    kind: z.enum(["tests", "specialist", "facility"]),
    dueOn: z.string().describe("YYYY-MM-DD, the clinic's date"),
    state: z.string(),
    attachedReportId: z.string().nullable(),
    remindOff: z.boolean(),
  })
  .passthrough()
  .describe("The step, as the patient's screens read it");

const patientQuery = z.object({
  patientId: z
    .string()
    .optional()
    .describe("The profile a family manager or a health worker acts for; absent: the patient's own"),
});

export const REMINDER_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/profile/reminders",
    who: WHO,
    summary:
      "How and at what hour she is reminded of her next steps: a few days before each is due (REMIND_DAYS_BEFORE) and on the day, at most REMIND_DAILY_CAP reminders a day",
    auth: true,
    query: patientQuery,
    data: preferenceObject,
    errors: [401, 404],
  },
  {
    method: "put",
    path: "/profile/reminders",
    who: WHO,
    summary:
      "Choose SMS, a call, an e-mail or none, and the hour. 400 `reminders.noPhone` for SMS or a call without a number, `calls.numberUnproven` for a call to a number not proven hers, `reminders.noEmail` for e-mail without an address. A line in her access trail",
    auth: true,
    query: patientQuery,
    body: reminderPreferenceSchema,
    data: preferenceObject,
    errors: [400, 401, 404],
  },
  {
    method: "post",
    path: "/steps/{stepId}/reminders",
    who: WHO,
    summary: "Switch one step's reminders off (or on again). Anyone else, and an unknown step, get 404",
    auth: true,
    body: z.object({ off: z.boolean() }),
    data: stepObject,
    errors: [400, 401, 404],
  },
  {
    method: "get",
    path: "/step-offers/{reportId}",
    who: WHO,
    summary:
      "The open tests steps this report may close: some of the step's analytes among the report's lab values, uploaded between the opinion and 30 days after the step's due date",
    auth: true,
    data: z.array(z.object({ step: stepObject, loincs: z.array(z.string()) })),
    errors: [401, 404],
  },
  {
    method: "post",
    path: "/steps/{stepId}/attach",
    who: WHO,
    summary:
      "Attach an offered repeat report to its tests step: the step is done, and a Pending report nobody holds is claimed for the expert who asked, for one claim period (then it is back in the queue). 400 for a report not offered for this step, 409 when one is attached already",
    auth: true,
    body: z.object({ reportId: z.string() }),
    data: stepObject,
    errors: [400, 401, 404, 409],
  },
];
