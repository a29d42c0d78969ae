import { handleTus } from "~/web/tus.server";
import { apiRoute } from "~/web/api.server";

/**
 * One resumable upload (tus 1.0.0, decision 0015), its owner only: HEAD tells how many bytes the
 * server has (where to continue), PATCH sends more from there (the request that completes the
 * file gets the new report), DELETE ends the upload.
 */
const route = apiRoute({
  HEAD: (request, params, context) => handleTus(request, params.uploadId, context),
  PATCH: (request, params, context) => handleTus(request, params.uploadId, context),
  DELETE: (request, params, context) => handleTus(request, params.uploadId, context),
});
export const loader = route.loader;
export const action = route.action;
