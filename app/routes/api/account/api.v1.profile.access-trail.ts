import { accessTrail } from "~/domain/care/index.server";
import { accessTrailQuery } from "~/schemas/control";
import { api, apiRoute, pageQuery, pagination, requireApiActor, validate } from "~/web/api.server";

/** A profile's access trail (the caller's own, or a family member's without a login), newest first. */
const route = apiRoute({
  GET: (request) =>
    api(request, async ({ locale }) => {
      const actor = await requireApiActor(request);
      const query = validate(accessTrailQuery, {
        patientId: new URL(request.url).searchParams.get("patientId") ?? undefined,
      });
      const page = await accessTrail(actor, { patientId: query.patientId, locale }, pageQuery(request));
      return { message: "control.trailFetched", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
