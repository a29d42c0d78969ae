import { exportOwnZip } from "~/domain/interop/index.server";
import { apiRoute } from "~/web/api.server";
import { fileActor } from "~/web/file-access.server";
import { exportAnswer, zipResponse } from "~/web/fhir-response.server";
import { clientOf } from "~/web/request.server";

/**
 * "Download my data" for API clients: the signed-in patient's ZIP (the FHIR Bundle and the
 * original files), streamed. Bearer token, or the browser session on a same-site request.
 */
const route = apiRoute({
  GET: (request, _params, context) =>
    exportAnswer(request, async () => {
      const actor = await fileActor(request);
      const { stream, fileName } = await exportOwnZip(actor, clientOf(context));
      return zipResponse(stream, fileName);
    }),
});
export const loader = route.loader;
export const action = route.action;
