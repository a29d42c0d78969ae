import { changeConsent, consentOverview } from "~/domain/rights/index.server";
import { consentChangeSchema } from "~/schemas/rights";
import { accessTrailQuery } from "~/schemas/control";
import { api, apiRoute, jsonBody, requireApiActor, validate } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/**
 * Patients: their consents per purpose (with the text shown today), the history, the effect of
 * withdrawing review and the consents others gave for their profile (`patientId`: a family member's).
 */
const route = apiRoute({
  GET: (request) =>
    api(request, async ({ locale }) => {
      const actor = await requireApiActor(request);
      const query = validate(accessTrailQuery, {
        patientId: new URL(request.url).searchParams.get("patientId") ?? undefined,
      });
      return {
        message: "rights.consentsFetched",
        data: await consentOverview(actor, locale, { patientId: query.patientId }),
      };
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
