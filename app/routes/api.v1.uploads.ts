import { reportUploadMaxBytes } from "~/domain/records/index.server";
import { apiRoute } from "~/utils/api.server";
import { idempotent } from "~/utils/idempotency.server";
import { actorFromRequest } from "~/utils/session-cookie.server";
import { handleTus } from "~/utils/tus.server";

/**
 * Resumable uploads (tus 1.0.0, decision 0015): POST creates an upload for a report file — the
 * report's fields travel as Upload-Metadata and are checked here, before any byte is sent;
 * OPTIONS tells the protocol's version, extensions and largest size.
 */
const route = apiRoute({
  POST: (request, _params, context) =>
    // tus takes the browser session on a same-site request too (fileActor): so does its key.
    idempotent(request, { maxBytes: reportUploadMaxBytes(), actor: actorFromRequest }, (request) =>
      handleTus(request, undefined, context),
    ),
  OPTIONS: (request, _params, context) => handleTus(request, undefined, context),
});
export const loader = route.loader;
export const action = route.action;
