import { handleTus } from "~/web/tus.server";
import { reportUploadMaxBytes } from "~/domain/records/index.server";
import { apiRoute } from "~/web/api.server";
import { holdRefusedOutbox } from "~/web/held.server";
import { idempotent } from "~/web/idempotency.server";
import { actorFromRequest } from "~/web/session-cookie.server";

/**
 * Resumable uploads (tus 1.0.0, decision 0015): POST creates an upload for a report file — the
 * report's fields travel as Upload-Metadata and are checked here, before any byte is sent;
 * OPTIONS tells the protocol's version, extensions and largest size.
 */
const route = apiRoute({
  POST: (request, _params, context) =>
    // tus takes the browser session on a same-site request too (fileActor): so does its key.
    idempotent(request, { maxBytes: reportUploadMaxBytes(), actor: actorFromRequest }, async (request) => {
      // A suspended or moved worker's offline upload carries no bytes here: it is refused with the
      // reason and sent whole to the multipart endpoint, which keeps it (decision 0065).
      const held = await holdRefusedOutbox(request, context, {
        kind: "upload",
        wholeAt: "/api/v1/report/upload-report",
      });
      if (held) held.headers.set("Tus-Resumable", "1.0.0");
      return held ?? handleTus(request, undefined, context);
    }),
  OPTIONS: (request, _params, context) => handleTus(request, undefined, context),
});
export const loader = route.loader;
export const action = route.action;
