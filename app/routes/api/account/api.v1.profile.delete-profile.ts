import { DomainError } from "~/domain/platform/errors";
import { eraseAccount } from "~/domain/rights/index.server";
import { deleteProfileSchema } from "~/schemas/rights";
import { api, apiRoute, readJson, requireApiActor, validate, type ApiResult } from "~/web/api.server";
import type { AppLoadContext } from "@remix-run/node";
import { clientOf } from "~/web/request.server";

/**
 * Deleting the account through the API (decision 0022): the erasure of the rights centre. The body
 * `{ password, code?, recoveryCode?, immediate? }` is required (a bearer token alone erases
 * nothing); without `immediate: true` the account is erased after the notice (202, with when),
 * with it now (200). DELETE carries the body; POST to the same path takes it too, for clients that
 * cannot send a body with DELETE (decision 0022).
 */
async function erase(request: Request, context: AppLoadContext): Promise<ApiResult> {
  const actor = await requireApiActor(request);
  // No body at all reads as an empty object, so the answer names the missing field.
  const body = request.headers.get("Content-Type") ? await readJson(request) : await noBody(request);
  const input = validate(deleteProfileSchema, body);
  const { erased, request: req } = await eraseAccount(actor, input, clientOf(context));
  return erased
    ? { message: "profile.deleted", data: { erased: true, dueAt: null } }
    : {
        status: 202,
        message: "rights.erasureRequestedApi",
        data: { erased: false, dueAt: req.dueAt, request: req },
      };
}

async function noBody(request: Request): Promise<Record<string, unknown>> {
  if ((await request.text()).trim()) throw new DomainError("invalid", "api.expectedJson");
  return {};
}

const route = apiRoute({
  DELETE: (request, _params, context) => api(request, () => erase(request, context)),
  POST: (request, _params, context) => api(request, () => erase(request, context)),
});
export const loader = route.loader;
export const action = route.action;
