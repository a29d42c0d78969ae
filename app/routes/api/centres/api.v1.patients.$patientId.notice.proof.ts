import { checkNumberProof, noticePreference, sendNumberProof } from "~/domain/care/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Proving the number a call would go to (decision 0102): a code sent to it by SMS, then typed back. */
const route = apiRoute({
  POST: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const sent = await sendNumberProof(actor, params.patientId ?? "", clientOf(context));
      return { message: "calls.codeSentNow", data: sent };
    }),
  PUT: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      await checkNumberProof(actor, params.patientId ?? "", body, clientOf(context));
      return { message: "calls.proven", data: await noticePreference(actor, params.patientId ?? "") };
    }),
});
export const loader = route.loader;
export const action = route.action;
