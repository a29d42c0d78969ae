import { revokeShareLink } from "~/domain/sharing/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/** The owning patient revokes a sharing link (revoking again answers the same). */
const route = apiRoute({
  DELETE: (request, params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const link = await revokeShareLink(actor, params.linkId ?? "", { ip: clientOf(context).ip });
      return { message: "share.revoked", data: link };
    }),
});
export const loader = route.loader;
export const action = route.action;
