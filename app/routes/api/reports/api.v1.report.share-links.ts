import { createShareLink, listShareLinks } from "~/domain/sharing/index.server";
import { shareLinkListQuery } from "~/schemas/share-links";
import { api, apiRoute, pageQuery, pagination, readJson, requireApiActor, validate } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/**
 * Sharing links (decision 0016): the patient's own links (optionally of one report), and a new link to
 * one of their reports — its `url` is in this answer only, never again.
 */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const query = validate(shareLinkListQuery, {
        reportId: new URL(request.url).searchParams.get("reportId") ?? undefined,
      });
      const page = await listShareLinks(actor, query, pageQuery(request));
      return { message: "share.listSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
  POST: (request, _params, context) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const body = await readJson(request);
      const link = await createShareLink(actor, body, { client: clientOf(context) });
      return { status: 201, message: "share.createSuccess", data: link };
    }),
});
export const loader = route.loader;
export const action = route.action;
