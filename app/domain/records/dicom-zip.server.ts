import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { config } from "~/config.server";
import { newId } from "~/utils/ids.server";
import {
  INSTANCE_MAX_BYTES,
  once,
  parseInstance,
  readAll,
  refuse,
  ZIP_MAX_ENTRIES,
  ZIP_MAX_RATIO,
  type InstanceDraft,
} from "./dicom-instance.server";
import { openDecrypted, storeUpload, type StoredFile } from "./files.server";

/**
 * A ZIP of one study (decision 0039), read through its central directory (yauzl), from a temporary
 * copy encrypted with a key that only this process holds for the few seconds it exists (AES-CTR,
 * so any range can be read). Path tricks, links and bombs are refused before any entry is
 * inflated; each DICOM instance found is stored as an encrypted object of its own.
 */

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

class CopyReader extends yauzl.RandomAccessReader {
  constructor(private copy: TempCopy) {
    super();
  }
  _readStreamForRange(start: number, end: number): Readable {
    const block = Math.floor(start / 16);
    const from = block * 16;
    let skip = start - from;
    const decipher = createDecipheriv("aes-256-ctr", this.copy.key, ivAt(this.copy.iv, block));
    const cut = new Transform({
      transform(chunk: Buffer, _enc, done) {
        if (skip >= chunk.length) {
          skip -= chunk.length;
          return done();
        }
        const out = chunk.subarray(skip);
        skip = 0;
        done(null, out);
      },
    });
    const raw = createReadStream(this.copy.file, { start: from, end: end - 1 });
    raw.on("error", (e) => cut.destroy(e));
    decipher.on("error", (e) => cut.destroy(e));
    return raw.pipe(decipher).pipe(cut);
  }
}

/** A ZIP entry name that leaves its folder (`..`, an absolute or drive path). */
function escapes(name: string): boolean {
  const n = name.replace(/\\/g, "/");
  return /^\//.test(n) || /^[a-zA-Z]:/.test(n) || n.split("/").includes("..");
}

export async function readZipStudy(file: StoredFile, stored: string[]): Promise<InstanceDraft[]> {
  const maxTotal = config().maxStudyBytes * 4;
  const copy = await tempCopy(file.key);
  try {
    const zip = await yauzl.fromRandomAccessReaderPromise(new CopyReader(copy), copy.size, {
      lazyEntries: true,
      // The entries are opened after the directory has been read to its end: closed by us.
      autoClose: false,
      decodeStrings: false,
      validateEntrySizes: true,
    });
    try {
      if (zip.entryCount > ZIP_MAX_ENTRIES) throw refuse("imaging.zipTooMany", { max: ZIP_MAX_ENTRIES });
      // Every entry's name and sizes are checked before any is inflated.
      const entries: yauzl.Entry[] = [];
      let total = 0;
      for (;;) {
        const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
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
          total > maxTotal ||
          entry.uncompressedSize > INSTANCE_MAX_BYTES ||
          (entry.uncompressedSize > 1024 * 1024 &&
            entry.uncompressedSize / Math.max(1, entry.compressedSize) > ZIP_MAX_RATIO)
        ) {
          throw refuse("imaging.zipBomb");
        }
        // Encrypted entries cannot be read: left out like any other entry that is not DICOM.
        if (entry.generalPurposeBitFlag & 1) continue;
        entries.push(entry);
      }
      const found: InstanceDraft[] = [];
      const seen = new Set<string>();
      for (const entry of entries) {
        // Sizes were checked above; yauzl also stops an entry that inflates past its declared size.
        const bytes = await readAll(await zip.openReadStreamPromise(entry), INSTANCE_MAX_BYTES);
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
        const own = await storeUpload(once(bytes), {
          maxBytes: INSTANCE_MAX_BYTES,
          allowed: "report",
          fileName: "instance.dcm",
        });
        stored.push(own.key);
        found.push({ ...parsed, id: newId(), fileKey: own.key, own: true });
      }
      if (!found.length) throw refuse("imaging.zipNoDicom");
      return found;
    } finally {
      zip.close();
    }
  } finally {
    await unlink(copy.file).catch(() => {});
  }
}
