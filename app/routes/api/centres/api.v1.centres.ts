import { createCentre } from "~/domain/care/index.server";
import { listCentres } from "~/domain/consultation/index.server";
import { api, apiRoute, pageQuery, pagination, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Admin: the centres with their figures (GET), or a new centre (POST). */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const page = await listCentres(actor, pageQuery(request));
      return { message: "api.ok", data: page.items, extra: { pagination: pagination(page) } };
    }),
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      // The domain validates the body with the shared schema, after the permission check.
      const body = await readJson(request);
      return {
        status: 201,
        message: "centres.createdApi",
        data: await createCentre(actor, body, clientOf(context).ip),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
