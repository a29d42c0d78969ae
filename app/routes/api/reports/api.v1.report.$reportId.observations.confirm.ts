import { confirmValues } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";

/**
 * The expert holding the report confirms, in one step, the unchecked values she was shown
 * (decision 0090): those read with doubt, already checked or removed are left as they are.
 */
const route = apiRoute({
  POST: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return { message: "labs.confirmedAll", data: await confirmValues(actor, params.reportId ?? "", body) };
    }),
});
export const loader = route.loader;
export const action = route.action;
