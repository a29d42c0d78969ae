import { reportUploadMaxBytes } from "~/domain/records/index.server";
import { limit } from "~/domain/platform/index.server";
import { assertCanUpload, createReport } from "~/domain/consultation/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { holdRefusedOutbox } from "~/web/held.server";
import { idempotent } from "~/web/idempotency.server";
import { parseUpload } from "~/web/multipart.server";
import { clientOf } from "~/web/request.server";

const route = apiRoute({
  POST: (request, _params, context) =>
    idempotent(request, { maxBytes: reportUploadMaxBytes() }, async (request) => {
      const held = await holdRefusedOutbox(request, context, {
        kind: "upload",
        file: { field: "report", kind: "report", maxBytes: reportUploadMaxBytes() },
      });
      return (
        held ??
        api(request, async () => {
          const actor = await requireApiActor(request);
          assertCanUpload(actor); // before reading a single byte of the file
          await limit("upload", actor.id, clientOf(context));
          const { fields, file } = await parseUpload(request, {
            fileField: "report",
            kind: "report",
            maxBytes: reportUploadMaxBytes(),
          });
          const report = await createReport(actor, fields, file, { ip: clientOf(context).ip });
          return { status: 201, message: "reports.uploadSuccess", data: report };
        })
      );
    }),
});
export const loader = route.loader;
export const action = route.action;
