import { updateCentre } from "~/domain/care/index.server";
import { getCentreWithStats } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: one centre with its figures (GET); change its name, kind, district, state or PIN code (PATCH). */
const route = apiRoute({
  GET: (request, params) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "api.ok", data: await getCentreWithStats(actor, params.centreId ?? "") };
    }),
  PATCH: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return {
        message: "centres.saved",
        data: await updateCentre(actor, params.centreId ?? "", body, clientOf(context).ip),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
