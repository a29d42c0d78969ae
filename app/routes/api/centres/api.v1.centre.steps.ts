import { z } from "zod";
import { centreWorklist, WORKLIST_WHEN } from "~/domain/consultation/index.server";
import { api, apiRoute, pageQuery, pagination, requireApiActor, validate } from "~/web/api.server";

/**
 * The centre's worklist (decision 0114): its patients' next steps due this week, overdue or closed
 * (`when`, default week), paged; its approved health workers only. Closing one is the step's own
 * state change (who may record what is the domain's).
 */
const query = z.object({
  when: z.enum(WORKLIST_WHEN, { errorMap: () => ({ message: "worklist.whenInvalid" }) }).default("week"),
});

const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const actor = await requireApiActor(request);
      const { when } = validate(query, {
        when: new URL(request.url).searchParams.get("when") ?? undefined,
      });
      const page = await centreWorklist(actor, when, pageQuery(request));
      return {
        message: "worklist.listed",
        data: page.items,
        extra: { pagination: pagination(page), when, from: page.from || null, to: page.to || null },
      };
    }),
});
export const loader = route.loader;
export const action = route.action;
