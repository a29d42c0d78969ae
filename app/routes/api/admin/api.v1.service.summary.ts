import { apiServiceSummary, serviceSummary } from "~/domain/operations/index.server";
import { api, apiRoute, requireApiActor } from "~/web/api.server";

/** Admin: the Service screen's figures — requests, response times, queues, weekly turnaround (decision 0034). */
const route = apiRoute({
  GET: (request) =>
    api(request, async () => {
      const summary = await serviceSummary(await requireApiActor(request));
      return { message: "api.ok", data: apiServiceSummary(summary) };
    }),
});
export const loader = route.loader;
export const action = route.action;
