import { config } from "~/config.server";
import {
  centreQueue,
  getCarePatient,
  registerPatient,
  requireWorkerCentre,
  withRegistrationBudget,
} from "~/domain/care/index.server";
import { centreQueueQuery } from "~/schemas/registration";
import { api, apiRoute, pageQuery, pagination, requireApiActor, validate } from "~/web/api.server";
import { holdRefusedOutbox } from "~/web/held.server";
import { idempotent } from "~/web/idempotency.server";
import { parseUpload } from "~/web/multipart.server";
import { clientOf } from "~/web/request.server";

/**
 * The centre's patients (decision 0030): its queue (paged, `q` a name or short ID), and registering
 * a patient after their facilitated consent — multipart, so the photo of a signature or
 * thumbprint (`evidence`) travels with the fields.
 */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const { q } = validate(centreQueueQuery, {
        q: new URL(request.url).searchParams.get("q") ?? undefined,
      });
      const page = await centreQueue(actor, pageQuery(request), { q });
      return {
        message: "registration.queueSuccess",
        data: page.items,
        extra: { pagination: pagination(page) },
      };
    }),
  POST: (request, _params, context) =>
    idempotent(request, { maxBytes: config().maxUploadBytes, reread: rereadPatient }, async (request) => {
      // A suspended or moved worker's offline item: refused with the reason and kept (decision 0065).
      const held = await holdRefusedOutbox(request, context, {
        kind: "register",
        file: { field: "evidence", kind: "image", maxBytes: config().maxUploadBytes },
      });
      return (
        held ??
        api(request, async () => {
          const actor = await requireApiActor(request);
          await requireWorkerCentre(actor); // before a single byte of the photo is read
          const patient = await withRegistrationBudget(actor, clientOf(context), async () => {
            const { fields, file } = await parseUpload(request, {
              fileField: "evidence",
              kind: "image",
              maxBytes: config().maxUploadBytes,
            });
            return registerPatient(actor, fields, file, { ip: clientOf(context).ip });
          });
          return { status: 201, message: "registration.registered", data: patient };
        })
      );
    }),
});
/** A replayed registration: the patient as the worker may see them today (decision 0074). */
async function rereadPatient(actor: Parameters<typeof getCarePatient>[0], id: string) {
  const { access: _access, ...patient } = await getCarePatient(actor, id, { trace: false });
  return patient;
}
export const loader = route.loader;
export const action = route.action;
