import { printSlip } from "~/domain/care/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** A new slip with its take-over code, answered here only (decision 0073). */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const slip = await printSlip(actor, params.patientId ?? "", clientOf(context).ip);
      return { message: "slip.printed", data: slip, status: 201 };
    }),
});
export const loader = route.loader;
export const action = route.action;
