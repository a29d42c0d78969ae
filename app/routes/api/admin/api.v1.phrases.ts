import { listPhrases } from "~/domain/consultation/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

/** Anyone signed in: the phrase book (decision 0081) — every offered phrase in the four languages. */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => ({
      message: "api.ok",
      data: await listPhrases(await requireApiActor(request)),
    })),
});
export const loader = route.loader;
export const action = route.action;
