import { causes, databaseFault } from "~/db/faults";
import { DomainError } from "~/domain/platform/errors";
import { pingDatabase } from "~/db/client.server";
import { diskFilledUp, diskState } from "~/storage/disk.server";
import { blobStore } from "~/storage/factory.server";
import { StoreFault } from "~/storage/faults.server";
import { log } from "~/lib/log.server";

/**
 * When a part CareBridge depends on fails (decision 0060): which part, and whether it is unreachable
 * (503 with Retry-After: the request may simply be sent again) or out of space (507). The API, the
 * screens' forms and the upload protocol answer it as a refusal with a message; any other request
 * (a page's loader, a file) gets the server's small page or JSON error (server/http.ts), never a 500.
 */
export type Fault = { part: "database" | "store" | "disk"; kind: "unavailable" | "full" };

/** How long a client should wait before sending the same request again. */
export const FAULT_RETRY_AFTER_SECONDS = 5;

export function faultOf(err: unknown): Fault | null {
  for (const e of causes(err))
    if (e.code === "ENOSPC" || e.code === "EDQUOT") return { part: "disk", kind: "full" };
  // The store wrapper names its own faults; a bare network error is the database's.
  for (const e of causes(err)) if (e instanceof StoreFault) return { part: "store", kind: e.fault };
  const database = databaseFault(err);
  if (database) return { part: "database", kind: database };
  return null;
}

const MESSAGES = {
  database: "errors.databaseUnavailable",
  store: "errors.storeUnavailable",
  disk: "errors.outOfSpace",
} as const;

/** The refusal a fault is answered with, in the shape every adapter already answers. */
export function faultError(fault: Fault): DomainError {
  if (fault.kind === "full") return new DomainError("insufficient_storage", "errors.outOfSpace");
  return new DomainError("unavailable", MESSAGES[fault.part], {
    retryAfterSeconds: FAULT_RETRY_AFTER_SECONDS,
  });
}

/** The same error, as its fault's refusal when it is one (and logged once per outage). */
export function asRefusal(err: unknown): unknown {
  const fault = faultOf(err);
  if (!fault) return err;
  noteFault(fault, err);
  return faultError(fault);
}

/** The parts found down, each watched until it answers again; the outage's start for the log. */
const down = new Map<string, number>();
const PROBE_MS = 1_000;

/**
 * Logs "database unavailable" (or "store …", "disk … out of space") once per outage, without a
 * stack per request: the part is then probed every second, and the outage ends (logged, with its
 * length) when it answers again.
 */
export function noteFault(fault: Fault, err: unknown) {
  if (fault.kind === "full") diskFilledUp(); // look again now, and give back the space reserve
  const key = `${fault.part} ${fault.kind}`;
  if (down.has(key)) return;
  down.set(key, Date.now());
  log("error", fault.kind === "full" ? `${fault.part} out of space` : `${fault.part} unavailable`, {
    error: whyOf(err),
  });
  const timer = setInterval(() => {
    void answers(fault).then((ok) => {
      if (!ok || !down.has(key)) return;
      clearInterval(timer);
      const since = down.get(key)!;
      down.delete(key);
      log("info", `${fault.part} ${fault.kind === "full" ? "has room" : "available"} again`, {
        seconds: Math.round((Date.now() - since) / 100) / 10,
      });
    });
  }, PROBE_MS);
  timer.unref();
}

/**
 * What went wrong, down the causes (a StoreFault wraps the SDK's error, which wraps Node's): each
 * one's name or code and message, so the admin reads "ECONNRESET: socket hang up" or "InternalError
 * (500)", not only "the file store cannot be reached". Never a body or a key's value.
 */
function whyOf(err: unknown): string {
  const parts: string[] = [];
  for (const e of causes(err)) {
    const status = (e.$metadata as { httpStatusCode?: number } | undefined)?.httpStatusCode;
    const name = typeof e.code === "string" ? e.code : (e as { name?: unknown }).name;
    const message = typeof e.message === "string" ? e.message : String(e);
    parts.push(
      `${typeof name === "string" && name !== "Error" ? `${name}: ` : ""}${message}${status ? ` (${status})` : ""}`,
    );
  }
  return parts.join(" ← ").slice(0, 500);
}

/** Probes under way: a part that hangs is asked again only once the last probe has its answer. */
const probing = new Set<string>();

async function answers(fault: Fault): Promise<boolean> {
  const key = `${fault.part} ${fault.kind}`;
  if (probing.has(key)) return false;
  probing.add(key);
  try {
    if (fault.kind === "full") return (await diskState()) !== "full";
    if (fault.part === "store") await blobStore().ping();
    else await pingDatabase();
    return true;
  } catch {
    return false;
  } finally {
    probing.delete(key);
  }
}
