import {
  createCipheriv,
  createHmac,
  createDecipheriv,
  createHash,
  randomBytes,
  type CipherGCM,
  type DecipherGCM,
} from "node:crypto";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import type { Readable } from "node:stream";
import { inArray, lt, sql, type AnyColumn, type Table } from "drizzle-orm";
import { config } from "~/config.server";
import { db, runExclusive } from "~/db/client.server";
import { FILE_COLUMNS } from "~/db/file-columns";
import { previewCache, uploadSessions } from "~/db/schema";
import { blobStore } from "~/storage/factory.server";
import { log } from "~/lib/log.server";
import { releaseUploadGarbage } from "~/lib/memory.server";
import { DomainError } from "../platform/errors";
import { forgetFailures } from "../platform/index.server";
import {
  ALGORITHM,
  assertKey,
  IV_BYTES,
  isValidKey,
  openObject,
  TAG_BYTES,
  WRITE_BATCH_BYTES,
} from "./file-crypto.server";
import { maxBytesFor, sniffType, SNIFF_SAMPLE_BYTES, tooLarge, type UploadKind } from "./file-types.server";
import { UPLOAD_ID_CHARS } from "./upload-segments.server";

/**
 * Encrypted file store for report files and display pictures, over a blob store (a local folder
 * or an S3-compatible bucket: storage/factory.server.ts). Encryption happens here, before any byte
 * leaves the process.
 *
 * Format of the object `<key>.enc` (AES-256-GCM, key = config().encryptionKey):
 *
 *   offset 0   4 bytes   magic "CBF1" (CareBridge file, format version 1)
 *   offset 4  12 bytes   IV (random per file)
 *   offset 16  n bytes   ciphertext (n = plaintext size)
 *   end-16    16 bytes   GCM authentication tag
 *
 * The additional authenticated data is the magic followed by the file's key, so a file
 * renamed to another key (e.g. swapped between two reports) fails authentication.
 *
 * Uploads are streamed chunk by chunk into the store (never held whole in memory), which makes
 * the object visible only when complete; a failed upload leaves nothing, and `sweepLeftovers()`
 * removes whatever a crash left.
 *
 * Beside it: file-types.server.ts (what a file may be, by its first bytes; size limits),
 * file-crypto.server.ts (what this format and the segments' share) and upload-segments.server.ts
 * (the pieces of a resumable upload).
 */

const MAGIC = Buffer.from("CBF1", "ascii");
const HEADER_BYTES = MAGIC.length + IV_BYTES;
/** How much upload passes between two young-generation collections (utils/memory.server.ts). */
const GARBAGE_EVERY_BYTES = 2 * 1024 * 1024;
/**
 * Unreferenced objects younger than this are left alone by the sweep (a row may be on its way), and
 * so are unfinished uploads that received bytes this recently.
 */
const SWEEP_MIN_AGE_MS = 10 * 60 * 1000;
/** Unfinished uploads whose store only knows when they started are removed a day later. */
const SWEEP_INCOMPLETE_AGE_MS = 24 * 60 * 60 * 1000;

export type StoredFile = {
  key: string;
  mimeType: string;
  /** Plaintext size in bytes. */
  size: number;
  /** Sanitised display name whose extension matches the sniffed type. */
  fileName: string;
};

function aad(key: string) {
  return Buffer.concat([MAGIC, Buffer.from(key, "ascii")]);
}

const EXT_ALIASES: Record<string, string[]> = { jpg: ["jpg", "jpeg", "jpe", "jfif"], png: ["png", "apng"] };
const MAX_NAME = 120;

/**
 * A display name that is safe anywhere: the last path segment only, no control, bidi or
 * path characters, no leading dots, at most 120 characters, ending in the sniffed type's
 * extension (an existing matching extension is kept, a different one is replaced).
 */
export function sanitizeFileName(raw: string | null | undefined, ext: string): string {
  let name = String(raw ?? "").normalize("NFC");
  name = name.split(/[/\\]/).pop() ?? "";
  name = name
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, "")
    .replace(/[<>:"|?*]/g, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s]+/, "")
    .replace(/[.\s]+$/, "");
  const dot = name.lastIndexOf(".");
  let stem = name;
  if (dot > 0) {
    const given = name.slice(dot + 1).toLowerCase();
    const ok = (EXT_ALIASES[ext] ?? [ext]).includes(given);
    stem = name.slice(0, dot);
    if (ok) ext = given;
  }
  stem = stem.replace(/[.\s]+$/, "");
  if (!stem) stem = "file";
  const room = MAX_NAME - ext.length - 1;
  // Cut by code points so a surrogate pair is never split.
  stem = Array.from(stem).slice(0, room).join("").trimEnd() || "file";
  return `${stem}.${ext}`;
}

/**
 * Streams an upload to disk, encrypted, deciding its type from its first bytes.
 * Throws DomainError too_large (over maxBytes), invalid "files.empty" (no bytes) or
 * unsupported_type (not one of the kind's types); a failure leaves no file behind.
 */
export async function storeUpload(
  chunks: AsyncIterable<Uint8Array>,
  opts: { maxBytes: number; allowed: UploadKind; fileName?: string | null; key?: string },
): Promise<StoredFile> {
  const key = opts.key ?? randomBytes(16).toString("hex");
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, config().encryptionKey, iv) as CipherGCM;
  cipher.setAAD(aad(key));
  let size = 0;
  let sniffed: { mime: string; ext: string } | undefined;
  let maxBytes = opts.maxBytes;

  const sniff = async (sample: Buffer) => {
    sniffed = await sniffType(sample, opts.allowed);
    // A report file's own type decides its limit (medical images may be larger).
    if (opts.allowed === "report") maxBytes = Math.min(opts.maxBytes, maxBytesFor(sniffed.mime));
    if (size > maxBytes) throw tooLarge(maxBytes);
  };

  /** The object's bytes: header, ciphertext in batches, tag. Nothing is produced before the type is known. */
  async function* encrypted(): AsyncGenerator<Buffer> {
    let head: Buffer[] = [];
    let headBytes = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let sinceCollect = 0;
    const push = (plain: Buffer) => {
      const enc = cipher.update(plain);
      if (enc.length) {
        pending.push(enc);
        pendingBytes += enc.length;
      }
    };
    const take = () => {
      const out = Buffer.concat(pending, pendingBytes);
      sinceCollect += pendingBytes;
      pending = [];
      pendingBytes = 0;
      if (sinceCollect >= GARBAGE_EVERY_BYTES) {
        sinceCollect = 0;
        releaseUploadGarbage();
      }
      return out;
    };
    const start = async () => {
      const sample = Buffer.concat(head, headBytes);
      head = [];
      await sniff(sample);
      pending.push(Buffer.concat([MAGIC, iv]));
      pendingBytes += HEADER_BYTES;
      push(sample);
    };
    for await (const chunk of chunks) {
      if (!chunk || chunk.byteLength === 0) continue;
      size += chunk.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      if (!sniffed) {
        // Copied: the producer may reuse its buffer once we ask for the next chunk.
        head.push(Buffer.from(chunk));
        headBytes += chunk.byteLength;
        if (headBytes >= SNIFF_SAMPLE_BYTES) await start();
      } else {
        // A view is enough: cipher.update() copies into its output.
        push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
      if (pendingBytes >= WRITE_BATCH_BYTES) yield take();
    }
    if (size === 0) throw new DomainError("invalid", "files.empty");
    if (!sniffed) await start();
    const final = cipher.final();
    if (final.length) {
      pending.push(final);
      pendingBytes += final.length;
    }
    pending.push(cipher.getAuthTag());
    pendingBytes += TAG_BYTES;
    yield take();
  }

  await blobStore().put(key, encrypted());
  return {
    key,
    mimeType: sniffed!.mime,
    size,
    fileName: sanitizeFileName(opts.fileName, sniffed!.ext),
  };
}

/**
 * The plaintext of a stored file as a Node stream. The GCM tag is checked when the last
 * byte has been decrypted: a tampered or truncated file makes the stream error (after
 * earlier chunks may have been delivered, so consumers must treat an error as fatal).
 * A missing file or a malformed key is DomainError not_found.
 */
export async function openDecrypted(key: string): Promise<Readable> {
  assertKey(key);
  return (await openObject(key, MAGIC, 0)).stream;
}

/** Removes a stored file; a missing file is not an error. */
export async function deleteStored(key: string): Promise<void> {
  if (!isValidKey(key)) return;
  await blobStore().delete(key);
}

/**
 * Deletes stored objects a row no longer refers to (a study's instances and previews, voice
 * notes' audio), one by one; a failure is logged and left to the sweep (sweepLeftovers).
 */
export async function deleteObjects(keys: string[]): Promise<void> {
  for (const key of keys)
    await deleteStored(key).catch((err) =>
      log("error", "could not delete stored object", { key, error: String(err?.message ?? err) }),
    );
}

/**
 * Removes a report's stored file unless another report still refers to it: a second opinion
 * shares its case's file (decision 0038), so deleting one row of the case keeps the file for the
 * others. Call it after the row is gone.
 */
export async function deleteReportFileIfUnused(key: string): Promise<void> {
  if (!isValidKey(key)) return;
  if ((await referencedKeys([key])).has(key)) return;
  await blobStore().delete(key);
  await deletePagePreviews([key]);
}

/**
 * The key of a PDF page's cached preview (decision 0086): derived from the file's key and the page
 * with the encryption key, so it cannot be guessed from outside, is found again by every node, and
 * is an object like any other (encrypted, bound to its key). A `preview_cache` row counts its bytes
 * against the file's quota (decision 0100); the hourly sweep lets previews go after SWEEP_MIN_AGE_MS
 * (expirePreviews, then the object is a leftover), and the file's deletion removes them at once
 * (deletePagePreviews).
 */
export function pagePreviewKey(fileKey: string, page: number): string {
  return createHmac("sha256", config().encryptionKey)
    .update(`pdf-page\0${fileKey}\0${page}`)
    .digest("hex")
    .slice(0, 32);
}

/** The highest page number a preview is asked for (the reader reads at most ten). */
export const MAX_PREVIEW_PAGE = 50;

/** Removes the cached page previews of files (when the files themselves go), their rows and remembered failures. */
export async function deletePagePreviews(fileKeys: string[]): Promise<void> {
  const files = fileKeys.filter(isValidKey);
  if (files.length) {
    await db().delete(previewCache).where(inArray(previewCache.fileKey, files));
    for (const k of files) await forgetFailures("render", `${k}#`);
  }
  const keys = fileKeys
    .filter(isValidKey)
    .flatMap((k) => Array.from({ length: MAX_PREVIEW_PAGE }, (_, i) => pagePreviewKey(k, i + 1)));
  await Promise.all(
    keys.map((k) =>
      blobStore()
        .delete(k)
        .catch(() => {}),
    ),
  );
}

/** Whether the stored file exists (used by tests and checks). */
export async function storedExists(key: string): Promise<boolean> {
  if (!isValidKey(key)) return false;
  return blobStore().exists(key);
}

/**
 * The keys among `keys` that a report or a user's picture refers to, or that are segments of a
 * resumable upload still under way (its session row exists; `sweepUploads` ends idle ones).
 * Distinct: a key many rows share (the bench's seed gives 1,000,000 reports four files) comes
 * back once, not once per row (before: 1.7 s and 300 MB of heap in the primary at each start).
 */
async function referencedKeys(keys: string[]): Promise<Set<string>> {
  const uploadIds = [...new Set(keys.map((k) => k.slice(0, UPLOAD_ID_CHARS)))];
  const among = (table: Table, column: AnyColumn) =>
    db()
      .selectDistinct({ k: sql<string>`${column}` })
      .from(table)
      .where(inArray(column, keys));
  const [fromUploads, ...fromKeys] = await Promise.all([
    db().select({ id: uploadSessions.id }).from(uploadSessions).where(inArray(uploadSessions.id, uploadIds)),
    // Every file-bearing column (app/db/file-columns.ts: the same list the backups and restores use).
    ...FILE_COLUMNS.map(({ table, column }) => among(table, column)),
  ]);
  const live = new Set(fromUploads.map((r) => r.id));
  return new Set([
    ...fromKeys.flat().map((r) => r.k),
    ...keys.filter((k) => live.has(k.slice(0, UPLOAD_ID_CHARS))),
  ]);
}

/**
 * Hygiene, at start-up and hourly (on one node at a time): removes abandoned uploads (a `.part`
 * file idle for ten minutes, an S3 multipart upload started a day ago) and objects that no report or user picture
 * refers to and that are older than a few minutes (a crash between storing the file and inserting
 * its row). Young objects are kept, so it is safe while other nodes are uploading.
 */
export async function sweepLeftovers(
  now = Date.now(),
): Promise<{ removedParts: number; removedOrphans: number }> {
  const result = await runExclusive("sweep", async () => {
    const store = blobStore();
    const removedParts = await store.sweepIncomplete({
      idleBefore: now - SWEEP_MIN_AGE_MS,
      startedBefore: now - SWEEP_INCOMPLETE_AGE_MS,
    });
    // Previews kept long enough lose their rows first: their objects are then leftovers like any other.
    await db()
      .delete(previewCache)
      .where(lt(previewCache.createdAt, new Date(now - SWEEP_MIN_AGE_MS)));
    let removedOrphans = 0;
    for await (const page of store.list()) {
      const old = page.filter((o) => now - o.modifiedMs > SWEEP_MIN_AGE_MS).map((o) => o.key);
      if (!old.length) continue;
      const referenced = await referencedKeys(old);
      for (const key of old) {
        if (referenced.has(key)) continue;
        await store.delete(key);
        removedOrphans++;
      }
    }
    if (removedParts || removedOrphans) log("info", "upload sweep", { removedParts, removedOrphans });
    return { removedParts, removedOrphans };
  });
  return result ?? { removedParts: 0, removedOrphans: 0 };
}

/**
 * A stored file's copy outside the store (a backup's `uploads/<key>.enc`), decrypted with `encryptionKey`
 * to check it: the header, the GCM tag (which authenticates every byte, bound to the key) and the
 * plaintext's size and SHA-256. Throws when it cannot be read back.
 */
export async function decryptCopy(
  file: string,
  key: string,
  encryptionKey: Buffer,
): Promise<{ size: number; sha256: string }> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    if (size < HEADER_BYTES + TAG_BYTES) throw new Error(`${key}: truncated`);
    const header = Buffer.alloc(HEADER_BYTES);
    const tag = Buffer.alloc(TAG_BYTES);
    await handle.read(header, 0, HEADER_BYTES, 0);
    await handle.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
    if (!header.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error(`${key}: unknown format`);
    const decipher = createDecipheriv(ALGORITHM, encryptionKey, header.subarray(MAGIC.length)) as DecipherGCM;
    decipher.setAAD(aad(key));
    decipher.setAuthTag(tag);
    const hash = createHash("sha256");
    let plain = 0;
    const body = createReadStream(file, { start: HEADER_BYTES, end: size - TAG_BYTES - 1 });
    for await (const chunk of body) {
      const out = decipher.update(chunk as Buffer);
      plain += out.length;
      hash.update(out);
    }
    try {
      const last = decipher.final();
      plain += last.length;
      hash.update(last);
    } catch {
      throw new Error(`${key}: does not decrypt (the tag does not match)`);
    }
    return { size: plain, sha256: hash.digest("hex") };
  } finally {
    await handle.close();
  }
}
