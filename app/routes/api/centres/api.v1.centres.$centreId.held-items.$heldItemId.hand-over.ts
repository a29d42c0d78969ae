import { handOverHeldItem } from "~/domain/consultation/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/**
 * Admin: hands a held item to an approved, unsuspended health worker of the same centre
 * (`{ workerId }`); the recorded action runs as them, once (decision 0065).
 */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const item = await handOverHeldItem(actor, params.centreId ?? "", params.heldItemId ?? "", body, {
        ip: clientOf(context).ip,
      });
      return { message: "held.handedOver", data: item };
    }),
});
export const loader = route.loader;
export const action = route.action;
