/**
 * A typed client for the CareBridge API (/api/v1): openapi-fetch over the types generated from the
 * API's OpenAPI document (./schema.d.ts). Every path, parameter and JSON body is checked by the
 * TypeScript compiler against the document, so a contract change shows up when a consumer builds.
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./schema";

export type { components, operations, paths } from "./schema";

export type CareBridgeClient = Client<paths>;

export type CareBridgeClientOptions = {
  /** The site, e.g. `https://carebridge.example`; the client adds `/api/v1` (unless it is already there). */
  baseUrl: string;
  /** The bearer token from `POST /auth/login` (or a function that returns the current one). */
  token?: string | (() => string | undefined);
  /** Another fetch (a test double, a fetch with retries, undici's); `globalThis.fetch` by default. */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
};

/** The API client; requests carry `Authorization: Bearer <token>` when a token is given. */
export function createCareBridgeClient(options: CareBridgeClientOptions): CareBridgeClient {
  const site = options.baseUrl.replace(/\/+$/, "");
  const client = createClient<paths>({
    baseUrl: site.endsWith("/api/v1") ? site : `${site}/api/v1`,
    headers: options.headers,
    // Late-bound, so a fetch replaced after the client was made (a test's spy) is the one used.
    fetch: options.fetch ?? ((input) => globalThis.fetch(input)),
  });
  const bearer: Middleware = {
    onRequest({ request }) {
      const token = typeof options.token === "function" ? options.token() : options.token;
      // A header the caller set for this request wins.
      if (token && !request.headers.has("Authorization")) {
        request.headers.set("Authorization", `Bearer ${token}`);
      }
      return request;
    },
  };
  client.use(bearer);
  return client;
}

/**
 * The body of a multipart upload (`/report/upload-report`, `/profile/update-display-picture`) as
 * FormData: pass it as `bodySerializer`. Booleans and numbers are sent as text; `undefined` is left out.
 */
export function formDataBody(body: object): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : name);
    else form.append(name, String(value));
  }
  return form;
}
