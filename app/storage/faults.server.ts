import { causes, NETWORK } from "~/db/faults";

/**
 * An error of the file store itself (decision 0060): it cannot be reached now (the bucket's endpoint is
 * down or answers 5xx, the folder's disk fails) or the disk is full. The store wrapper
 * (factory.server.ts) rethrows such errors as a StoreFault, so the adapters can answer 503 or 507
 * without knowing which store runs; every other error (a refused body, a missing object) passes
 * through unchanged.
 */
export class StoreFault extends Error {
  constructor(
    readonly fault: "unavailable" | "full",
    options: { cause: unknown },
  ) {
    super(fault === "full" ? "the file store is out of space" : "the file store cannot be reached", options);
    this.name = "StoreFault";
  }
}

export function storeFault(err: unknown): StoreFault["fault"] | null {
  for (const e of causes(err)) {
    if (e instanceof StoreFault) return e.fault;
    const code = typeof e.code === "string" ? e.code : "";
    if (code === "ENOSPC" || code === "EDQUOT") return "full";
    if (code === "EIO" || code === "EROFS") return "unavailable";
    // The S3 client: a service answer of 5xx (SlowDown, InternalError, ServiceUnavailable), a time-out,
    // or no answer at all (the SDK's network errors keep Node's code).
    // Only the client's own errors carry $metadata: a broken upload body (the person's connection)
    // is not the store's fault.
    const meta = e.$metadata as { httpStatusCode?: number } | undefined;
    if (!meta) continue;
    const name = (e as { name?: unknown }).name;
    if ((meta.httpStatusCode ?? 0) >= 500 || NETWORK.has(code)) return "unavailable";
    if (name === "TimeoutError" || name === "RequestTimeout") return "unavailable";
  }
  return null;
}

/** Rethrows a store's own fault as a StoreFault; anything else as it was. */
export function asStoreFault(err: unknown): unknown {
  if (err instanceof StoreFault) return err;
  const fault = storeFault(err);
  return fault ? new StoreFault(fault, { cause: err }) : err;
}
