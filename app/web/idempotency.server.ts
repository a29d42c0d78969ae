import { createHash } from "node:crypto";
import busboy from "busboy";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  keptIdempotencyKey,
  releaseIdempotencyKey,
  type StoredAnswer,
} from "~/domain/platform/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { tFor } from "~/i18n/i18n.server";
import type { Actor } from "~/domain/accounts/index.server";
import { apiActor, errorResponse, jsonResponse } from "./api.server";
import { asRefusal } from "./faults.server";

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
  /** The largest body the route accepts (its file limit); a longer body is refused (413). */
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
  /**
   * The created record read again for a replay, under the caller's permissions today (decision
   * 0074): its `data` replaces the kept ids; a DomainError (no longer theirs) is the answer instead.
   */
  reread?: (actor: Actor, id: string) => Promise<unknown>;
};

/** Keyed bodies one account may have arriving at once in this process (decision 0074). */
export const KEYED_IN_FLIGHT = 2;
const inFlight = new Map<string, number>();
/** A kept row's fingerprint while its first request runs (the real one is known at its end). */
const PENDING = "pending";

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
  const max = options.maxBytes + FRAMING_BYTES;
  if (Number(request.headers.get("Content-Length") ?? 0) > max) return refuse(413, t("api.bodyTooLarge"));
  const busy = inFlight.get(actor.id) ?? 0;
  if (busy >= KEYED_IN_FLIGHT) return refuse(429, t("api.idempotencyBusy"), { "Retry-After": "5" });
  inFlight.set(actor.id, busy + 1);
  // Freed when the answer is over, or as soon as the client is gone (the request's signal).
  let freed = false;
  const free = () => {
    if (freed) return;
    freed = true;
    const left = (inFlight.get(actor.id) ?? 1) - 1;
    if (left > 0) inFlight.set(actor.id, left);
    else inFlight.delete(actor.id);
  };
  request.signal?.addEventListener("abort", free, { once: true });
  try {
    return await keyed(request, options, handle, { actor, key, max, t, refuse });
  } finally {
    request.signal?.removeEventListener("abort", free);
    free();
  }
}

async function keyed<T, R>(
  request: Request,
  options: IdempotencyOptions<R>,
  handle: (request: Request) => Promise<T>,
  k: {
    actor: Actor;
    key: string;
    max: number;
    t: (key: string) => string;
    refuse: (status: number, message: string, headers?: Record<string, string>) => R | Response;
  },
): Promise<T | R | Response> {
  const { actor, key, t, refuse } = k;
  const claim = await claimIdempotencyKey(actor.id, key, PENDING);
  if (claim.kind === "in_progress") {
    return jsonResponse({ success: false, message: t("api.idempotencyInProgress") }, 409, {
      "Retry-After": "1",
    });
  }
  if (claim.kind !== "claimed") {
    // Answered before: the same request is told that answer again, another is refused. The body is
    // hashed as it arrives and dropped, never held.
    const kept = await keptIdempotencyKey(actor.id, key);
    if (!kept) return refuse(409, t("api.idempotencyInProgress"), { "Retry-After": "1" });
    const tee = hashingBody(request, k.max);
    const fingerprint = await tee.finish();
    tee.detach();
    if (fingerprint === undefined) return refuse(413, t("api.bodyTooLarge"));
    if (fingerprint !== kept.fingerprint) return refuse(422, t("api.idempotencyMismatch"));
    return replayFor(actor, kept.answer, options.reread, request);
  }

  // The route runs on the body as it streams in: its own checks (who may call it, its budget) come
  // before it reads a byte, and the fingerprint is hashed on the way (decision 0074).
  const tee = hashingBody(request, k.max);
  let response: T;
  try {
    response = await handle(tee.request);
    tee.detach();
  } catch (err) {
    tee.detach();
    await releaseIdempotencyKey(actor.id, key).catch(() => {});
    if (err instanceof BodyTooLarge) return refuse(413, t("api.bodyTooLarge"));
    throw err;
  }
  // Kept: a 2xx, or a screen's redirect after success. Anything else created nothing.
  if (!(response instanceof Response) || response.status < 200 || response.status >= 400) {
    await releaseIdempotencyKey(actor.id, key).catch(() => {});
    return response;
  }
  const fingerprint = await tee.finish();
  if (fingerprint === undefined) {
    await releaseIdempotencyKey(actor.id, key).catch(() => {});
    return response;
  }
  const body = await response.text();
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const v = response.headers.get(name);
    if (v !== null) headers[name] = v;
  }
  await completeIdempotencyKey(
    actor.id,
    key,
    { status: response.status, headers, body: keptBody(body) },
    fingerprint,
  );
  return new Response(body || null, { status: response.status, headers: response.headers });
}

/** The ids a replay needs from a created record's answer (decision 0074); nothing else is kept. */
const KEPT_IDS = ["_id", "id", "patientId", "reportId"];

function keptBody(body: string): string {
  if (!body) return "";
  try {
    const parsed = JSON.parse(body) as {
      success?: unknown;
      message?: unknown;
      data?: Record<string, unknown>;
    };
    const data: Record<string, unknown> = {};
    for (const name of KEPT_IDS) {
      const v = parsed.data?.[name];
      if (typeof v === "string") data[name] = v;
    }
    return JSON.stringify({ success: parsed.success, message: parsed.message, data });
  } catch {
    return ""; // not JSON (a screen's redirect): its headers are the answer
  }
}

/** A kept answer for its account: the record read again under today's permissions where the route can. */
async function replayFor(
  actor: Actor,
  answer: StoredAnswer,
  reread: IdempotencyOptions<unknown>["reread"],
  request: Request,
): Promise<Response> {
  if (!reread || !answer.body) return replay(answer);
  const kept = JSON.parse(answer.body) as { data?: { _id?: string; id?: string } };
  const id = kept.data?._id ?? kept.data?.id;
  if (!id) return replay(answer);
  try {
    const data = await reread(actor, id);
    return replay({ ...answer, body: JSON.stringify({ ...kept, data }) });
  } catch (err) {
    const refusal = isDomainError(err) ? err : asRefusal(err);
    if (isDomainError(refusal)) return errorResponse(refusal, (await tFor(request)).t);
    throw err;
  }
}

/** A kept answer sent again, marked `Idempotent-Replayed: true`. */
export function replay(answer: StoredAnswer): Response {
  const headers = new Headers(answer.headers);
  headers.set("Cache-Control", "no-store");
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Idempotent-Replayed", "true");
  return new Response(answer.body || null, { status: answer.status, headers });
}

class BodyTooLarge extends Error {}

/**
 * The request with its body passed through as it arrives, hashed on the way: SHA-256 over method,
 * path, the meaningful headers and the body. A multipart body is hashed by its parts (name, and the
 * value or the file's name, type and bytes), not its raw bytes: a browser re-sending the same
 * FormData picks a new boundary each time. Nothing of the body is kept. `finish()` reads what the
 * handler left unread and gives the fingerprint, or undefined when the body was longer than `max`.
 */
function hashingBody(request: Request, max: number) {
  const url = new URL(request.url);
  const head = [`${request.method.toUpperCase()}\n${url.pathname}${url.search}\n`];
  for (const name of MEANINGFUL_HEADERS) head.push(`${name}:${request.headers.get(name) ?? ""}\n`);
  const type = request.headers.get("Content-Type") ?? "";
  const raw = createHash("sha256");
  for (const h of head) raw.update(h);
  raw.update(`${type}\n`);
  const parts = /^multipart\/form-data\b/i.test(type) ? multipartHasher(request.headers) : null;
  let size = 0;
  let tooLarge = false;
  let ended = false;
  let onAbort: (() => void) | undefined;
  const pass = new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      // A client that went away ends the body here too, so the route stops waiting for it — only
      // while the route reads it (after its answer nobody listens for the error).
      onAbort = () => {
        if (ended) return;
        try {
          controller.error(new Error("request aborted"));
        } catch {
          // already errored or cancelled by its reader
        }
      };
      request.signal?.addEventListener("abort", onAbort, { once: true });
    },
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > max) {
        tooLarge = true;
        controller.error(new BodyTooLarge("body too large"));
        return;
      }
      raw.update(chunk);
      parts?.write(chunk);
      controller.enqueue(chunk);
    },
    flush() {
      ended = true;
    },
  });
  const body = request.body ? request.body.pipeThrough(pass) : null;
  const passed = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
    ...(body ? { duplex: "half" } : {}),
  } as RequestInit);
  return {
    request: passed,
    /** The route has answered: a client leaving now changes nothing. */
    detach() {
      if (onAbort) request.signal?.removeEventListener("abort", onAbort);
    },
    async finish(): Promise<string | undefined> {
      if (body && !ended && !tooLarge && !passed.bodyUsed) {
        const reader = passed.body!.getReader();
        try {
          for (;;) if ((await reader.read()).done) break;
        } catch {
          // too large, or the client went: no fingerprint
        }
      }
      if (tooLarge) return undefined;
      if (body && !ended) return undefined; // the handler stopped reading partway: nothing to compare
      const byParts = parts ? await parts.end() : undefined;
      if (byParts === undefined) return raw.digest("hex");
      const h = createHash("sha256");
      for (const x of head) h.update(x);
      return h.update("multipart\n").update(byParts).digest("hex");
    },
  };
}

/** A multipart body's parts hashed in order as they stream; undefined at the end when it did not parse. */
function multipartHasher(headers: Headers) {
  let failed = false;
  const lines: Promise<string>[] = [];
  let parser: busboy.Busboy | null = null;
  let done: Promise<void> = Promise.resolve();
  try {
    parser = busboy({
      headers: { "content-type": headers.get("Content-Type") ?? "" },
      limits: { fieldSize: Infinity, fields: Infinity, files: Infinity, parts: Infinity },
      preservePath: true,
    });
    done = new Promise<void>((resolve) => {
      parser!.on("close", () => resolve());
      parser!.on("error", () => {
        failed = true;
        resolve();
      });
    });
    parser.on("field", (name, value) => {
      lines.push(Promise.resolve(`field:${name.length}:${name}:${Buffer.byteLength(value)}:${value}\n`));
    });
    parser.on("file", (name, stream, info) => {
      const file = createHash("sha256");
      lines.push(
        new Promise<string>((resolve) => {
          stream.on("data", (d: Buffer) => file.update(d));
          stream.on("end", () =>
            resolve(
              `file:${name.length}:${name}:${info.filename.length}:${info.filename}:${info.mimeType}:${file.digest("hex")}\n`,
            ),
          );
          stream.on("error", () => {
            failed = true;
            resolve("");
          });
        }),
      );
    });
  } catch {
    failed = true;
  }
  return {
    write(chunk: Uint8Array) {
      if (!failed && parser) parser.write(chunk);
    },
    async end(): Promise<string | undefined> {
      if (failed || !parser) return undefined;
      parser.end();
      await done;
      if (failed) return undefined;
      return (await Promise.all(lines)).join("");
    },
  };
}
