import { reassignFollowUps } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: another approved expert takes over a report's follow-up questions. */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      await reassignFollowUps(actor, params.reportId ?? "", body, { ip: clientOf(context).ip });
      return { message: "followups.reassignSuccess" };
    }),
});
export const loader = route.loader;
export const action = route.action;
