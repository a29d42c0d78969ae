import { createCipheriv, createDecipheriv, randomBytes, type CipherGCM, type DecipherGCM } from "node:crypto";
import { Readable } from "node:stream";
import { inArray, sql, type AnyColumn, type Table } from "drizzle-orm";
import { fileTypeFromBuffer } from "file-type";
import { config } from "~/config.server";
import { db, runExclusive } from "~/db/client.server";
import {
  imagingInstances,
  imagingPreviews,
  patientConsents,
  reports,
  uploadSessions,
  users,
  voiceNotes,
} from "~/db/schema";
import { blobStore } from "~/storage/factory.server";
import { log } from "~/utils/log.server";
import { releaseUploadGarbage } from "~/utils/memory.server";
import { DomainError } from "../platform/errors";

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
 */

const MAGIC = Buffer.from("CBF1", "ascii");
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + IV_BYTES;
const ALGORITHM = "aes-256-gcm";
/** How many leading bytes the type sniffing looks at (file-type's own sample size). */
const SNIFF_BYTES = 4100;
/** Ciphertext is written in pieces of about this size (fewer, larger writes). */
const WRITE_BATCH_BYTES = 256 * 1024;
/** How much upload passes between two young-generation collections (utils/memory.server.ts). */
const GARBAGE_EVERY_BYTES = 2 * 1024 * 1024;
/**
 * Unreferenced objects younger than this are left alone by the sweep (a row may be on its way), and
 * so are unfinished uploads that received bytes this recently.
 */
const SWEEP_MIN_AGE_MS = 10 * 60 * 1000;
/** Unfinished uploads whose store only knows when they started are removed a day later. */
const SWEEP_INCOMPLETE_AGE_MS = 24 * 60 * 60 * 1000;

const KEY_RE = /^[a-f0-9]{32}$/;
export const DICOM_MIME = "application/dicom";
export const ZIP_MIME = "application/zip";

export type UploadKind = "report" | "image" | "audio";

/** Sniffed type → stored mime type and the file extension the stored name gets. */
const TYPES: Record<string, { mime: string; ext: string; kinds: UploadKind[] }> = {
  pdf: { mime: "application/pdf", ext: "pdf", kinds: ["report"] },
  png: { mime: "image/png", ext: "png", kinds: ["report", "image"] },
  // An animated PNG is still a PNG to every browser.
  apng: { mime: "image/png", ext: "png", kinds: ["report", "image"] },
  jpg: { mime: "image/jpeg", ext: "jpg", kinds: ["report", "image"] },
  webp: { mime: "image/webp", ext: "webp", kinds: ["report", "image"] },
  gif: { mime: "image/gif", ext: "gif", kinds: ["report", "image"] },
  // Medical images (decision 0039): one DICOM Part 10 file, or a ZIP of one study (checked entry by
  // entry in dicom.server.ts before a report is made).
  dcm: { mime: DICOM_MIME, ext: "dcm", kinds: ["report"] },
  zip: { mime: ZIP_MIME, ext: "zip", kinds: ["report"] },
  // Voice notes (decision 0037): what browsers record (WebM/Opus, MP4/AAC on iOS), what phones'
  // recorder apps save (MP4/AAC, Ogg/Opus, MP3, WAV). Stored under the audio type every browser
  // plays, whatever file-type calls the container (WebM and MP4 are "video" to it).
  webm: { mime: "audio/webm", ext: "webm", kinds: ["audio"] },
  ogg: { mime: "audio/ogg", ext: "ogg", kinds: ["audio"] },
  opus: { mime: "audio/ogg", ext: "opus", kinds: ["audio"] },
  mp4: { mime: "audio/mp4", ext: "m4a", kinds: ["audio"] },
  m4a: { mime: "audio/mp4", ext: "m4a", kinds: ["audio"] },
  mp3: { mime: "audio/mpeg", ext: "mp3", kinds: ["audio"] },
  wav: { mime: "audio/wav", ext: "wav", kinds: ["audio"] },
};

const KIND_TYPES: Record<UploadKind, string> = {
  report: "PDF, PNG, JPEG, WebP, GIF, DICOM (.dcm, .zip)",
  image: "PNG, JPEG, WebP, GIF",
  audio: "WebM, Ogg, MP4/M4A, MP3, WAV",
};

/** Whether a stored report file is medical images (its study is read by dicom.server.ts). */
export function isStudyMime(mime: string): boolean {
  return mime === DICOM_MIME || mime === ZIP_MIME;
}

/** The largest report file any type may be: the form, the API and tus accept up to this. */
export function reportUploadMaxBytes(): number {
  const c = config();
  return Math.max(c.maxUploadBytes, c.maxStudyBytes);
}

/** The limit for a report file of this (sniffed) type: MAX_STUDY_MB for images, else MAX_UPLOAD_MB. */
export function maxBytesFor(mime: string): number {
  const c = config();
  return isStudyMime(mime) ? c.maxStudyBytes : c.maxUploadBytes;
}

export function tooLarge(maxBytes: number): DomainError {
  return new DomainError("too_large", "files.tooLarge", {
    values: { max: Number((maxBytes / (1024 * 1024)).toFixed(1)) },
  });
}

export type StoredFile = {
  key: string;
  mimeType: string;
  /** Plaintext size in bytes. */
  size: number;
  /** Sanitised display name whose extension matches the sniffed type. */
  fileName: string;
};

export function isValidKey(key: unknown): key is string {
  return typeof key === "string" && KEY_RE.test(key);
}

function assertKey(key: string) {
  if (!isValidKey(key)) throw new DomainError("not_found", "files.notFound");
}

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
 * The stored type of a file from its first bytes (at least `SNIFF_BYTES`, or the whole file):
 * DomainError unsupported_type unless it is one of the kind's types.
 */
export async function sniffType(sample: Buffer, allowed: UploadKind): Promise<{ mime: string; ext: string }> {
  // DICOM's "DICM" sits at offset 128 after a preamble anything may fill; a ZIP is decided by
  // its first local header here, not by what file-type guesses its entries make it (docx …).
  const ext =
    sample.length >= 132 && sample.subarray(128, 132).toString("latin1") === "DICM"
      ? "dcm"
      : sample.length >= 4 && sample.readUInt32LE(0) === 0x04034b50
        ? "zip"
        : (await fileTypeFromBuffer(sample.subarray(0, SNIFF_BYTES)))?.ext;
  const type = ext ? TYPES[ext] : undefined;
  if (!type || !type.kinds.includes(allowed)) {
    throw new DomainError("unsupported_type", "files.unsupportedType", {
      values: { types: KIND_TYPES[allowed] },
    });
  }
  return type;
}

/** How many leading bytes `sniffType` needs to decide (fewer only when the file is shorter). */
export const SNIFF_SAMPLE_BYTES = SNIFF_BYTES;

/**
 * Streams an upload to disk, encrypted, deciding its type from its first bytes.
 * Throws DomainError too_large (over maxBytes), invalid "files.empty" (no bytes) or
 * unsupported_type (not one of the kind's types); a failure leaves no file behind.
 */
export async function storeUpload(
  chunks: AsyncIterable<Uint8Array>,
  opts: { maxBytes: number; allowed: UploadKind; fileName?: string | null },
): Promise<StoredFile> {
  const key = randomBytes(16).toString("hex");
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
        if (headBytes >= SNIFF_BYTES) await start();
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

type OpenedObject = {
  /** The header bytes after magic and IV (a segment's start offset; empty for a report file). */
  extra: Buffer;
  /** Plaintext size in bytes. */
  size: number;
  /** The plaintext (decrypted lazily; errors when the tag does not match). */
  stream: Readable;
  /** Releases the underlying object stream when the plaintext is not read to its end. */
  close(): Promise<void>;
};

/**
 * Opens an encrypted object of either format: reads magic, IV and `extraBytes` more header bytes
 * before anything is handed out (so an unknown format fails cleanly), then decrypts lazily with
 * the AAD magic + key + extra header, holding back the last 16 bytes as the GCM tag.
 */
async function openObject(key: string, magic: Buffer, extraBytes: number): Promise<OpenedObject> {
  const object = await blobStore().get(key);
  if (!object) throw new DomainError("not_found", "files.notFound");
  const { stream, size } = object;
  const headerBytes = magic.length + IV_BYTES + extraBytes;
  if (size < headerBytes + TAG_BYTES + 1) {
    stream.destroy();
    throw new Error(`stored file ${key} is truncated`);
  }
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buffered = Buffer.alloc(0);
  try {
    while (buffered.length < headerBytes) {
      const next = await source.next();
      if (next.done) throw new Error(`stored file ${key} is truncated`);
      buffered = Buffer.concat([buffered, next.value]);
    }
    if (!buffered.subarray(0, magic.length).equals(magic))
      throw new Error(`stored file ${key} has an unknown format`);
  } catch (err) {
    await source.return?.();
    throw err;
  }
  const extra = Buffer.from(buffered.subarray(magic.length + IV_BYTES, headerBytes));
  const decipher = createDecipheriv(
    ALGORITHM,
    config().encryptionKey,
    buffered.subarray(magic.length, magic.length + IV_BYTES),
  ) as DecipherGCM;
  decipher.setAAD(Buffer.concat([magic, Buffer.from(key, "ascii"), extra]));
  const cipherEnd = size - TAG_BYTES; // ciphertext is bytes [headerBytes, cipherEnd)

  async function* plaintext(): AsyncGenerator<Buffer> {
    let pos = buffered.length; // bytes of the object read so far
    let tail: Buffer = buffered.subarray(headerBytes); // read but not yet decrypted (may hold tag bytes)
    try {
      for (;;) {
        // Everything before cipherEnd is ciphertext; the rest is (part of) the tag.
        const cipherInTail = Math.max(0, tail.length - Math.max(0, pos - cipherEnd));
        if (cipherInTail > 0) {
          const out = decipher.update(tail.subarray(0, cipherInTail));
          tail = tail.subarray(cipherInTail);
          if (out.length) yield out;
        }
        const next = await source.next();
        if (next.done) break;
        pos += next.value.length;
        tail = tail.length ? Buffer.concat([tail, next.value]) : next.value;
      }
      if (pos !== size || tail.length !== TAG_BYTES) throw new Error(`stored file ${key} is truncated`);
      decipher.setAuthTag(tail);
      const last = decipher.final(); // throws when the tag does not match: tampered or wrong key
      if (last.length) yield last;
    } finally {
      await source.return?.();
    }
  }
  const plain = Readable.from(plaintext(), { objectMode: false });
  return {
    extra,
    size: size - headerBytes - TAG_BYTES,
    stream: plain,
    close: async () => {
      plain.destroy();
      await source.return?.();
    },
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
}

/** Whether the stored file exists (used by tests and checks). */
export async function storedExists(key: string): Promise<boolean> {
  if (!isValidKey(key)) return false;
  return blobStore().exists(key);
}

// ---------------------------------------------------------------------------------------------
// Segments of resumable uploads (decision 0015)

/**
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
const UPLOAD_ID_CHARS = 24;
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
    among(reports, reports.fileKey),
    among(users, users.image),
    // Photos of a signature or thumbprint given as consent at a centre.
    among(patientConsents, patientConsents.evidenceKey),
    // Medical images: each instance of a ZIP and each cached preview is an object of its own.
    among(imagingInstances, imagingInstances.fileKey),
    among(imagingPreviews, imagingPreviews.key),
    among(voiceNotes, voiceNotes.fileKey),
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
