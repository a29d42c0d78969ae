import { changeConsent, consentOverview } from "~/domain/rights/index.server";
import { consentChangeSchema } from "~/schemas/rights";
import { api, apiRoute, jsonBody, requireApiActor } from "~/utils/api.server";
import { clientOf } from "~/utils/request.server";

/** Patients: their consents per purpose (with the text shown today), the history, and the effect of withdrawing review. */
const route = apiRoute({
  GET: (request) =>
    api(request, async ({ locale }) => {
      const actor = await requireApiActor(request);
      return { message: "rights.consentsFetched", data: await consentOverview(actor, locale) };
    }),
  POST: (request, _params, context) =>
    api(request, async ({ locale }) => {
      const actor = await requireApiActor(request);
      const body = await jsonBody(request, consentChangeSchema);
      const data = await changeConsent(actor, body, { via: "api", locale, ip: clientOf(context).ip });
      return { message: "rights.consentSaved", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
