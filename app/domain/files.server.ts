import { createCipheriv, createDecipheriv, randomBytes, type CipherGCM } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readdir, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { pipeline, type Readable } from "node:stream";
import { fileTypeFromBuffer } from "file-type";
import { config } from "~/config.server";
import { sqlite } from "~/db/client.server";
import { log } from "~/utils/log.server";
import { releaseUploadGarbage } from "~/utils/memory.server";
import { DomainError } from "./errors";

/**
 * Encrypted file store for report files and display pictures.
 *
 * On-disk format of `<uploadsDir>/<key>.enc` (AES-256-GCM, key = config().encryptionKey):
 *
 *   offset 0   4 bytes   magic "CBF1" (CareBridge file, format version 1)
 *   offset 4  12 bytes   IV (random per file)
 *   offset 16  n bytes   ciphertext (n = plaintext size)
 *   end-16    16 bytes   GCM authentication tag
 *
 * The additional authenticated data is the magic followed by the file's key, so a file
 * renamed to another key (e.g. swapped between two reports) fails authentication.
 *
 * Uploads are streamed chunk by chunk to `<uploadsDir>/<key>.part` (never held whole in
 * memory), fsynced, then renamed atomically to `<key>.enc` (and the folder fsynced). A
 * failed upload removes its `.part` file; `sweepLeftovers()` removes whatever a crash left.
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
/** Temp files and unreferenced files younger than this are left alone by the sweep. */
const SWEEP_MIN_AGE_MS = 10 * 60 * 1000;

const KEY_RE = /^[a-f0-9]{32}$/;
const ENC_FILE_RE = /^([a-f0-9]{32})\.enc$/;
const PART_FILE_RE = /^[a-f0-9]{32}\.part$/;

export type UploadKind = "report" | "image";

/** Sniffed type → stored mime type and the file extension the stored name gets. */
const TYPES: Record<string, { mime: string; ext: string; kinds: UploadKind[] }> = {
  pdf: { mime: "application/pdf", ext: "pdf", kinds: ["report"] },
  png: { mime: "image/png", ext: "png", kinds: ["report", "image"] },
  // An animated PNG is still a PNG to every browser.
  apng: { mime: "image/png", ext: "png", kinds: ["report", "image"] },
  jpg: { mime: "image/jpeg", ext: "jpg", kinds: ["report", "image"] },
  webp: { mime: "image/webp", ext: "webp", kinds: ["report", "image"] },
  gif: { mime: "image/gif", ext: "gif", kinds: ["report", "image"] },
};

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

function uploadsDir() {
  return config().uploadsDir;
}

function encPath(key: string) {
  return path.join(uploadsDir(), `${key}.enc`);
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

async function unlinkQuiet(file: string) {
  try {
    await unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

async function fsyncDir(dir: string) {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch {
    // Not supported on every platform (e.g. Windows); the rename itself is still atomic.
  } finally {
    await fh?.close().catch(() => {});
  }
}

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
  const dir = uploadsDir();
  const partPath = path.join(dir, `${key}.part`);
  const finalPath = path.join(dir, `${key}.enc`);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, config().encryptionKey, iv) as CipherGCM;
  cipher.setAAD(aad(key));

  let fh: FileHandle | undefined;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let sinceCollect = 0;
  let size = 0;
  let head: Buffer[] = [];
  let headBytes = 0;
  let sniffed: { mime: string; ext: string } | undefined;

  const flush = async () => {
    if (!pendingBytes) return;
    const bufs = pending;
    pending = [];
    pendingBytes = 0;
    await fh!.writev(bufs);
    sinceCollect += bufs.reduce((n, b) => n + b.length, 0);
    if (sinceCollect >= GARBAGE_EVERY_BYTES) {
      sinceCollect = 0;
      releaseUploadGarbage();
    }
  };
  const push = async (plain: Buffer) => {
    const enc = cipher.update(plain);
    if (enc.length) {
      pending.push(enc);
      pendingBytes += enc.length;
    }
    if (pendingBytes >= WRITE_BATCH_BYTES) await flush();
  };
  const sniff = async () => {
    const sample = Buffer.concat(head, headBytes);
    head = [];
    const found = await fileTypeFromBuffer(sample.subarray(0, SNIFF_BYTES));
    const type = found ? TYPES[found.ext] : undefined;
    if (!type || !type.kinds.includes(opts.allowed)) {
      throw new DomainError("unsupported_type", "files.unsupportedType", {
        values: { types: opts.allowed === "report" ? "PDF, PNG, JPEG, WebP, GIF" : "PNG, JPEG, WebP, GIF" },
      });
    }
    sniffed = type;
    fh = await open(partPath, "wx", 0o600);
    await fh.write(Buffer.concat([MAGIC, iv]));
    await push(sample);
  };

  try {
    for await (const chunk of chunks) {
      if (!chunk || chunk.byteLength === 0) continue;
      size += chunk.byteLength;
      if (size > opts.maxBytes) {
        throw new DomainError("too_large", "files.tooLarge", {
          values: { max: Number((opts.maxBytes / (1024 * 1024)).toFixed(1)) },
        });
      }
      if (!sniffed) {
        // Copied: the producer may reuse its buffer once we ask for the next chunk.
        head.push(Buffer.from(chunk));
        headBytes += chunk.byteLength;
        if (headBytes >= SNIFF_BYTES) await sniff();
      } else {
        // A view is enough: cipher.update() copies into its output.
        await push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
    }
    if (size === 0) throw new DomainError("invalid", "files.empty");
    if (!sniffed) await sniff();
    const final = cipher.final();
    if (final.length) {
      pending.push(final);
      pendingBytes += final.length;
    }
    pending.push(cipher.getAuthTag());
    pendingBytes += TAG_BYTES;
    await flush();
    await fh!.sync();
    await fh!.close();
    fh = undefined;
    await rename(partPath, finalPath);
    await fsyncDir(dir);
  } catch (err) {
    await fh?.close().catch(() => {});
    await unlinkQuiet(partPath).catch(() => {});
    throw err;
  }
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
  const file = encPath(key);
  let fh: FileHandle;
  try {
    fh = await open(file, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new DomainError("not_found", "files.notFound");
    throw err;
  }
  let header: Buffer;
  let tag: Buffer;
  let total: number;
  try {
    total = (await fh.stat()).size;
    if (total < HEADER_BYTES + TAG_BYTES + 1) throw new Error(`stored file ${key} is truncated`);
    header = Buffer.alloc(HEADER_BYTES);
    tag = Buffer.alloc(TAG_BYTES);
    await fh.read(header, 0, HEADER_BYTES, 0);
    await fh.read(tag, 0, TAG_BYTES, total - TAG_BYTES);
  } finally {
    await fh.close();
  }
  if (!header.subarray(0, MAGIC.length).equals(MAGIC))
    throw new Error(`stored file ${key} has an unknown format`);
  const iv = header.subarray(MAGIC.length, HEADER_BYTES);
  const decipher = createDecipheriv(ALGORITHM, config().encryptionKey, iv);
  decipher.setAAD(aad(key));
  decipher.setAuthTag(tag);
  const source = createReadStream(file, { start: HEADER_BYTES, end: total - TAG_BYTES - 1 });
  // pipeline destroys both on error, so a failed tag check surfaces as an 'error' event.
  return pipeline(source, decipher, () => {});
}

/** Removes a stored file; a missing file is not an error. */
export async function deleteStored(key: string): Promise<void> {
  if (!isValidKey(key)) return;
  await unlinkQuiet(encPath(key));
}

/** Whether the stored file exists (used by tests and checks). */
export async function storedExists(key: string): Promise<boolean> {
  if (!isValidKey(key)) return false;
  try {
    await stat(encPath(key));
    return true;
  } catch {
    return false;
  }
}

/**
 * Start-up hygiene: removes `.part` files older than a few minutes (crashed uploads) and
 * `.enc` files no report or user picture references (e.g. a crash between storing and
 * inserting the row). Young files are kept, so it is safe while uploads are running.
 */
export async function sweepLeftovers(
  now = Date.now(),
): Promise<{ removedParts: number; removedOrphans: number }> {
  const dir = uploadsDir();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { removedParts: 0, removedOrphans: 0 };
    throw err;
  }
  const old = async (name: string) => {
    try {
      return now - (await stat(path.join(dir, name))).mtimeMs > SWEEP_MIN_AGE_MS;
    } catch {
      return false;
    }
  };
  let referenced: Set<string> | undefined;
  const isReferenced = (key: string) => {
    if (!referenced) {
      referenced = new Set<string>();
      const db = sqlite();
      for (const r of db.prepare("SELECT file_key AS k FROM reports").iterate() as Iterable<{ k: string }>) {
        referenced.add(r.k);
      }
      for (const r of db
        .prepare("SELECT image AS k FROM users WHERE image IS NOT NULL")
        .iterate() as Iterable<{ k: string }>) {
        referenced.add(r.k);
      }
    }
    return referenced.has(key);
  };
  let removedParts = 0;
  let removedOrphans = 0;
  for (const name of names) {
    if (PART_FILE_RE.test(name)) {
      if (await old(name)) {
        await unlinkQuiet(path.join(dir, name));
        removedParts++;
      }
      continue;
    }
    const m = ENC_FILE_RE.exec(name);
    if (m && !isReferenced(m[1]) && (await old(name))) {
      await unlinkQuiet(path.join(dir, name));
      removedOrphans++;
    }
  }
  if (removedParts || removedOrphans) log("info", "upload sweep", { removedParts, removedOrphans });
  return { removedParts, removedOrphans };
}
