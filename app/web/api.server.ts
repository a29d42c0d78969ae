import type { AppLoadContext } from "@remix-run/node";
import type { TFunction } from "i18next";
import { z } from "zod";
import { DomainError, HTTP_STATUS, isDomainError } from "~/domain/platform/errors";
import type { Paged, PageQuery } from "~/domain/platform/paging";
import type { Actor } from "~/domain/accounts/index.server";
import { actorFromBearer, actorFromCookie } from "./session-cookie.server";
import { tFor } from "~/i18n/i18n.server";
import { asRefusal } from "./faults.server";
import { log, logRequest } from "~/lib/log.server";
import { refusalText } from "./refusal-text.server";

/**
 * The JSON API adapter: every /api/v1 route body runs inside `api()`, which turns the
 * result into `{ success, message, data }` and any DomainError into the contract's status
 * and error shape. Messages are i18n keys translated for the request's language.
 */
// Pages are the domain's (domain/platform/paging.ts); routes keep importing them from the adapter too.
export type { Paged, PageQuery };

export type ApiContext = { request: Request; t: TFunction; locale: string };

export type ApiResult = {
  status?: number;
  message: string;
  data?: unknown;
  extra?: Record<string, unknown>;
  headers?: HeadersInit;
};

const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit) {
  const h = new Headers(headers);
  for (const [k, v] of Object.entries(JSON_HEADERS)) if (!h.has(k)) h.set(k, v);
  h.set("X-Content-Type-Options", "nosniff");
  return new Response(JSON.stringify(body), { status, headers: h });
}

export function errorResponse(err: DomainError, t: TFunction) {
  const headers: Record<string, string> = {};
  if (err.extra.retryAfterSeconds) {
    headers["Retry-After"] = String(err.extra.retryAfterSeconds);
  }
  const { message, fieldErrors } = refusalText(t, err);
  return jsonResponse(
    { success: false, message, ...(fieldErrors ? { errors: fieldErrors } : {}) },
    HTTP_STATUS[err.code],
    headers,
  );
}

export async function api(request: Request, run: (ctx: ApiContext) => Promise<ApiResult> | ApiResult) {
  const { t, locale } = await tFor(request);
  try {
    const r = await run({ request, t, locale });
    return jsonResponse(
      { success: true, message: t(r.message), ...(r.data !== undefined ? { data: r.data } : {}), ...r.extra },
      r.status ?? 200,
      r.headers,
    );
  } catch (err) {
    if (isDomainError(err)) return errorResponse(err, t);
    if (err instanceof Response) throw err;
    const refusal = asRefusal(err);
    if (isDomainError(refusal)) return errorResponse(refusal, t);
    log("error", "api fault", {
      path: new URL(request.url).pathname,
      error: String((err as Error)?.stack ?? err),
    });
    return jsonResponse({ success: false, message: t("errors.serverError") }, 500);
  }
}

/** The header the app's own offline outbox sends with the browser session (decision 0063). */
export const OUTBOX_HEADER = "X-CareBridge-Outbox";

/**
 * The browser session is accepted in place of a bearer token only from the app's own pages and
 * service worker: a same-origin request (`Sec-Fetch-Site`) carrying OUTBOX_HEADER. Another site
 * cannot send that header without a CORS preflight, which this server never grants.
 */
export function isOutboxRequest(request: Request): boolean {
  return (
    !request.headers.has("Authorization") &&
    request.headers.get(OUTBOX_HEADER) === "1" &&
    request.headers.get("Sec-Fetch-Site") === "same-origin"
  );
}

/**
 * What the outbox calls (app/offline/send.ts and dashboard-sync.client.ts), method and path: the
 * browser session is a way in on these only (decision 0063). Every other route wants a bearer token.
 */
const OUTBOX_ROUTES: readonly [RegExp, RegExp][] = [
  [/^(GET|POST)$/, /^\/api\/v1\/centre\/patients$/],
  [/^(GET|POST)$/, /^\/api\/v1\/family\/members$/],
  [/^GET$/, /^\/api\/v1\/profile\/get-user-details$/],
  [/^POST$/, /^\/api\/v1\/uploads$/],
  [/^(HEAD|PATCH)$/, /^\/api\/v1\/uploads\/[^/]+$/],
  [/^POST$/, /^\/api\/v1\/report\/upload-report$/],
  [/^POST$/, /^\/api\/v1\/voice-notes$/],
  [/^POST$/, /^\/api\/v1\/report\/follow-up\/[^/]+$/],
];

/** The accounts the outbox works for: patients (family managers among them) and health workers. */
const OUTBOX_ACCOUNTS: ReadonlySet<Actor["accountType"]> = new Set(["Patient", "HealthWorker"]);

function isOutboxRoute(request: Request): boolean {
  const path = new URL(request.url).pathname;
  return OUTBOX_ROUTES.some(([method, route]) => method.test(request.method) && route.test(path));
}

/**
 * Who calls the API: the bearer token, or the browser session from the app's own outbox (only a
 * patient's or health worker's, only on the outbox's own routes); null: nobody.
 */
export async function apiActor(request: Request): Promise<Actor | null> {
  if (!isOutboxRequest(request)) return actorFromBearer(request);
  if (!isOutboxRoute(request)) return null;
  const actor = await actorFromCookie(request);
  return actor && OUTBOX_ACCOUNTS.has(actor.accountType) ? actor : null;
}

export async function requireApiActor(request: Request): Promise<Actor> {
  const actor = await apiActor(request);
  if (!actor) throw new DomainError("not_authenticated", "api.notAuthenticated");
  return actor;
}

/** zod issues → `{ field: [messageKey] }`, the contract's `errors` shape. */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.join(".") || "_";
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

export function validate<S extends z.ZodTypeAny>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    // A length or size refusal's key says its limit ({{max}}): the issue carries it.
    const big = parsed.error.issues.find((i) => i.code === "too_big");
    throw new DomainError("invalid", "api.invalidInput", {
      fieldErrors: fieldErrors(parsed.error),
      ...(big ? { values: { max: Number(big.maximum) } } : {}),
    });
  }
  return parsed.data;
}

const MAX_JSON_BYTES = 1024 * 1024 + 1024;
/** The largest JSON body readJson accepts, in bytes (an Idempotency-Key wrapper reads no more). */
export const JSON_MAX_BYTES = MAX_JSON_BYTES * 2;

/** Reads a JSON object body; wrong content type, bad JSON or a non-object is a 400. */
export async function readJson(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new DomainError("invalid", "api.expectedJson");
  }
  const text = await request.text();
  if (text.length > MAX_JSON_BYTES * 2) throw new DomainError("too_large", "api.bodyTooLarge");
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new DomainError("invalid", "api.malformedJson");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new DomainError("invalid", "api.expectedObject");
  }
  return body as Record<string, unknown>;
}

export async function jsonBody<S extends z.ZodTypeAny>(request: Request, schema: S): Promise<z.infer<S>> {
  return validate(schema, await readJson(request));
}

export const pageQuerySchema = z.object({
  page: z.coerce.number().int("api.badPage").min(1, "api.badPage").max(1_000_000, "api.badPage").default(1),
  pageSize: z.coerce
    .number()
    .int("api.badPageSize")
    .min(1, "api.badPageSize")
    .max(100, "api.badPageSize")
    .default(20),
  /** Keyset pagination: the previous page's `nextCursor` (opaque; checked by the list that reads it). */
  cursor: z
    .string()
    .min(1, "api.badCursor")
    .max(400, "api.badCursor")
    .optional()
    .describe(
      "Keyset pagination: the previous page's pagination.nextCursor. The page then starts after that row (page is ignored); a cursor the list did not give out is a 400.",
    ),
});

export function pageQuery(request: Request): PageQuery {
  const url = new URL(request.url);
  return validate(pageQuerySchema, {
    page: url.searchParams.get("page") ?? undefined,
    pageSize: url.searchParams.get("pageSize") ?? undefined,
    cursor: url.searchParams.get("cursor") ?? undefined,
  });
}

export function pagination(p: Paged<unknown>) {
  return {
    page: p.page,
    pageSize: p.pageSize,
    total: p.total,
    totalPages: Math.max(1, Math.ceil(p.total / p.pageSize)),
    // Only where the list was counted up to a cap (a search): there are more than `total` rows.
    ...(p.totalIsLowerBound ? { totalIsLowerBound: true } : {}),
    // Keyset pagination: pass as `cursor` for the page after this one (null: this was the last).
    nextCursor: p.nextCursor ?? null,
  };
}

/** For a route that only answers some methods. */
export async function methodNotAllowed(request: Request, allowed: string[]) {
  const { t } = await tFor(request);
  return jsonResponse({ success: false, message: t("api.methodNotAllowed") }, 405, {
    Allow: allowed.join(", "),
  });
}

type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";
type Handler = (
  request: Request,
  params: Record<string, string | undefined>,
  context: AppLoadContext,
) => Promise<Response>;

/**
 * Builds a resource route's loader/action from a method table; any other method gets the
 * contract's JSON 405 with an Allow header.
 */
export function apiRoute(handlers: Partial<Record<Method, Handler>>) {
  const allowed = Object.keys(handlers);
  const dispatch = async ({
    request,
    params,
    context,
  }: {
    request: Request;
    params: Record<string, string | undefined>;
    context: AppLoadContext;
  }) => {
    const h = handlers[request.method.toUpperCase() as Method];
    let status = 500;
    try {
      const response = await (h ? h(request, params, context) : methodNotAllowed(request, allowed));
      status = response.status;
      return response;
    } catch (err) {
      if (err instanceof Response) status = err.status;
      throw err;
    } finally {
      logRequest(request, params, status, context); // the request log line of every /api/v1 call
    }
  };
  return { loader: dispatch, action: dispatch };
}
