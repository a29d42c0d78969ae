import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { tFor } from "~/i18n/i18n.server";
import { jsonResponse } from "~/web/api.server";
import { logRequest } from "~/lib/log.server";

/** Unknown /api/v1 paths answer JSON 404 for every method. */
async function notFound({ request, params, context }: LoaderFunctionArgs | ActionFunctionArgs) {
  const { t } = await tFor(request);
  logRequest(request, params, 404, context);
  return jsonResponse({ success: false, message: t("api.notFound") }, 404);
}
export const loader = notFound;
export const action = notFound;
