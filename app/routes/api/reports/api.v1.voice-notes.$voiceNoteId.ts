import { setHeardNote } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The typed "what I heard" beside a patient's voice note (the expert holding the report, the centre's health worker). */
const route = apiRoute({
  PATCH: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const note = await setHeardNote(actor, params.voiceNoteId ?? "", body, { ip: clientOf(context).ip });
      return { message: "voice.heardSaved", data: note };
    }),
});
export const loader = route.loader;
export const action = route.action;
