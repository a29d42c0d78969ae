import type { Readable } from "node:stream";
import { isDomainError } from "~/domain/platform/errors";
import { FHIR_CONTENT_TYPE } from "~/domain/interop/index.server";
import { tFor } from "~/i18n/i18n.server";
import { errorResponse, jsonResponse } from "./api.server";
import { contentDisposition, fileFrameHeaders, responseBody } from "./file-response.server";
import { log } from "~/lib/log.server";

/** A FHIR resource as the answer (`application/fhir+json`), never cached or sniffed. */
export function fhirJsonResponse(resource: unknown) {
  return new Response(JSON.stringify(resource), {
    status: 200,
    headers: {
      "Content-Type": FHIR_CONTENT_TYPE,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** A streamed ZIP download: an attachment with a safe name, never cached, framed or sniffed. */
export function zipResponse(stream: Readable, fileName: string) {
  return new Response(responseBody(stream), {
    status: 200,
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": contentDisposition(fileName, "attachment"),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      ...fileFrameHeaders("application/zip"),
    },
  });
}

/**
 * Runs a binary or FHIR answer: a DomainError becomes the contract's JSON error (401, 403, 404,
 * 429 with Retry-After), anything else a logged JSON 500, as under api().
 */
export async function exportAnswer(request: Request, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Response) throw err;
    const { t } = await tFor(request);
    if (isDomainError(err)) return errorResponse(err, t);
    log("error", "api fault", {
      path: new URL(request.url).pathname,
      error: String((err as Error)?.stack ?? err),
    });
    return jsonResponse({ success: false, message: t("errors.serverError") }, 500);
  }
}
