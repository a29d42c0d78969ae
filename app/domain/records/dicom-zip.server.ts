import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { closeSync, createWriteStream, openSync, readSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32, inflateRawSync } from "node:zlib";
import yauzl from "yauzl";
import { config } from "~/config.server";
import { newId } from "~/lib/ids.server";
import {
  INSTANCE_MAX_BYTES,
  once,
  parseInstance,
  readAll,
  refuse,
  ZIP_ARCHIVE_RATIO,
  ZIP_MAX_ENTRIES,
  ZIP_MAX_RATIO,
  type InstanceDraft,
} from "./dicom-instance.server";
import { openDecrypted, storeUpload, type StoredFile } from "./files.server";

/**
 * A ZIP of one study (decision 0039), read through its central directory (yauzl), from a temporary
 * copy encrypted with a key that only this process holds for the few seconds it exists (AES-CTR,
 * so any range can be read). Path tricks, links and bombs are refused before any entry is
 * inflated (and the inflated bytes counted again while reading); each DICOM instance found is
 * stored as an encrypted object of its own, a few at a time.
 */

/** Bytes read from the temporary copy at once. */
const READ_CHUNK = 64 * 1024;

type TempCopy = { file: string; key: Buffer; iv: Buffer; size: number };

async function tempCopy(fileKey: string): Promise<TempCopy> {
  const copy = {
    file: path.join(tmpdir(), `carebridge-zip-${randomBytes(12).toString("hex")}`),
    key: randomBytes(32),
    // The low 64 bits are the block counter (never wraps for any file we accept).
    iv: Buffer.concat([randomBytes(8), Buffer.alloc(8)]),
    size: 0,
  };
  const source = await openDecrypted(fileKey);
  const counting = new Transform({
    transform(chunk: Buffer, _enc, done) {
      copy.size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(
    source,
    counting,
    createCipheriv("aes-256-ctr", copy.key, copy.iv),
    createWriteStream(copy.file, { mode: 0o600 }),
  );
  return copy;
}

function ivAt(iv: Buffer, block: number): Buffer {
  const out = Buffer.from(iv);
  out.writeBigUInt64BE(BigInt(block), 8);
  return out;
}

/**
 * Reads the temporary copy through one descriptor, with positional reads that do not wait for
 * libuv's threadpool: the copy was just written (the page cache holds it), and the threadpool is
 * busy with the instances being stored (their fsyncs), which would otherwise stall every read.
 */
class CopyReader extends yauzl.RandomAccessReader {
  private fd: number | null;
  constructor(private copy: TempCopy) {
    super();
    this.fd = openSync(copy.file, "r");
  }
  private chunk(position: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    const got = readSync(this.fd ?? -1, out, 0, length, position);
    return got === length ? out : out.subarray(0, got);
  }
  _readStreamForRange(start: number, end: number): Readable {
    const block = Math.floor(start / 16);
    let at = block * 16;
    let skip = start - at;
    const decipher = createDecipheriv("aes-256-ctr", this.copy.key, ivAt(this.copy.iv, block));
    const stream: Readable = new Readable({
      highWaterMark: READ_CHUNK,
      read: () => {
        try {
          if (at >= end) {
            stream.push(null);
            return;
          }
          const raw = this.chunk(at, Math.min(READ_CHUNK, end - at));
          if (!raw.length) throw new Error("the temporary copy ended early");
          at += raw.length;
          let plain = decipher.update(raw);
          if (skip) {
            plain = plain.subarray(Math.min(skip, plain.length));
            skip = 0;
          }
          stream.push(plain);
        } catch (err) {
          stream.destroy(err as Error);
        }
      },
    });
    return stream;
  }
  close(callback: (err: Error | null) => void): void {
    this.release();
    setImmediate(() => callback(null));
  }
  /** Closes the descriptor (once). */
  release(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** A ZIP entry name that leaves its folder (`..`, an absolute or drive path). */
function escapes(name: string): boolean {
  const n = name.replace(/\\/g, "/");
  return /^\//.test(n) || /^[a-zA-Z]:/.test(n) || n.split("/").includes("..");
}

/** Instances being stored at once (their writes and fsyncs overlap), and the bytes they may hold. */
const STORE_PARALLEL = 8;
const STORE_PARALLEL_BYTES = 32 * 1024 * 1024;
/** Below this much inflated in all, an archive's ratio is not checked (at most this is stored). */
const RATIO_FLOOR_BYTES = 1024 * 1024;

/**
 * The instances of a ZIP of one study, each stored as an object of its own (its key pushed to
 * `stored` as soon as it exists, so the caller removes them all on refusal). What one archive may
 * cost is bounded whatever its entries' sizes (decision 0057): at most MAX_STUDY_MB inflated in all
 * (`imaging.zipTooLarge`), and at most ZIP_ARCHIVE_RATIO times the archive's own size once past
 * 1 MB (`imaging.zipBomb`) — checked on the declared sizes before anything is inflated, and again
 * on the bytes actually inflated, entry by entry, stopping at the first byte over.
 */
export async function readZipStudy(file: StoredFile, stored: string[]): Promise<InstanceDraft[]> {
  const copy = await tempCopy(file.key);
  const maxInflated = Math.max(1, config().maxStudyBytes);
  const over = (total: number) =>
    total > maxInflated
      ? refuse("imaging.zipTooLarge", {}, "too_large")
      : total > RATIO_FLOOR_BYTES && total > ZIP_ARCHIVE_RATIO * copy.size
        ? refuse("imaging.zipBomb")
        : null;
  const reader = new CopyReader(copy);
  try {
    const zip = await yauzl.fromRandomAccessReaderPromise(reader, copy.size, {
      lazyEntries: true,
      // The entries are opened after the directory has been read to its end: closed by us.
      autoClose: false,
      decodeStrings: false,
      validateEntrySizes: true,
    });
    try {
      if (zip.entryCount > ZIP_MAX_ENTRIES) throw refuse("imaging.zipTooMany");
      // Every entry's name and sizes are checked before any is inflated.
      const entries: yauzl.Entry[] = [];
      let total = 0;
      for (;;) {
        const entry = await nextEntry(zip);
        if (!entry) break;
        const name = Buffer.isBuffer(entry.fileName)
          ? (entry.fileName as unknown as Buffer).toString("utf8")
          : String(entry.fileName);
        if (escapes(name)) throw refuse("imaging.zipPathTrick");
        const kind = (entry.externalFileAttributes >>> 16) & 0o170000;
        if (kind === 0o120000) throw refuse("imaging.zipPathTrick");
        if (name.endsWith("/") || name.endsWith("\\")) continue;
        total += entry.uncompressedSize;
        if (
          entry.uncompressedSize > INSTANCE_MAX_BYTES ||
          (entry.uncompressedSize > 1024 * 1024 &&
            entry.uncompressedSize / Math.max(1, entry.compressedSize) > ZIP_MAX_RATIO)
        ) {
          throw refuse("imaging.zipBomb");
        }
        const refusal = over(total);
        if (refusal) throw refusal;
        // Encrypted entries cannot be read: left out like any other entry that is not DICOM.
        if (entry.generalPurposeBitFlag & 1) continue;
        entries.push(entry);
      }
      const found: InstanceDraft[] = [];
      const seen = new Set<string>();
      const storing = new Set<Promise<void>>();
      let storingBytes = 0;
      let inflated = 0;
      let failure: unknown = null;
      try {
        for (const entry of entries) {
          const bytes = await inflateEntry(zip, entry, (n) => {
            const refusal = over(inflated + n);
            if (refusal) throw refusal;
          });
          inflated += bytes.length;
          // Not DICOM (a DICOMDIR index is, but has no image; README, autorun.inf, a viewer program): left out.
          if (bytes.length < 132 || bytes.subarray(128, 132).toString("latin1") !== "DICM") continue;
          let parsed;
          try {
            parsed = parseInstance(bytes);
          } catch {
            continue; // a DICOMDIR or another file without an image
          }
          if (!parsed.rows || !parsed.columns) continue;
          if (found.length && parsed.studyUid !== found[0].studyUid) throw refuse("imaging.oneStudy");
          if (seen.has(parsed.sopInstanceUid)) continue;
          seen.add(parsed.sopInstanceUid);
          const draft: InstanceDraft = { ...parsed, id: newId(), fileKey: "", own: true };
          found.push(draft);
          while (
            storing.size >= STORE_PARALLEL ||
            (storing.size && storingBytes + bytes.length > STORE_PARALLEL_BYTES)
          )
            await Promise.race(storing);
          if (failure) throw failure;
          storingBytes += bytes.length;
          // Never rejects: a failed store is kept in `failure` and thrown by the loop.
          const task: Promise<void> = storeUpload(once(bytes), {
            maxBytes: INSTANCE_MAX_BYTES,
            allowed: "report",
            fileName: "instance.dcm",
          })
            .then(
              (own) => {
                stored.push(own.key);
                draft.fileKey = own.key;
              },
              (err: unknown) => {
                failure ??= err;
              },
            )
            .finally(() => {
              storing.delete(task);
              storingBytes -= bytes.length;
            });
          storing.add(task);
        }
      } finally {
        // Every store ends before the caller removes what was stored (a refusal, or a failed store).
        await Promise.all(storing);
      }
      if (failure) throw failure;
      if (!found.length) throw refuse("imaging.zipNoDicom");
      return found;
    } finally {
      zip.close();
    }
  } finally {
    reader.release();
    await unlink(copy.file).catch(() => {});
  }
}

/** Entries this small (compressed) are inflated in one call, off the threadpool; larger ones stream. */
const INFLATE_AT_ONCE_BYTES = 1024 * 1024;

/**
 * One entry's bytes, never more than its declared size (yauzl stops a stream that inflates past
 * it; a small entry is inflated with that size as the output limit), its CRC checked; `counted`
 * sees the running size and may stop the reading. A small entry is read raw and inflated in one
 * synchronous call: zlib's streams wait for libuv's threadpool, which the instances being stored
 * keep busy with their fsyncs, and a CD is thousands of small entries.
 */
async function inflateEntry(
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  counted: (size: number) => void,
): Promise<Buffer> {
  // Stored entries (read without the threadpool already) and large ones: yauzl's own stream.
  if (entry.compressionMethod !== 8 || entry.compressedSize > INFLATE_AT_ONCE_BYTES)
    return readAll(await zip.openReadStreamPromise(entry), INSTANCE_MAX_BYTES, counted);
  const raw = await readAll(
    await zip.openReadStreamPromise(entry, { decompress: false } as yauzl.ZipFileOptions),
    INFLATE_AT_ONCE_BYTES,
  );
  counted(entry.uncompressedSize);
  let bytes: Buffer;
  try {
    bytes = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } catch {
    throw new Error("an entry did not inflate to its declared size");
  }
  if (bytes.length !== entry.uncompressedSize || crc32(bytes) !== entry.crc32)
    throw new Error("an entry does not match its declared size or CRC");
  return bytes;
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise<yauzl.Entry | null>((resolve, reject) => {
    const onEntry = (e: yauzl.Entry) => {
      zip.off("end", onEnd);
      zip.off("error", onError);
      resolve(e);
    };
    const onEnd = () => {
      zip.off("entry", onEntry);
      zip.off("error", onError);
      resolve(null);
    };
    const onError = (err: Error) => {
      zip.off("entry", onEntry);
      zip.off("end", onEnd);
      reject(err);
    };
    zip.once("entry", onEntry);
    zip.once("end", onEnd);
    zip.once("error", onError);
    zip.readEntry();
  });
}
