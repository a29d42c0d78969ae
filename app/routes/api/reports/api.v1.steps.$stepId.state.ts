import { setStepState } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/**
 * Where an opinion's next step stands (decision 0114): done, visited, declined with a reason,
 * unreachable, or open again — by the patient's side, her centre or the expert who asked.
 */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const step = await setStepState(actor, params.stepId ?? "", body, { ip: clientOf(context).ip });
      return { message: "steps.stateSaved", data: step };
    }),
});
export const loader = route.loader;
export const action = route.action;
