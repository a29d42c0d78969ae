import { parseWithZod } from "@conform-to/zod";
import type { z } from "zod";

/**
 * Refuses form posts sent from another origin (CSRF defence in depth on top of SameSite=Lax):
 * a browser always sends Origin or Sec-Fetch-Site on a cross-site POST.
 */
export function isCrossSiteRequest(request: Request): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = request.headers.get("Origin");
  if (origin && origin !== "null") {
    const host = request.headers.get("X-Forwarded-Host") ?? request.headers.get("Host");
    try {
      if (new URL(origin).host !== host) return true;
    } catch {
      return true;
    }
  } else if (origin === "null") {
    return true;
  }
  return false;
}

/** Reads a form post safely: a body that is not a form becomes an empty form. */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch {
    return new FormData();
  }
}

export async function parseForm<S extends z.ZodTypeAny>(request: Request, schema: S) {
  const formData = await readForm(request);
  return parseWithZod(formData, { schema });
}

/** A same-site relative path to go back to; anything else becomes the fallback. */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/") {
  if (typeof to !== "string" || !to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\")) {
    return fallback;
  }
  return to;
}
