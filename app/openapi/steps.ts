import { z } from "zod";
import { nextStepObject } from "~/schemas/objects";
import { stepStateSchema } from "~/schemas/next-steps";
import type { Endpoint } from "./endpoint";

/** A worklist row: the step and whose it is. */
export const worklistItemObject = nextStepObject.extend({
  patient: z.object({
    _id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    shortId: z.string().nullable(),
  }),
});

/** An opinion's next steps (decision 0114): given with add-review (`nextSteps`), closed here; the centre's worklist; the referral letter. */
export const STEP_ENDPOINTS: Endpoint[] = [
  {
    method: "post",
    path: "/steps/{stepId}/state",
    who: "the patient (or a family manager), her centre's health worker, or the Expert who gave the step",
    summary:
      "Record where an opinion's next step stands: `done`, `declined` (she cannot go; `reason` required), and for her centre `visited` and `unreachable` (the expert: all but `visited`); `open` opens it again. The same state twice changes nothing. 404 for an unknown step and for anyone else alike",
    auth: true,
    body: stepStateSchema,
    data: nextStepObject,
    errors: [400, 401, 404],
  },
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
