import { setStepState } from "~/domain/consultation/index.server";
import { requireWorkerCentre } from "~/domain/care/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/**
 * The worklist's closing of a step (decision 0114): `{ state, reason? }` — done, visited, declined
 * (with the reason), unreachable, or open again. The centre's approved health workers only; a step
 * of a patient not hers is not found (the domain decides, as for every side).
 */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      await requireWorkerCentre(actor);
      const body = await readJson(request);
      const step = await setStepState(actor, params.stepId, body, { ip: clientOf(context).ip });
      return { message: "worklist.saved", data: step };
    }),
});
export const loader = route.loader;
export const action = route.action;
