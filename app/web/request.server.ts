import type { AppLoadContext } from "@remix-run/node";
import { UNKNOWN_CLIENT, type Client } from "~/domain/platform/client";
import type { Fault } from "./faults.server";

/**
 * What our server (server/) hands every request as Remix load context. Under the basic
 * remix-serve (`npm run start:basic`) the context is empty and the client is unknown.
 */
export type RequestContext = {
  client: Client;
  /** Filled by the app with the matched route pattern; the server writes the log line. */
  requestLog: { route?: string };
  /**
   * Present when the server may keep this GET's page for others asking the same way; the render
   * sets `nonce` only when the page it drew is public (no user, no toast, no cookie set).
   */
  pageCache?: { nonce?: string };
  /** Set when the request failed because the database or the store did (decision 0060): the server answers 503/507. */
  fault?: Fault;
};

declare module "@remix-run/node" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends Partial<RequestContext> {}
}

/** The client of this request (never read from headers here: the server resolved it). */
export function clientOf(context: AppLoadContext | undefined): Client {
  return context?.client ?? UNKNOWN_CLIENT;
}
