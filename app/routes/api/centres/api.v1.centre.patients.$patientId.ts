import { getCarePatient } from "~/domain/care/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** One patient as those who act for them see them: profile, centre, consent in force (decision 0030). */
const route = apiRoute({
  GET: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const patient = await getCarePatient(actor, params.patientId ?? "", { ip: clientOf(context).ip });
      return { message: "registration.patientSuccess", data: patient };
    }),
});
export const loader = route.loader;
export const action = route.action;
