import { accessHolders } from "~/domain/care/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

/** The signed-in patient: who may act for their profile now (family managers, the registering centre). */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "control.accessFetched", data: await accessHolders(actor) };
    }),
});
export const loader = route.loader;
export const action = route.action;
