import { centreDirectory } from "~/domain/care/index.server";
import { api, apiRoute } from "~/web/api.server";

/** Anyone: every centre's id, name, kind, district and state (what a health worker signs up for). */
const route = apiRoute({
  GET: (request) => api(request, async () => ({ message: "api.ok", data: await centreDirectory() })),
});
export const loader = route.loader;
export const action = route.action;
