import { config } from "~/config.server";
import type { BlobStore } from "./blob.server";
import { LocalBlobStore } from "./local.server";
import { S3BlobStore } from "./s3.server";

export type { BlobStore };

let store: { kind: string; key: string; store: BlobStore } | undefined;

/**
 * The store STORAGE_URL selects (a local folder by default, or an S3-compatible bucket), built
 * once and built again when the configuration changes (tests). The stores only know the
 * interface in blob.server.ts, so nothing imports in a circle.
 */
export function blobStore(): BlobStore {
  const s = config().storage;
  const key = s.kind === "local" ? s.dir : `${s.endpoint}|${s.bucket}|${s.prefix}`;
  if (store?.key !== key) {
    store = { kind: s.kind, key, store: s.kind === "local" ? new LocalBlobStore(s.dir) : new S3BlobStore(s) };
  }
  return store.store;
}
