import type { Readable } from "node:stream";

/**
 * Where encrypted files live (decision 0010): a local folder (the default) or an S3-compatible
 * bucket (STORAGE_URL=s3://…); `blobStore()` in factory.server.ts picks one. A store only keeps
 * opaque bytes under a key — encryption, type sniffing and who may read what stay in
 * domain/records/files.server.ts, so a bucket never holds plaintext and both stores behave the same to
 * the domain.
 */
export interface BlobStore {
  readonly kind: "local" | "s3";
  /**
   * Writes an object from a stream of chunks. It becomes visible only when complete (a rename, or
   * S3's completed upload); when `body` throws, nothing is left behind and the error is rethrown.
   */
  put(key: string, body: AsyncIterable<Buffer>): Promise<void>;
  /** The object's bytes and size, or null when there is no such object. */
  get(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** Removes an object; a missing one is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /**
   * Every complete object, in pages, with its last-modified time (for the sweep); with `prefix`,
   * only the objects whose key starts with it (the segments of one resumable upload).
   */
  list(prefix?: string): AsyncIterable<{ key: string; modifiedMs: number }[]>;
  /**
   * Removes unfinished writes (crashed or abandoned uploads); returns how many. A store that sees
   * when a write last received bytes (a local `.part` file) removes those idle since `idleBefore`;
   * one that only knows when it started (an S3 multipart upload) those started before `startedBefore`.
   */
  sweepIncomplete(cutoff: { idleBefore: number; startedBefore: number }): Promise<number>;
  /** Throws unless the store can be reached (for /healthz). */
  ping(): Promise<void>;
}
