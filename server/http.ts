import { createReadableStreamFromReadable, createRequestHandler, type ServerBuild } from "@remix-run/node";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants, createBrotliCompress, createGzip, brotliCompressSync, gzipSync } from "node:zlib";
import type { Fault } from "~/web/faults.server";
import type { RequestContext } from "~/web/request.server";
import { resolveClient, type Trust } from "./client";
import { tokenMatches } from "./metrics";
import { PageCache } from "./page-cache";
import { pickEncoding, type StaticFile } from "./static";

/**
 * The front door of every request: static files from memory, the client resolved once,
 * hostile requests refused with 4xx before Remix sees them (cross-site posts, oversized or
 * cut-off bodies), then Remix with the client as load context, and one log line.
 */
export type RefusalKind = "crossSite" | "tooLarge" | "badRequest";
export type RequestDone = { method: string; route: string; status: number; ms: number };
export type AppHooks = {
  refusal: (request: Request, kind: RefusalKind) => Promise<Response>;
  /** Which part failed when an error is the database's or the store's own (decision 0060), else null. */
  faultOf?: (err: unknown) => Fault | null;
  /** The 503 (Retry-After) or 507 answer to a request that failed for that fault. */
  faultRefusal?: (request: Request, fault: Fault) => Promise<Response>;
  /** The route label from the route table (the app's `named` pattern when it is the table's). */
  routeOf: (pathname: string, named?: string) => string;
  /** Every finished request, as logged (the Service screen's counts); must be cheap and never throw. */
  requestDone?: (fields: RequestDone) => void;
  /**
   * The key under which this GET's rendered page may be kept and served again (the same for
   * everyone asking so), or null: the app decides which pages are public and what varies them.
   */
  pageCacheKey?: (request: PageRequest) => string | null;
};

export type PageRequest = {
  pathname: string;
  search: string;
  origin: string;
  cookie: string | undefined;
  acceptLanguage: string | undefined;
};

export type HandlerOptions = {
  build: ServerBuild;
  hooks: AppHooks;
  trust: Trust;
  staticFiles: Map<string, StaticFile>;
  /** Largest body of an ordinary form or JSON request (read whole before Remix runs). */
  bodyLimit: number;
  /** Largest body of an upload route (streamed; counted while it arrives). */
  uploadLimit: number;
  log: (fields: Record<string, unknown>) => void;
  isDraining: () => boolean;
  /**
   * /metrics on this port (decision 0033): only with a configured token, answered to
   * `Authorization: Bearer <token>`; without one the path goes to Remix, which has no such page.
   */
  metrics?: { token: string; render: () => Promise<string>; contentType: string };
  /** With OTEL_EXPORTER_OTLP_ENDPOINT: a server span around each request (server/tracing.ts). */
  trace?: (req: IncomingMessage, method: string) => RequestSpan;
};

export type RequestSpan = {
  /** Runs the request's handling with the span as the active context (database and store spans are its children). */
  run<T>(fn: () => T): T;
  /** Ends it, named after the route pattern. */
  end(route: string, status: number): void;
};

/** Routes whose bodies are file uploads: streamed, with the larger limit (tus: creation and PATCH; voice notes). */
const UPLOAD_PATHS =
  /^\/(?:dashboard\/upload-report(?:\.data)?|dashboard\/settings(?:\.data)?|api\/v1\/report\/upload-report|api\/v1\/profile\/update-display-picture|api\/v1\/uploads(?:\/[^/]+)?|api\/v1\/voice-notes|voice\/[^/]+(?:\.data)?)\/?$/;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const HOST_RE = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const FORWARDING_HEADERS = [
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "forwarded",
];

export class BodyTooLargeError extends Error {
  code = "BODY_TOO_LARGE";
  constructor() {
    super("request body too large");
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function firstForwarded(value: string | undefined): string | undefined {
  return value?.split(",")[0]?.trim() || undefined;
}

/** Reads a whole small body; null when it is over `limit` (the rest is not kept). */
function readSmallBody(req: IncomingMessage, limit: number): Promise<Buffer | "tooLarge" | "aborted"> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (v: Buffer | "tooLarge" | "aborted") => {
      if (done) return;
      done = true;
      req.off("data", onData);
      resolve(v);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.pause();
        finish("tooLarge");
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => finish(Buffer.concat(chunks, size)));
    req.once("aborted", () => finish("aborted"));
    req.once("error", () => finish("aborted"));
    req.once("close", () => {
      if (!req.complete) finish("aborted");
    });
  });
}

/** A streamed body that errors as soon as more than `limit` bytes arrive (and stops taking them). */
function limitedStream(req: IncomingMessage, limit: number): ReadableStream<Uint8Array> {
  let size = 0;
  const counted = new Readable({
    read() {
      req.resume();
    },
  });
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      req.off("data", onData);
      req.pause();
      counted.destroy(new BodyTooLargeError());
      return;
    }
    if (!counted.push(chunk)) req.pause();
  };
  req.on("data", onData);
  req.once("end", () => counted.push(null));
  req.once("aborted", () => counted.destroy(new Error("request aborted")));
  req.once("error", (err) => counted.destroy(err));
  // A reader that cancelled (a handler that refused, a keyed body's client gone) no longer listens:
  // the abort that follows must not be an unhandled 'error' that ends the process.
  counted.on("error", () => {});
  return createReadableStreamFromReadable(counted);
}

/**
 * A response went out before the request body was read (a refusal, a 401, a 413): the rest is
 * read and dropped — never parsed, never kept — so the client can finish sending and read the
 * answer, but only up to `max` bytes or a few seconds; then the connection is cut.
 */
function drainAfterResponse(req: IncomingMessage, res: ServerResponse, max: number) {
  res.once("finish", () => {
    if (req.complete || req.destroyed) return;
    let dropped = 0;
    const cut = () => req.socket.destroy();
    const timer = setTimeout(cut, 5_000);
    timer.unref();
    req.removeAllListeners("data");
    req.on("data", (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > max) {
        clearTimeout(timer);
        cut();
      }
    });
    req.once("end", () => clearTimeout(timer));
    req.resume();
  });
}

/**
 * A rendered page is compressed whole once it is drawn (the app answers when the page is complete,
 * so nothing is lost by not streaming it). Level 3, zlib's fastest kind of matching: on the pending
 * list it costs two thirds of level 4 for a page 4 % larger (decision 0125; before, level 4 at about
 * half of 6 — docs/performance-history.md, "Rendered pages"). Browsers ask for Brotli and get that.
 */
const HTML_GZIP_LEVEL = 3;
const HTML_BROTLI_QUALITY = 2;
/** A page larger than this is streamed through the compressor instead of held whole. */
const HTML_WHOLE_MAX = 2 * 1024 * 1024;

export function createHandler(opts: HandlerOptions) {
  const handleRemix = createRequestHandler(opts.build, "production");
  const pages = new PageCache();

  async function send(
    req: IncomingMessage,
    res: ServerResponse,
    response: Response,
    encodingAllowed: boolean,
    keep?: { key: string; context: RequestContext },
  ): Promise<void> {
    const headers = response.headers;
    const type = headers.get("Content-Type") ?? "";
    const isHtml = type.startsWith("text/html");
    const isJson = type.startsWith("application/json");
    const encoding =
      encodingAllowed && (isHtml || isJson) ? pickEncoding(header(req, "accept-encoding")) : null;
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of headers) {
      if (k === "set-cookie") continue;
      out[k] = v;
    }
    const cookies = headers.getSetCookie();
    if (cookies.length) out["set-cookie"] = cookies;
    if (!req.complete && req.method !== "GET" && req.method !== "HEAD") {
      drainAfterResponse(req, res, opts.uploadLimit);
    }
    if (isHtml || isJson) out["vary"] = out["vary"] ? `${out["vary"]}, Accept-Encoding` : "Accept-Encoding";

    if (!response.body || req.method === "HEAD") {
      res.writeHead(response.status, out);
      res.end();
      return;
    }
    const length = Number(headers.get("Content-Length") ?? NaN);
    if (isHtml && !(length > HTML_WHOLE_MAX)) {
      let body: Buffer = Buffer.from(await response.arrayBuffer());
      const nonce = keep?.context.pageCache?.nonce;
      if (keep && nonce && response.status === 200 && !cookies.length && body.length <= HTML_WHOLE_MAX) {
        pages.store(keep.key, response.status, out as Record<string, string>, body, nonce, {
          route: keep.context.requestLog.route,
        });
      }
      if (encoding && body.length > 1024) {
        body =
          encoding === "br"
            ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: HTML_BROTLI_QUALITY } })
            : gzipSync(body, { level: HTML_GZIP_LEVEL });
        out["content-encoding"] = encoding;
      }
      out["content-length"] = String(body.length);
      res.writeHead(response.status, out);
      res.end(body);
      return;
    }
    if (isJson) {
      // API answers are built whole in memory: send them in one write, compressed when large.
      let body: Buffer = Buffer.from(await response.arrayBuffer());
      if (encoding && body.length > 1024) {
        body =
          encoding === "br"
            ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })
            : gzipSync(body, { level: 6 });
        out["content-encoding"] = encoding;
      }
      out["content-length"] = String(body.length);
      res.writeHead(response.status, out);
      res.end(body);
      return;
    }
    const source = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
    if (encoding) {
      out["content-encoding"] = encoding;
      delete out["content-length"];
      res.writeHead(response.status, out);
      const zip =
        encoding === "br"
          ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })
          : createGzip({ level: 6 });
      await pipeline(source, zip, res).catch(() => {});
      return;
    }
    res.writeHead(response.status, out);
    await pipeline(source, res).catch(() => {});
  }

  function sendStatic(req: IncomingMessage, res: ServerResponse, file: StaticFile) {
    const enc = file.br || file.gzip ? pickEncoding(header(req, "accept-encoding")) : null;
    const body = enc === "br" && file.br ? file.br : enc && file.gzip ? file.gzip : file.body;
    const h: Record<string, string> = {
      "content-type": file.type,
      "cache-control": file.cacheControl,
      "content-length": String(body.length),
      "x-content-type-options": "nosniff",
    };
    if (body !== file.body) h["content-encoding"] = body === file.br ? "br" : "gzip";
    if (file.br || file.gzip) h["vary"] = "Accept-Encoding";
    res.writeHead(200, h);
    res.end(req.method === "HEAD" ? undefined : body);
  }

  return function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? "GET").toUpperCase();
    if (!opts.trace) return handleRequest(req, res, method, undefined);
    const span = opts.trace(req, method);
    return span.run(() => handleRequest(req, res, method, span));
  };

  async function handleRequest(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    span?: RequestSpan,
  ) {
    const started = performance.now();
    const context: RequestContext = { client: { ip: "unknown", userAgent: null }, requestLog: {} };
    res.once("close", () => {
      const route = context.requestLog.route ?? "(unknown)";
      const status = res.headersSent ? res.statusCode : 499;
      opts.log({ method, route, status, ms: Math.round((performance.now() - started) * 10) / 10 });
      span?.end(route, status);
    });

    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const pathname = q === -1 ? rawUrl : rawUrl.slice(0, q);

    // 1. Static files: a map lookup, before anything else.
    if (method === "GET" || method === "HEAD") {
      const file = opts.staticFiles.get(pathname);
      if (file) {
        context.requestLog.route = pathname.startsWith("/assets/") ? "/assets/*" : "(static)";
        sendStatic(req, res, file);
        return;
      }
      if (pathname === "/readyz") {
        context.requestLog.route = "/readyz";
        const ready = !opts.isDraining();
        res.writeHead(ready ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" });
        res.end(JSON.stringify({ ready }));
        return;
      }
      if (pathname === "/metrics" && opts.metrics) {
        context.requestLog.route = "/metrics";
        await serveMetrics(req, res, opts.metrics);
        return;
      }
    }

    // 2. Who is asking, and where they think they are.
    const resolved = resolveClient(req, opts.trust);
    context.client = { ip: resolved.ip, userAgent: resolved.userAgent };
    const host =
      (resolved.viaTrustedProxy && firstForwarded(header(req, "x-forwarded-host"))) ||
      header(req, "host") ||
      "";
    const proto =
      (resolved.viaTrustedProxy && firstForwarded(header(req, "x-forwarded-proto"))) === "https"
        ? "https"
        : "http";

    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || FORWARDING_HEADERS.includes(k)) continue;
      if (Array.isArray(v)) for (const x of v) headers.append(k, x);
      else headers.set(k, v);
    }
    // Remix's own checks read Host; give it the one we resolved (never a client's forwarded one).
    if (host) headers.set("host", host);

    const refuse = async (kind: RefusalKind, status: number) => {
      const probe = new Request(`http://localhost${pathname.startsWith("/") ? pathname : "/"}`, { headers });
      context.requestLog.route ??= opts.hooks.routeOf(pathname);
      const response = await opts.hooks.refusal(probe, kind);
      if (response.status !== status) throw new Error("refusal status mismatch");
      await send(req, res, response, false);
    };

    if (!HOST_RE.test(host) || (!rawUrl.startsWith("/") && rawUrl !== "*")) {
      context.requestLog.route = "(bad request)";
      await refuse("badRequest", 400);
      return;
    }
    const url = `${proto}://${host}${rawUrl}`;

    // 3. Cross-site writes are refused before Remix's own CSRF check can throw.
    if (!SAFE_METHODS.has(method)) {
      const site = header(req, "sec-fetch-site");
      const origin = header(req, "origin");
      let crossSite = site === "cross-site";
      if (!crossSite && origin !== undefined) {
        try {
          crossSite = origin === "null" || new URL(origin).host !== host;
        } catch {
          crossSite = true;
        }
      }
      if (crossSite) {
        await refuse("crossSite", 403);
        return;
      }
    }

    // 4. A public page kept whole (the same for everyone asking so), with a nonce of its own.
    let keep: { key: string; context: RequestContext } | undefined;
    if (method === "GET" && opts.hooks.pageCacheKey) {
      const key = opts.hooks.pageCacheKey({
        pathname,
        search: q === -1 ? "" : rawUrl.slice(q),
        origin: `${proto}://${host}`,
        cookie: header(req, "cookie"),
        acceptLanguage: header(req, "accept-language"),
      });
      if (key) {
        const ae = header(req, "accept-encoding");
        const hit = pages.serve(key, pickEncoding(ae), /\bgzip\b(?!;q=0(\.0*)?\b)/i.test(ae ?? ""));
        if (hit) {
          context.requestLog.route = hit.route ?? opts.hooks.routeOf(pathname);
          res.writeHead(hit.status, hit.headers);
          res.end(hit.body);
          return;
        }
        context.pageCache = {};
        keep = { key, context };
      }
    }

    // 5. Bodies: uploads stream with a counted limit; everything else is read whole (small).
    let body: BodyInit | undefined;
    if (method !== "GET" && method !== "HEAD") {
      const isUpload = UPLOAD_PATHS.test(pathname);
      const limit = isUpload ? opts.uploadLimit : opts.bodyLimit;
      const declared = Number(header(req, "content-length"));
      if (Number.isFinite(declared) && declared > limit) {
        await refuse("tooLarge", 413);
        return;
      }
      if (isUpload) {
        body = limitedStream(req, limit);
      } else {
        const read = await readSmallBody(req, limit);
        if (read === "aborted") {
          context.requestLog.route ??= opts.hooks.routeOf(pathname);
          res.destroy();
          return;
        }
        if (read === "tooLarge") {
          await refuse("tooLarge", 413);
          return;
        }
        body = read as unknown as BodyInit;
      }
    }

    // Aborted when the answer is over, whether sent or cut off (as @remix-run/express does): a
    // client that left stops the work, and a sent answer releases what Remix tied to the signal —
    // each document and data answer arms a 4.95 s timer holding its turbo-stream, cleared only on
    // abort; left armed, every page's data outlived the young generation (decision 0051).
    const controller = new AbortController();
    res.once("close", () => controller.abort(ANSWER_OVER));
    let request: Request;
    try {
      request = new IncomingRequest(
        url,
        {
          method,
          headers,
          body,
          ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
        } as RequestInit,
        controller.signal,
      );
    } catch {
      await refuse("badRequest", 400);
      return;
    }

    let response: Response;
    try {
      response = await handleRemix(request, context);
    } catch (err) {
      context.fault = opts.hooks.faultOf?.(err) ?? undefined;
      if (!context.fault)
        opts.log({ level: "error", msg: "unhandled", error: String((err as Error)?.stack ?? err) });
      response = new Response("Internal Server Error", { status: 500 });
    }
    // The database or the store failed (decision 0060): not a fault of ours, and the client may try again.
    if (response.status >= 500 && context.fault && opts.hooks.faultRefusal) {
      response = await faultAnswer(request, pathname, response, context.fault, opts.hooks.faultRefusal);
    }
    // The app named the pattern it matched; the label is the route table's, never the URL's.
    context.requestLog.route = opts.hooks.routeOf(pathname, context.requestLog.route);
    await send(req, res, response, true, keep);
  }
}

/**
 * A failed request's answer when the database or the store failed: the app's page or JSON error
 * (503 with Retry-After, or 507). A Remix data request keeps its encoded error (the screen's error
 * boundary shows it) with the honest status.
 */
async function faultAnswer(
  request: Request,
  pathname: string,
  failed: Response,
  fault: Fault,
  refusal: (request: Request, fault: Fault) => Promise<Response>,
): Promise<Response> {
  const answer = await refusal(request, fault);
  if (!pathname.endsWith(".data")) {
    await failed.body?.cancel().catch(() => {});
    return answer;
  }
  const headers = new Headers(failed.headers);
  const retryAfter = answer.headers.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  return new Response(failed.body, { status: answer.status, headers });
}

/**
 * The reason every request's signal is aborted with, sent or cut off. `abort()` without one builds
 * a new DOMException, stack trace and all, for each request: 3–4 % of a worker's CPU on the JSON
 * API (profile of 2026-11-25, 18:20). One shared AbortError says the same to whoever listens.
 */
const ANSWER_OVER = new DOMException("The request is over", "AbortError");

/**
 * The request Remix is handed, whose `signal` is the one aborted when the answer is over (the
 * client went away, or it was sent).
 * Handing that signal to `new Request` instead (`init.signal`) makes undici follow it through a
 * WeakRef and a FinalizationRegistry entry, which V8 clears only in a full collection: every
 * request then outlived the young generation (~3.5 MB a second per worker at 425 req/s), the old
 * generation grew to ~200 MB and was collected by four helper threads per worker at once — on
 * two cores, 100–400 ms in which neither worker answered (decision 0050).
 */
class IncomingRequest extends Request {
  readonly #signal: AbortSignal;
  constructor(input: string, init: RequestInit, signal: AbortSignal) {
    super(input, init);
    this.#signal = signal;
  }
  override get signal(): AbortSignal {
    return this.#signal;
  }
}

async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: NonNullable<HandlerOptions["metrics"]>,
) {
  if (!tokenMatches(header(req, "authorization"), metrics.token)) {
    res.writeHead(401, {
      "content-type": "text/plain",
      "www-authenticate": 'Bearer realm="metrics"',
      "cache-control": "no-store",
    });
    res.end("Unauthorized");
    return;
  }
  let text: string;
  try {
    text = await metrics.render();
  } catch {
    res.writeHead(503, { "content-type": "text/plain", "cache-control": "no-store" });
    res.end("metrics unavailable");
    return;
  }
  res.writeHead(200, {
    "content-type": metrics.contentType,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(req.method === "HEAD" ? undefined : text);
}
