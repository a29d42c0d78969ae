import { noticePreference, setNoticePreference } from "~/domain/care/index.server";
import { api, apiRoute, readJson, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The person, her family manager or her centre's health worker: how she hears that an opinion is ready (decision 0080). */
const route = apiRoute({
  GET: (request, params) =>
    api(request, async () => ({
      message: "api.ok",
      data: await noticePreference(await requireApiActor(request), params.patientId ?? ""),
    })),
  PUT: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      return {
        message: "calls.saved",
        data: await setNoticePreference(actor, params.patientId ?? "", body, { ip: clientOf(context).ip }),
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
