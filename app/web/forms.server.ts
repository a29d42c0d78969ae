import { parseFormData } from "~/schemas/strict";
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

/** The 6-digit code of an OtpInput: one `code` field, or the six boxes d1..d6 (without JavaScript). */
export function codeFromForm(form: FormData): string {
  const code = form.get("code") ?? [1, 2, 3, 4, 5, 6].map((i) => String(form.get(`d${i}`) ?? "")).join("");
  return String(code).replace(/\s/g, "");
}

export async function parseForm<S extends z.ZodTypeAny>(request: Request, schema: S) {
  const formData = await readForm(request);
  return parseFormData(formData, { schema });
}

const ORIGIN = "http://same-origin.invalid";

/**
 * A same-origin path to go back to; anything else becomes the fallback. The value is decoded
 * (repeatedly, against double encoding) and must then be a plain absolute path: not `//host`,
 * no backslash (`/\host`, `/%5chost`), no control characters (`/%09/host`, `/%0a/host`, which
 * browsers strip) and no scheme. What comes back is the URL-normalised path, safe as a
 * `Location` header (never a 500).
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/") {
  if (typeof to !== "string" || to.length > 2000) return fallback;
  let decoded = to;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return fallback;
    }
    if (next === decoded) break;
    decoded = next;
  }
  for (const s of [to, decoded]) {
    // eslint-disable-next-line no-control-regex
    if (!s.startsWith("/") || s.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(s)) return fallback;
  }
  let url: URL;
  try {
    url = new URL(to, ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== ORIGIN || url.pathname.startsWith("//")) return fallback;
  return url.pathname + url.search + url.hash;
}
