import { openApiDocument } from "~/openapi.server";
import { apiRoute, jsonResponse } from "~/web/api.server";

const route = apiRoute({
  GET: async () => jsonResponse(openApiDocument(), 200, { "Cache-Control": "public, max-age=300" }),
});
export const loader = route.loader;
export const action = route.action;
