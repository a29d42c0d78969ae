import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import { config } from "~/config.server";

/** One structured JSON line per event. Never pass report contents, names or tokens. */
export function log(level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown> = {}) {
  if (config().logLevel === "silent" && level === "info") return;
  const line = JSON.stringify({ t: new Date().toISOString(), level, msg, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}

// ---------------------------------------------------------------------------------------
// Request log: one line per document, data and API request.

/** Carries the arrival time from the raw HTTP request into the app's Request object. */
const START_HEADER = "x-carebridge-start";
let tracking = false;

/**
 * Stamps every incoming HTTP request with its arrival time (monotonic ms), overwriting any
 * value a client sent, so a request's duration includes its loaders and body reading.
 */
export function trackRequestStart() {
  if (tracking) return;
  tracking = true;
  subscribe("http.server.request.start", (message) => {
    (message as { request: IncomingMessage }).request.headers[START_HEADER] = String(performance.now());
  });
}

/**
 * The route pattern of a path: each route parameter's value replaced by `:name` (a splat
 * by `*`), so ids and tokens never reach the log. `/x.data` (a data request) counts as `/x`.
 */
export function routePattern(pathname: string, params: Record<string, string | undefined> = {}): string {
  const segments = pathname
    .replace(/\.data$/, "")
    .replace(/^\/_root$/, "/")
    .split("/");
  const decoded = segments.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  for (const [name, value] of Object.entries(params)) {
    if (name === "*" || !value) continue;
    const i = decoded.lastIndexOf(value);
    if (i > 0) segments[i] = `:${name}`;
  }
  const splat = params["*"];
  if (splat) {
    const n = Math.min(splat.split("/").length, segments.length - 1);
    segments.splice(segments.length - n, n, "*");
  }
  return segments.join("/") || "/";
}

/**
 * The request log line: method, route pattern, status and duration (nothing else). Under our
 * server (server/) the app only names the route pattern in the load context and the server
 * writes the line when the response has been sent; under the basic remix-serve the app logs.
 */
export function logRequest(
  request: Request,
  params: Record<string, string | undefined>,
  status: number,
  context?: { requestLog?: { route?: string } },
) {
  if (context?.requestLog) {
    context.requestLog.route ??= routePattern(new URL(request.url).pathname, params);
    return;
  }
  const start = tracking ? Number(request.headers.get(START_HEADER)) : NaN;
  const ms = Number.isFinite(start) && start > 0 ? Math.round((performance.now() - start) * 10) / 10 : null;
  log("info", "request", {
    method: request.method,
    route: routePattern(new URL(request.url).pathname, params),
    status,
    ms,
  });
}
