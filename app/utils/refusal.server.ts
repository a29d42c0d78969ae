import { DomainError } from "~/domain/platform/errors";
import { tFor } from "~/i18n/i18n.server";
import { errorResponse } from "./api.server";
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
  const { t, locale } = await tFor(request);
  const { code, key } = KINDS[kind];
  if (new URL(request.url).pathname.startsWith("/api/")) {
    return errorResponse(new DomainError(code, key), t);
  }
  const message = escapeHtml(t(key));
  const html = `<!DOCTYPE html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${message}</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5"><h1 style="font-size:1.25rem">${message}</h1><p><a href="/">${escapeHtml(t("errors.backHome"))}</a></p></body></html>`;
  const headers = new Headers({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
  securityHeaders(headers, request);
  headers.set(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  );
  return new Response(html, { status: STATUS[kind], headers });
}
