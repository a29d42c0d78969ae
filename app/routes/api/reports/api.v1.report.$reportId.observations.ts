import { addValue, observationsFor } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";

/** A report's lab values (decision 0084): the expert holding it sees all, the patient's side checked ones. */
const route = apiRoute({
  GET: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      // Text results only when asked for: an older client reads `value` as a number (decision 0098).
      const withText = new URL(request.url).searchParams.get("include") === "text";
      return { message: "labs.listed", data: await observationsFor(actor, params.reportId ?? "", withText) };
    }),
  POST: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return {
        status: 201,
        message: "labs.checked",
        data: await addValue(actor, params.reportId ?? "", body),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
