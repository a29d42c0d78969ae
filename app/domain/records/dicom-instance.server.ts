import type { Readable } from "node:stream";
import { dcmjs } from "./dcmjs.server";
import { DomainError } from "../platform/errors";
import { openDecrypted } from "./files.server";

/**
 * One DICOM instance (decision 0039): its header read with dcmjs (never the pixels), the fields
 * that say who the person is, and its bytes read whole under a limit.
 */

/** One instance is read whole to be parsed or rendered: larger ones are refused. */
export const INSTANCE_MAX_BYTES = 256 * 1024 * 1024;
/** A ZIP with more entries than this is refused (a CD of one study has a few hundred to a few thousand). */
export const ZIP_MAX_ENTRIES = 5000;
/** An entry over 1 MB that inflates to more than this many times its compressed size is a bomb. */
export const ZIP_MAX_RATIO = 100;
/**
 * A whole archive (past 1 MB inflated) that inflates to more than this many times its own size is a
 * bomb, whatever its entries' sizes: real studies deflate 2–10 times (decision 0057).
 */
export const ZIP_ARCHIVE_RATIO = 20;

/** Fields that say who the person is, where they were seen and by whom (shown by name to the patient). */
export const PERSONAL_FIELDS = [
  "PatientName",
  "PatientID",
  "OtherPatientIDs",
  "PatientBirthDate",
  "PatientSex",
  "PatientAge",
  "PatientAddress",
  "PatientTelephoneNumbers",
  "PatientMotherBirthName",
  "InstitutionName",
  "InstitutionAddress",
  "ReferringPhysicianName",
  "PerformingPhysicianName",
  "OperatorsName",
  "AccessionNumber",
] as const;
export type PersonalField = (typeof PERSONAL_FIELDS)[number];

export type InstanceDraft = {
  id: string;
  fileKey: string;
  /** Whether this object is stored for the instance alone (a ZIP's entry), not the report's file. */
  own: boolean;
  studyUid: string;
  seriesUid: string;
  seriesNumber: number | null;
  seriesDescription: string | null;
  modality: string | null;
  instanceNumber: number | null;
  sopInstanceUid: string;
  rows: number;
  columns: number;
  frames: number;
  transferSyntax: string;
  size: number;
  bodyPart: string | null;
  studyDate: string | null;
  studyDescription: string | null;
  personal: Set<PersonalField>;
};

/** A refusal on the upload form's `report` field (400 unless another code is named). */
export const refuse = (
  key: string,
  values?: Record<string, string | number>,
  code: "invalid" | "too_large" = "invalid",
) => new DomainError(code, key, { fieldErrors: { report: [key] }, ...(values ? { values } : {}) });

const str = (v: unknown): string | null => {
  const x = Array.isArray(v) ? v[0] : v;
  if (x === undefined || x === null) return null;
  if (typeof x === "object") {
    const name = (x as { Alphabetic?: string }).Alphabetic;
    return name ? String(name).trim() || null : null;
  }
  const s = String(x).trim();
  return s ? s.slice(0, 200) : null;
};
const int = (v: unknown): number | null => {
  const n = Number(str(v));
  return Number.isFinite(n) ? Math.trunc(n) : null;
};

/** Reads one instance's header (never its pixel data) with dcmjs; a file that is not DICOM is refused. */
export function parseInstance(bytes: Buffer): Omit<InstanceDraft, "id" | "fileKey" | "own"> {
  if (bytes.length < 132 || bytes.subarray(128, 132).toString("latin1") !== "DICM") {
    throw refuse("imaging.notDicom");
  }
  let meta: Record<string, { Value?: unknown[] }>;
  let data: Record<string, unknown>;
  try {
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    const parsed = dcmjs().data.DicomMessage.readFile(ab, {
      untilTag: "7FE00010",
      includeUntilTagValue: false,
    });
    meta = parsed.meta;
    data = dcmjs().data.DicomMetaDictionary.naturalizeDataset(parsed.dict) as Record<string, unknown>;
  } catch {
    throw refuse("imaging.unreadable");
  }
  const studyUid = str(data.StudyInstanceUID);
  const seriesUid = str(data.SeriesInstanceUID);
  const sop = str(data.SOPInstanceUID);
  const transferSyntax = str(meta["00020010"]?.Value);
  if (!studyUid || !seriesUid || !sop || !transferSyntax) throw refuse("imaging.unreadable");
  const personal = new Set<PersonalField>();
  for (const f of PERSONAL_FIELDS) if (str(data[f])) personal.add(f);
  return {
    studyUid,
    seriesUid,
    seriesNumber: int(data.SeriesNumber),
    seriesDescription: str(data.SeriesDescription),
    modality: str(data.Modality),
    instanceNumber: int(data.InstanceNumber),
    sopInstanceUid: sop,
    rows: int(data.Rows) ?? 0,
    columns: int(data.Columns) ?? 0,
    frames: Math.max(1, int(data.NumberOfFrames) ?? 1),
    transferSyntax,
    size: bytes.length,
    bodyPart: str(data.BodyPartExamined),
    studyDate: str(data.StudyDate),
    studyDescription: str(data.StudyDescription),
    personal,
  };
}

/** One buffer as the stream `storeUpload` takes. */
export async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

/**
 * A stream read whole, refused past `max` bytes; `counted` sees the running size after each chunk
 * and may throw to stop reading at once (the stream is destroyed either way).
 */
export async function readAll(
  stream: Readable,
  max: number,
  counted?: (size: number) => void,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw refuse("imaging.instanceTooLarge");
      counted?.(size);
      parts.push(chunk);
    }
  } catch (err) {
    stream.destroy();
    throw err;
  }
  return Buffer.concat(parts, size);
}

/** The bytes of one stored instance (its own object, or the report's file for a single .dcm). */
export async function readInstanceBytes(fileKey: string): Promise<Buffer> {
  return readAll(await openDecrypted(fileKey), INSTANCE_MAX_BYTES);
}
