import { createCipheriv, randomBytes, type CipherGCM } from "node:crypto";
import type { Readable } from "node:stream";
import { config } from "~/config.server";
import { blobStore } from "~/storage/factory.server";
import { DomainError } from "../platform/errors";
import {
  ALGORITHM,
  assertKey,
  IV_BYTES,
  openObject,
  TAG_BYTES,
  WRITE_BATCH_BYTES,
} from "./file-crypto.server";

/**
 * Segments of resumable uploads (decision 0015).
 *
 * A resumable upload arrives in pieces over many requests, possibly on different nodes, and AES-GCM
 * state cannot be carried from one request to the next. So every piece received is stored at once
 * as its own encrypted SEGMENT object, and the finished upload is decrypted segment by segment
 * into `storeUpload` (one ordinary encrypted file). Never plaintext at rest.
 *
 * Format of a segment object `<uploadId><8 random hex>.enc` (its key is an ordinary 32-hex key, so
 * the stores and the sweep treat it like any object; the first 24 characters name its upload):
 *
 *   offset 0   4 bytes   magic "CBS1" (CareBridge segment, format version 1)
 *   offset 4  12 bytes   IV (random per segment)
 *   offset 16  8 bytes   where the segment's bytes start in the upload (unsigned, big-endian)
 *   offset 24  n bytes   ciphertext
 *   end-16    16 bytes   GCM tag
 *
 * The AAD is magic + key + the 8 offset bytes: a segment moved to another upload or another
 * position fails authentication.
 */
const SEGMENT_MAGIC = Buffer.from("CBS1", "ascii");
const SEGMENT_OFFSET_BYTES = 8;
/** The first characters of a segment's key: its upload's id. */
export const UPLOAD_ID_CHARS = 24;
const UPLOAD_ID_RE = /^[a-f0-9]{24}$/;

export type Segment = { key: string; offset: number; size: number };

/** Whether `id` can be a resumable upload's id (24 hex, the shape of every id of ours). */
export function isUploadId(id: unknown): id is string {
  return typeof id === "string" && UPLOAD_ID_RE.test(id);
}

function assertUploadId(id: string) {
  if (!isUploadId(id)) throw new DomainError("not_found", "uploads.notFound");
}

/**
 * Stores the bytes of `chunks` (the piece of an upload starting at `offset`) as one encrypted
 * segment, streamed. Returns its key and plaintext size, or null when no byte came (nothing is
 * written then). When `chunks` throws, nothing is left behind and the error is rethrown.
 */
export async function storeSegment(
  uploadId: string,
  offset: number,
  chunks: AsyncIterable<Uint8Array>,
): Promise<Segment | null> {
  assertUploadId(uploadId);
  const source = chunks[Symbol.asyncIterator]();
  let first: Uint8Array | undefined;
  for (;;) {
    const next = await source.next();
    if (next.done) return null;
    if (next.value.byteLength > 0) {
      first = next.value;
      break;
    }
  }
  const key = uploadId + randomBytes(4).toString("hex");
  const iv = randomBytes(IV_BYTES);
  const at = Buffer.alloc(SEGMENT_OFFSET_BYTES);
  at.writeBigUInt64BE(BigInt(offset));
  const cipher = createCipheriv(ALGORITHM, config().encryptionKey, iv) as CipherGCM;
  cipher.setAAD(Buffer.concat([SEGMENT_MAGIC, Buffer.from(key, "ascii"), at]));
  let size = 0;

  async function* encrypted(): AsyncGenerator<Buffer> {
    let pending: Buffer[] = [SEGMENT_MAGIC, iv, at];
    let pendingBytes = SEGMENT_MAGIC.length + IV_BYTES + SEGMENT_OFFSET_BYTES;
    const push = (plain: Uint8Array) => {
      size += plain.byteLength;
      const enc = cipher.update(plain);
      if (enc.length) {
        pending.push(enc);
        pendingBytes += enc.length;
      }
    };
    const take = () => {
      const out = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      return out;
    };
    try {
      push(first!);
      first = undefined;
      for (;;) {
        if (pendingBytes >= WRITE_BATCH_BYTES) yield take();
        const next = await source.next();
        if (next.done) break;
        if (next.value.byteLength) push(next.value);
      }
    } finally {
      await source.return?.();
    }
    const final = cipher.final();
    pending.push(final, cipher.getAuthTag());
    pendingBytes += final.length + TAG_BYTES;
    yield take();
  }

  await blobStore().put(key, encrypted());
  return { key, offset, size };
}

/** One segment's start offset and size, and its plaintext (decrypted as it is read; the tag is checked at the end). */
export async function openSegment(
  key: string,
): Promise<Segment & { stream: Readable; close(): Promise<void> }> {
  assertKey(key);
  const opened = await openObject(key, SEGMENT_MAGIC, SEGMENT_OFFSET_BYTES);
  const offset = Number(opened.extra.readBigUInt64BE(0));
  return { key, offset, size: opened.size, stream: opened.stream, close: opened.close };
}

/** The segments stored for an upload (any order), read from their headers. */
export async function listSegments(uploadId: string): Promise<Segment[]> {
  assertUploadId(uploadId);
  const out: Segment[] = [];
  for await (const page of blobStore().list(uploadId)) {
    for (const { key } of page) {
      let seg;
      try {
        seg = await openSegment(key);
      } catch (err) {
        if (err instanceof DomainError && err.code === "not_found") continue; // removed meanwhile
        throw err;
      }
      await seg.close();
      out.push({ key, offset: seg.offset, size: seg.size });
    }
  }
  return out;
}

/** Removes every segment of an upload; returns how many. */
export async function deleteSegments(uploadId: string): Promise<number> {
  if (!isUploadId(uploadId)) return 0;
  let removed = 0;
  const store = blobStore();
  for await (const page of store.list(uploadId)) {
    for (const { key } of page) {
      await store.delete(key);
      removed++;
    }
  }
  return removed;
}
