import { listTakeOvers } from "~/domain/care/index.server";
import { takeOverQuerySchema } from "~/schemas/family";
import { api, apiRoute, requireApiActor, validate } from "~/web/api.server";

/** Admin: take-overs, newest first; `status` "review" (the default: waiting for a look) or "all". */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const q = new URL(request.url).searchParams;
      const query = validate(takeOverQuerySchema, { status: q.get("status") ?? undefined });
      return { message: "family.takeOversFetched", data: await listTakeOvers(actor, query) };
    }),
});
export const loader = route.loader;
export const action = route.action;
