import { createHash } from "node:crypto";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type StoredAnswer,
} from "~/domain/platform/index.server";
import { tFor } from "~/i18n/i18n.server";
import type { Actor } from "~/domain/accounts/index.server";
import { apiActor, jsonResponse } from "./api.server";

/**
 * `Idempotency-Key` (decision 0062), the HTTP half: a create wrapped in `idempotent()` runs once
 * per (account, key). The same key with the same body gets the first answer replayed (status,
 * body, the headers a client needs); with another body 422; while the first still runs 409 with
 * Retry-After. Without the header, or without a signed-in account, the handler runs as before.
 * Only a 2xx answer (or a screen's redirect after success) is kept: a refusal or failure created
 * nothing and frees the key for a retry.
 */
const KEY = /^[\x20-\x7e]{1,255}$/;
/** Request headers that are part of what a request means (tus creation carries its fields in them). */
const MEANINGFUL_HEADERS = ["upload-length", "upload-defer-length", "upload-metadata"];
/** Response headers replayed with the body. */
const REPLAYED_HEADERS = ["content-type", "location", "tus-resumable", "upload-offset", "upload-expires"];
/** Room for multipart framing and fields around the largest file. */
const FRAMING_BYTES = 1024 * 1024;

export type IdempotencyOptions<R> = {
  /** The largest body the route accepts (its file limit); a longer body is refused (413) unread. */
  maxBytes: number;
  /**
   * Whose key it is: by default the API's caller (a bearer token, or the browser session only from
   * the app's outbox, as `requireApiActor`), so a key's answer is replayed only to a request the
   * route itself would serve. A screen, and tus (the browser session on a same-site request), name
   * their own rule.
   */
  actor?: (request: Request) => Promise<Actor | null>;
  /** How a screen shows a refusal (its form's shape); the API's JSON shape without it. */
  refuse?: (status: number, message: string, headers?: Record<string, string>) => R;
};

export async function idempotent<T, R = Response>(
  request: Request,
  options: IdempotencyOptions<R>,
  handle: (request: Request) => Promise<T>,
): Promise<T | R | Response> {
  const key = request.headers.get("Idempotency-Key");
  if (key === null) return handle(request);
  const { t } = await tFor(request);
  const refuse = (status: number, message: string, headers?: Record<string, string>): R | Response =>
    options.refuse
      ? options.refuse(status, message, headers)
      : jsonResponse({ success: false, message }, status, headers);
  if (!KEY.test(key)) return refuse(400, t("api.badIdempotencyKey"));
  const actor = await (options.actor ?? apiActor)(request).catch(() => null);
  if (!actor) return handle(request); // refused there, as without a key

  const bytes = await readCapped(request, options.maxBytes + FRAMING_BYTES);
  if (!bytes) return refuse(413, t("api.bodyTooLarge"));
  const replica = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: bytes.byteLength ? new Uint8Array(bytes) : undefined,
  });
  const fingerprint = await fingerprintOf(replica.clone(), bytes);

  const claim = await claimIdempotencyKey(actor.id, key, fingerprint);
  if (claim.kind === "mismatch") {
    return refuse(422, t("api.idempotencyMismatch"));
  }
  if (claim.kind === "in_progress") {
    return jsonResponse({ success: false, message: t("api.idempotencyInProgress") }, 409, {
      "Retry-After": "1",
    });
  }
  if (claim.kind === "replay") return replay(claim.answer);

  let response: T;
  try {
    response = await handle(replica);
  } catch (err) {
    await releaseIdempotencyKey(actor.id, key).catch(() => {});
    throw err;
  }
  // Kept: a 2xx, or a screen's redirect after success. Anything else created nothing.
  if (!(response instanceof Response) || response.status < 200 || response.status >= 400) {
    await releaseIdempotencyKey(actor.id, key).catch(() => {});
    return response;
  }
  const body = await response.text();
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const v = response.headers.get(name);
    if (v !== null) headers[name] = v;
  }
  await completeIdempotencyKey(actor.id, key, { status: response.status, headers, body });
  return new Response(body || null, { status: response.status, headers: response.headers });
}

/** A kept answer sent again, marked `Idempotent-Replayed: true`. */
export function replay(answer: StoredAnswer): Response {
  const headers = new Headers(answer.headers);
  headers.set("Cache-Control", "no-store");
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Idempotent-Replayed", "true");
  return new Response(answer.body || null, { status: answer.status, headers });
}

/** The body, or undefined when it is longer than `max` (reading stops there). */
async function readCapped(request: Request, max: number): Promise<Buffer | undefined> {
  if (Number(request.headers.get("Content-Length") ?? 0) > max) return undefined;
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * SHA-256 over method, path, the meaningful headers and the body. A multipart body is hashed by
 * its parts (name, and the value or the file's name, type and bytes), not its raw bytes: a
 * browser re-sending the same FormData picks a new boundary each time.
 */
async function fingerprintOf(request: Request, bytes: Buffer): Promise<string> {
  const h = createHash("sha256");
  const url = new URL(request.url);
  h.update(`${request.method.toUpperCase()}\n${url.pathname}${url.search}\n`);
  for (const name of MEANINGFUL_HEADERS) h.update(`${name}:${request.headers.get(name) ?? ""}\n`);
  const type = request.headers.get("Content-Type") ?? "";
  if (/^multipart\/form-data\b/i.test(type)) {
    try {
      const form = await request.formData();
      h.update("multipart\n");
      for (const [name, value] of form.entries()) {
        if (typeof value === "string") {
          h.update(`field:${name.length}:${name}:${Buffer.byteLength(value)}:`).update(value);
        } else {
          const file = createHash("sha256")
            .update(new Uint8Array(await value.arrayBuffer()))
            .digest("hex");
          h.update(`file:${name.length}:${name}:${value.name.length}:${value.name}:${value.type}:${file}`);
        }
        h.update("\n");
      }
      return h.digest("hex");
    } catch {
      // Not parseable: the raw bytes (the handler refuses it anyway).
    }
  }
  h.update(`${type}\n`).update(bytes);
  return h.digest("hex");
}
