import { reportTakeOver, takeOverByToken } from "~/domain/care/index.server";
import { api, apiRoute } from "~/web/api.server";
import { clientOf } from "~/web/request.server";

/**
 * "This was not me" (decision 0055), no sign-in: the token from the link a completed take-over
 * announced. GET: when it happened and whether it was reported or undone; POST: report it to the
 * admins (reporting twice changes nothing).
 */
const route = apiRoute({
  GET: (request, params, context) =>
    api(request, async () => ({
      message: "family.notMeFetched",
      data: await takeOverByToken(params.token ?? "", clientOf(context)),
    })),
  POST: (request, params, context) =>
    api(request, async () => ({
      message: "family.notMeDone",
      data: await reportTakeOver(params.token ?? "", clientOf(context)),
    })),
});
export const loader = route.loader;
export const action = route.action;
