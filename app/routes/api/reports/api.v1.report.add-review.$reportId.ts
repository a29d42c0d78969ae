import { addReview } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const report = await addReview(actor, params.reportId ?? "", body, { ip: clientOf(context).ip });
      return { message: "reports.reviewSuccess", data: report };
    }),
});
export const loader = route.loader;
export const action = route.action;
