import { fileTypeFromBuffer } from "file-type";
import { config } from "~/config.server";
import { DomainError } from "../platform/errors";

/**
 * What a stored file may be: the types each kind of upload accepts, decided from the file's first
 * bytes (`sniffType`), and how large a report file may be.
 */

/** How many leading bytes the type sniffing looks at (file-type's own sample size). */
const SNIFF_BYTES = 4100;

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
  // entry in dicom-zip.server.ts before a report is made).
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
