import { config, type StorageConfig } from "~/config.server";
import { probe, type Probe } from "~/lib/probe.server";
import type { BlobStore } from "./blob.server";
import { diskFull } from "./disk.server";
import { asStoreFault, StoreFault } from "./faults.server";
import { LocalBlobStore } from "./local.server";

export type { BlobStore };

let store: { kind: string; key: string; store: BlobStore; probed: boolean } | undefined;

/**
 * The store STORAGE_URL selects (a local folder by default, or an S3-compatible bucket), built
 * once and built again when the configuration changes (tests). The stores only know the
 * interface in blob.server.ts, so nothing imports in a circle. When the server watches the app
 * (metrics, traces) every call goes through `probed`, whatever the store.
 */
export function blobStore(): BlobStore {
  const s = config().storage;
  const key = s.kind === "local" ? s.dir : `${s.endpoint}|${s.bucket}|${s.prefix}`;
  if (store?.key !== key || (probe && !store.probed)) {
    const inner = faultsNamed(s.kind === "local" ? new LocalBlobStore(s.dir) : lazyS3(s));
    store = { kind: s.kind, key, store: probe ? probed(inner, probe) : inner, probed: !!probe };
  }
  return store.store;
}

/**
 * The S3 store, its SDK loaded at the first call (a clinic on a local folder never loads it; a node
 * on S3 loads it once, when the first request needs the store, not in every start).
 */
function lazyS3(settings: Extract<StorageConfig, { kind: "s3" }>): BlobStore {
  let made: Promise<BlobStore> | undefined;
  const s3 = () => (made ??= import("./s3.server").then((m) => new m.S3BlobStore(settings)));
  return {
    kind: "s3",
    put: async (key, body) => (await s3()).put(key, body),
    get: async (key) => (await s3()).get(key),
    delete: async (key) => (await s3()).delete(key),
    exists: async (key) => (await s3()).exists(key),
    async *list(prefix) {
      yield* (await s3()).list(prefix);
    },
    sweepIncomplete: async (cutoff) => (await s3()).sweepIncomplete(cutoff),
    ping: async () => (await s3()).ping(),
  };
}

/** The same store, its own faults (unreachable, out of space) rethrown as StoreFault (decision 0060). */
function faultsNamed(inner: BlobStore): BlobStore {
  const named = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw asStoreFault(err);
    }
  };
  return {
    kind: inner.kind,
    put: (key, body) =>
      named(async () => {
        // Below the reserve a new file is refused before a byte is written (decision 0060).
        if (inner.kind === "local" && (await diskFull("uploads")))
          throw new StoreFault("full", { cause: new Error("less free space than DISK_RESERVE_MB") });
        return inner.put(key, body);
      }),
    get: (key) => named(() => inner.get(key)),
    delete: (key) => named(() => inner.delete(key)),
    exists: (key) => named(() => inner.exists(key)),
    async *list(prefix) {
      const pages = inner.list(prefix)[Symbol.asyncIterator]();
      for (;;) {
        const page = await named(() => pages.next());
        if (page.done) return;
        yield page.value;
      }
    },
    sweepIncomplete: (cutoff) => named(() => inner.sweepIncomplete(cutoff)),
    ping: () => named(() => inner.ping()),
  };
}

/** The same store with each call timed (and traced) by the server's probe; errors are counted, then rethrown. */
function probed(inner: BlobStore, p: Probe): BlobStore {
  async function timed<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const end = p.start("store", inner.kind, operation);
    try {
      const result = await run();
      end();
      return result;
    } catch (err) {
      end(err);
      throw err;
    }
  }
  return {
    kind: inner.kind,
    put: (key, body) => timed("put", () => inner.put(key, body)),
    get: (key) => timed("get", () => inner.get(key)),
    delete: (key) => timed("delete", () => inner.delete(key)),
    exists: (key) => timed("exists", () => inner.exists(key)),
    async *list(prefix) {
      const pages = inner.list(prefix)[Symbol.asyncIterator]();
      for (;;) {
        const page = await timed("list", () => pages.next());
        if (page.done) return;
        yield page.value;
      }
    },
    sweepIncomplete: (cutoff) => timed("sweep", () => inner.sweepIncomplete(cutoff)),
    ping: () => timed("ping", () => inner.ping()),
  };
}
