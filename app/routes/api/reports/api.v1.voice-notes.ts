import { addVoiceNote, listVoiceNotes, voiceMaxBytes } from "~/domain/consultation/index.server";
import { limit } from "~/domain/platform/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { holdRefusedOutbox } from "~/web/held.server";
import { idempotent } from "~/web/idempotency.server";
import { parseUpload } from "~/web/multipart.server";
import { clientOf } from "~/web/request.server";

/**
 * Voice notes (decision 0037): a report's list (`?reportId=`) for those who may open the report's
 * file, and a new one (multipart: `reportId`, `audio`, `kind`, optional `language` and, for a
 * question, `question`).
 */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const reportId = new URL(request.url).searchParams.get("reportId") ?? "";
      return { message: "voice.listed", data: await listVoiceNotes(actor, reportId) };
    }),
  POST: (request, _params, context) =>
    idempotent(request, { maxBytes: voiceMaxBytes() }, async (request) => {
      const held = await holdRefusedOutbox(request, context, {
        kind: "voice",
        file: { field: "audio", kind: "audio", maxBytes: voiceMaxBytes() },
      });
      return (
        held ??
        api(request, async () => {
          const actor = await requireApiActor(request);
          await limit("upload", actor.id, clientOf(context));
          const { fields, file } = await parseUpload(request, {
            fileField: "audio",
            kind: "audio",
            maxBytes: voiceMaxBytes(),
          });
          const note = await addVoiceNote(actor, fields.reportId ?? "", fields, file, {
            ip: clientOf(context).ip,
          });
          return { status: 201, message: "voice.added", data: note };
        })
      );
    }),
});
export const loader = route.loader;
export const action = route.action;
