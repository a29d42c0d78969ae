import { checkValue } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";

/** The expert holding the report confirms, corrects or removes one lab value (decision 0084). */
const route = apiRoute({
  PATCH: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const value = await checkValue(actor, params.reportId ?? "", params.valueId ?? "", body);
      return { message: "labs.checked", data: value };
    }),
});
export const loader = route.loader;
export const action = route.action;
