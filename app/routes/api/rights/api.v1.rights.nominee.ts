import { getNominee, removeNominee, setNominee } from "~/domain/rights/index.server";
import { nomineeSchema } from "~/schemas/rights";
import { api, apiRoute, jsonBody, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The person's nominee: read (null when none), set or change, remove. */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      return { message: "rights.nomineeFetched", data: await getNominee(actor) };
    }),
  PUT: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, nomineeSchema);
      return {
        message: "rights.nomineeSaved",
        data: await setNominee(actor, body, { ip: clientOf(context).ip }),
      };
    }),
  DELETE: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      await removeNominee(actor, { ip: clientOf(context).ip });
      return { message: "rights.nomineeRemoved" };
    }),
});
export const loader = route.loader;
export const action = route.action;
