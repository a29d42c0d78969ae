import { nextStepObject } from "~/schemas/objects";
import { stepStateSchema } from "~/schemas/next-steps";
import type { Endpoint } from "./endpoint";

/** An opinion's next steps (decision 0114): given with add-review (`nextSteps`), closed here. */
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
];
