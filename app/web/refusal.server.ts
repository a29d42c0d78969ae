import { DomainError, HTTP_STATUS } from "~/domain/platform/errors";
import { tFor } from "~/i18n/i18n.server";
import { errorResponse } from "./api.server";
import { faultError, type Fault } from "./faults.server";
import { securityHeaders } from "./security.server";

/**
 * What the server (server/http.ts) answers for requests it refuses before Remix runs: a small
 * translated page, or the API's JSON error shape under /api/v1. Never echoes the input.
 */
export type RefusalKind = "crossSite" | "tooLarge" | "badRequest";

const KINDS: Record<RefusalKind, { code: "forbidden" | "too_large" | "invalid"; key: string }> = {
  crossSite: { code: "forbidden", key: "errors.forbiddenOrigin" },
  tooLarge: { code: "too_large", key: "api.bodyTooLarge" },
  badRequest: { code: "invalid", key: "errors.badRequest" },
};

const STATUS: Record<RefusalKind, number> = { crossSite: 403, tooLarge: 413, badRequest: 400 };

function escapeHtml(s: string) {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function refusal(request: Request, kind: RefusalKind): Promise<Response> {
  const { code, key } = KINDS[kind];
  return refusalOf(request, new DomainError(code, key), STATUS[kind]);
}

/**
 * The answer to a request that failed because the database or the store did (decision 0060), when no
 * form or API handler answered it first (a page's loader, a file): 503 with Retry-After, or 507.
 */
export async function faultRefusal(request: Request, fault: Fault): Promise<Response> {
  const err = faultError(fault);
  const response = await refusalOf(request, err, HTTP_STATUS[err.code]);
  if (err.extra.retryAfterSeconds) response.headers.set("Retry-After", String(err.extra.retryAfterSeconds));
  return response;
}

async function refusalOf(request: Request, err: DomainError, status: number): Promise<Response> {
  const { t, locale } = await tFor(request);
  if (new URL(request.url).pathname.startsWith("/api/")) return errorResponse(err, t);
  const message = escapeHtml(t(err.message));
  const html = `<!DOCTYPE html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${message}</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5"><h1 style="font-size:1.25rem">${message}</h1><p><a href="/">${escapeHtml(t("errors.backHome"))}</a></p></body></html>`;
  const headers = new Headers({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
  securityHeaders(headers, request);
  headers.set(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  );
  return new Response(html, { status, headers });
}
