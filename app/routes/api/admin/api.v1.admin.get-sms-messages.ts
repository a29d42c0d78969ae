import { listSmsMessages } from "~/domain/messaging/index.server";
import { smsListQuerySchema } from "~/schemas/admin";
import { api, apiRoute, pageQuery, pagination, requireApiActor, validate } from "~/web/api.server";

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const { status } = validate(smsListQuerySchema, {
        status: new URL(request.url).searchParams.get("status") ?? undefined,
      });
      const page = await listSmsMessages(actor, { ...pageQuery(request), status });
      return { message: "messages.fetchSuccess", data: page.items, extra: { pagination: pagination(page) } };
    }),
});
export const loader = route.loader;
export const action = route.action;
