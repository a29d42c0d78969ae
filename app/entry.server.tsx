import type { AppLoadContext, EntryContext, HandleDataRequestFunction } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { createInstance, type i18n } from "i18next";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { renderToPipeableStream } from "react-dom/server";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { config } from "~/config.server";
import { poolStats } from "~/db/client.server";
import { productGauges, requestDone, shutdown, startup } from "~/domain/operations/index.server";
import { i18nOptions, type Locale } from "~/i18n/config";
import { getLocale, resourcesFor } from "~/i18n/i18n.server";
import { recordingKeys } from "~/i18n/recorder.server";
import { withRememberedStrings } from "~/i18n/resolved.server";
import { pageStringsJson } from "~/i18n/strings.server";
import { logRequest } from "~/lib/log.server";
import { pageCacheKey, publicRender } from "~/web/page-cache.server";
import { tailInsideBody } from "~/web/document-tail.server";
import { faultOf, noteFault } from "~/web/faults.server";
import { faultRefusal, refusal } from "~/web/refusal.server";
import { securityHeaders } from "~/web/security.server";
import { NonceContext } from "~/web/nonce";
import { installProbe } from "~/lib/probe.server";

// Runs once when the server build is loaded: migrations, folders, admin bootstrap. Loading the
// build waits for it, so no request reaches a database that is not migrated yet. A cluster worker
// loads the build while its primary starts up, and our server calls `appHooks.startup` once the
// primary is ready, before the worker listens (decision 0123).
if (config().serverRole !== "worker") await startup();

/**
 * What our own server (server/) needs from the app, reached as `build.entry.module.appHooks`:
 * refusals and shutdown; the key of a kept public page (decision 0035); for /metrics and traces (decision 0033) the probe seam, the product
 * gauges (the mail outbox among them), the PostgreSQL pool's figures; every finished request for the Service screen's counts (0034).
 */
export const appHooks = {
  refusal,
  faultRefusal,
  faultOf: (err: unknown) => {
    const fault = faultOf(err);
    if (fault) noteFault(fault, err);
    return fault;
  },
  startup,
  shutdown,
  pageCacheKey,
  instrument: installProbe,
  productGauges,
  poolStats,
  requestDone,
};

const ABORT_DELAY = 10_000;

/**
 * One i18next instance per language, made on first use and shared by every render after it
 * (the server never changes an instance's language), instead of one per request.
 */
const instances = new Map<string, Promise<i18n>>();
function i18nFor(locale: Locale) {
  let instance = instances.get(locale);
  if (!instance) {
    const created = createInstance();
    instance = resourcesFor(locale)
      .then((resources) => created.use(initReactI18next).init({ ...i18nOptions, lng: locale, resources }))
      .then(() => withRememberedStrings(created));
    instances.set(locale, instance);
    // A language whose catalogue did not load (decision 0121) is tried again by the next request.
    instance.catch(() => instances.delete(locale));
  }
  return instance;
}

/**
 * A document answer to a screen action keeps the action's Retry-After (Remix passes only
 * Set-Cookie on by itself), so a 429 (or a 409 "still in progress", decision 0062) on a screen says
 * when to try again, as the API does.
 */
function keepRetryAfter(responseHeaders: Headers, context: EntryContext) {
  const { actionHeaders, loaderHeaders } = context.staticHandlerContext;
  for (const headers of [...Object.values(actionHeaders ?? {}), ...Object.values(loaderHeaders ?? {})]) {
    const value = headers.get("Retry-After");
    if (value) {
      responseHeaders.set("Retry-After", value);
      return;
    }
  }
}

/**
 * Pages rendered for a signed-in user (the root loader found one) and everything under
 * /dashboard are never stored by the browser or a shared cache: after logout, Back or a
 * shared computer must not show a patient's data. Data requests (no render) are private when
 * they carry the session cookie.
 */
function isPrivate(request: Request, context?: EntryContext): boolean {
  if (/^\/dashboard(\/|\.data$|$)/.test(new URL(request.url).pathname)) return true;
  if (!context) return /(^|;\s*)cb_session=/.test(request.headers.get("Cookie") ?? "");
  const root = context.staticHandlerContext.loaderData?.root as { user?: unknown } | undefined;
  return !!root?.user;
}

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const locale = await getLocale(request);
  const instance = await i18nFor(locale);
  if (responseStatusCode === 409 || responseStatusCode === 429 || responseStatusCode === 503)
    keepRetryAfter(responseHeaders, remixContext);
  const nonce = randomBytes(16).toString("base64");
  const params = remixContext.staticHandlerContext.matches.at(-1)?.params ?? {};
  // The browser gets the strings of this page only, written after the render (it knows which keys
  // it used) as a data block at the end of <body>; entry.client starts i18next from it.
  const { i18n: recorder, used } = recordingKeys(instance);
  const routeIds = remixContext.staticHandlerContext.matches.map((m) => m.route.id);
  const strings = () =>
    `<script type="application/json" id="cb-strings" nonce="${nonce}">${pageStringsJson(locale, routeIds, used)}</script>`;

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    // Cleared once rendered, so a finished page never keeps a stopping server alive.
    const timer = setTimeout(() => abort(), ABORT_DELAY);
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <I18nextProvider i18n={recorder}>
          <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
        </I18nextProvider>
      </NonceContext.Provider>,
      {
        nonce,
        onAllReady() {
          shellRendered = true;
          clearTimeout(timer);
          const status = responseStatusCode;
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          securityHeaders(responseHeaders, request, nonce);
          // A document is drawn for the visitor's language and session: a shared cache keys on both.
          responseHeaders.append("Vary", "Cookie, Accept-Language");
          if (isPrivate(request, remixContext)) responseHeaders.set("Cache-Control", "no-store");
          // Our server may keep this page for everyone asking the same way (server/page-cache.ts).
          if (loadContext.pageCache && publicRender(request, status, responseHeaders, remixContext))
            loadContext.pageCache.nonce = nonce;
          // The page is complete: it is collected and answered as one body (the server compresses
          // it in one call) rather than streamed through web streams chunk by chunk.
          const chunks: Buffer[] = [];
          const sink = new Writable({
            write(chunk: Buffer, _encoding, done) {
              chunks.push(chunk);
              done();
            },
          });
          sink.once("finish", () => {
            const page = tailInsideBody(withoutNulBytes(Buffer.concat(chunks)), strings());
            resolve(new Response(page as unknown as BodyInit, { headers: responseHeaders, status }));
            logRequest(request, params, status, loadContext);
          });
          pipe(sink);
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          logRequest(request, params, 500, loadContext);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
  });
}

/**
 * React 18.3's streaming renderer can flush its whole 2 KiB buffer when a multi-byte character did
 * not fit at the end, unwritten zero bytes included (facebook/react#26228): a Hindi, Bengali or
 * Tamil page then carries NUL bytes wherever a boundary falls inside a character. NUL is never
 * valid in HTML (and React escapes no text into it), so the page's bytes pass without it. The
 * production writer is patched not to split a string (decision 0049); this stays for the
 * development build (`npm run dev`), which is not.
 */
function withoutNulBytes(page: Buffer): Buffer {
  return page.indexOf(0) === -1 ? page : Buffer.from(page.filter((b) => b !== 0));
}

export const handleDataRequest: HandleDataRequestFunction = (response, { request, params, context }) => {
  securityHeaders(response.headers, request);
  if (isPrivate(request)) response.headers.set("Cache-Control", "no-store");
  logRequest(request, params, response.status, context);
  return response;
};

export function handleError(
  error: unknown,
  { request, context }: { request: Request; context?: AppLoadContext },
) {
  if (request.signal.aborted) return;
  // The database or the store is down (decision 0060): logged once per outage, answered 503/507 by the server.
  const fault = faultOf(error);
  if (fault) {
    noteFault(fault, error);
    if (context) context.fault = fault;
    return;
  }
  console.error(error);
}
