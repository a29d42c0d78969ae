import { cancelErasure } from "~/domain/rights/index.server";
import { actorFromBearer } from "~/web/session-cookie.server";
import { cancelErasureSchema } from "~/schemas/rights";
import { api, apiRoute, readJson, validate } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** Cancel an open erasure: signed in (one's own), or with `token` from the notice's link (no sign-in). */
const route = apiRoute({
  POST: (request, _params, context) =>
    api(request, async () => {
      const hasJson = /^application\/json\b/i.test(request.headers.get("Content-Type") ?? "");
      const { token } = hasJson
        ? validate(cancelErasureSchema, await readJson(request))
        : { token: undefined };
      const actor = token ? null : await actorFromBearer(request);
      const data = await cancelErasure(actor, { token }, { ip: clientOf(context).ip });
      return { message: "rights.erasureCancelled", data };
    }),
});
export const loader = route.loader;
export const action = route.action;
