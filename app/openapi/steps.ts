import { z } from "zod";
import { STEP_KINDS, STEP_STATES, STEP_URGENCIES } from "~/db/types";
import { stepStateSchema } from "~/schemas/next-steps";
import type { Endpoint } from "./endpoint";

/** A next step as the API shows it (decision 0114). */
export const nextStepObject = z.object({
  _id: z.string(),
  reportId: z.string(),
  position: z.number().int(),
  kind: z.enum(STEP_KINDS),
  tests: z.array(z.object({ loinc: z.string(), name: z.string() })).nullable(),
  specialty: z.string().nullable(),
  facility: z.string().nullable().describe('kind "facility": its name; null: the nearest hospital'),
  urgency: z.enum(STEP_URGENCIES).nullable(),
  reason: z.string().nullable(),
  inDays: z.number().int(),
  dueOn: z.string().describe("YYYY-MM-DD, the clinic's date"),
  state: z.enum(STEP_STATES),
  stateReason: z.string().nullable(),
  stateAt: z.string().datetime().nullable(),
  attachedReportId: z.string().nullable(),
  referral: z
    .object({ code: z.string(), seenAt: z.string().datetime().nullable(), note: z.string().nullable() })
    .nullable()
    .describe("A facility step's referral code and the facility's acknowledgement"),
  remindOff: z.boolean(),
});

/** A worklist row: the step and whose it is. */
export const worklistItemObject = nextStepObject.extend({
  patient: z.object({
    _id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    shortId: z.string().nullable(),
  }),
});

/** The centre's worklist, the referral letter, closing a step from the worklist (decision 0114). */
export const STEP_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/centre/steps",
    who: "HealthWorker (approved; their centre's patients only)",
    summary:
      "The centre's worklist: its patients' next steps — `when=week` (default) open and due from today to seven days on, `overdue` open and past due, `done` closed",
    auth: true,
    list: true,
    query: z.object({ when: z.enum(["week", "overdue", "done"]).optional() }),
    data: worklistItemObject,
    errors: [400, 401, 403],
  },
  {
    method: "post",
    path: "/centre/steps/{stepId}/state",
    who: "HealthWorker (approved) of the patient's centre",
    summary:
      "Record how a step ended: done, visited, declined (a reason required), unreachable — or open it again. A step of a patient not at her centre is not found",
    auth: true,
    body: stepStateSchema,
    data: nextStepObject,
    errors: [400, 401, 403, 404],
  },
  {
    method: "get",
    path: "/steps/{stepId}/referral.pdf",
    who: "the patient's side (herself, a family manager), her centre's health workers, the expert who asked",
    summary:
      "A facility step's referral letter (PDF, in the patient's language): the opinion's summary, the reason, how soon, the facility, the referral code and where to open it, the letter's verification code; each fetch is recorded",
    auth: true,
    binary: true,
    errors: [401, 403, 404],
  },
];
