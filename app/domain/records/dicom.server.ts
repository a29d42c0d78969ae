import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import dcmjs from "dcmjs";
import { asc, eq, inArray } from "drizzle-orm";
import yauzl from "yauzl";
import { config } from "~/config.server";
import { db, exec, type DB, type TxSteps } from "~/db/client.server";
import { imagingInstances, imagingPreviews, imagingStudies } from "~/db/schema";
import { newId } from "~/utils/ids.server";
import { log } from "~/utils/log.server";
import { DomainError, isDomainError } from "../platform/errors";
import { DICOM_MIME, isStudyMime, ZIP_MIME } from "./file-types.server";
import { deleteStored, openDecrypted, storeUpload, type StoredFile } from "./files.server";

/**
 * Medical images (decision 0039): a report file that is one DICOM Part 10 file or a ZIP of one
 * study. Before the report is made, `inspectStudy` reads every instance's header with dcmjs
 * (never the pixels) and checks a ZIP entry by entry; each instance of a ZIP is stored as an
 * encrypted object of its own (the previews and the PACS hand-off read one instance at a time).
 * What the files say about the person (names of the fields only) is kept, so the patient is
 * told what they carry.
 */

/** One instance is read whole to be parsed or rendered: larger ones are refused. */
export const INSTANCE_MAX_BYTES = 256 * 1024 * 1024;
/** A ZIP with more entries than this is refused (a CD of one study has a few hundred). */
export const ZIP_MAX_ENTRIES = 5000;
/** An entry that inflates to more than this many times its compressed size is a bomb. */
export const ZIP_MAX_RATIO = 100;

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

type InstanceDraft = {
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

export type StudyDraft = {
  studyUid: string;
  modality: string | null;
  bodyPart: string | null;
  studyDate: string | null;
  description: string | null;
  personalFields: PersonalField[];
  instances: Omit<InstanceDraft, "studyUid" | "bodyPart" | "studyDate" | "studyDescription" | "personal">[];
};

const refuse = (key: string, values?: Record<string, string | number>) =>
  new DomainError("invalid", key, { fieldErrors: { report: [key] }, ...(values ? { values } : {}) });

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
    const parsed = dcmjs.data.DicomMessage.readFile(ab, {
      untilTag: "7FE00010",
      includeUntilTagValue: false,
    });
    meta = parsed.meta;
    data = dcmjs.data.DicomMetaDictionary.naturalizeDataset(parsed.dict) as Record<string, unknown>;
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

async function readAll(stream: Readable, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      stream.destroy();
      throw refuse("imaging.instanceTooLarge", { max: Math.round(max / (1024 * 1024)) });
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts, size);
}

/** The bytes of one stored instance (its own object, or the report's file for a single .dcm). */
export async function readInstanceBytes(fileKey: string): Promise<Buffer> {
  return readAll(await openDecrypted(fileKey), INSTANCE_MAX_BYTES);
}

function summarise(found: InstanceDraft[]): StudyDraft {
  const first = found[0];
  const personal = new Set<PersonalField>();
  for (const i of found) for (const f of i.personal) personal.add(f);
  const pick = <K extends keyof InstanceDraft>(k: K) => found.find((i) => i[k])?.[k] ?? null;
  return {
    studyUid: first.studyUid,
    modality: (pick("modality") as string | null) ?? null,
    bodyPart: (pick("bodyPart") as string | null) ?? null,
    studyDate: (pick("studyDate") as string | null) ?? null,
    description: (pick("studyDescription") as string | null) ?? null,
    personalFields: PERSONAL_FIELDS.filter((f) => personal.has(f)),
    instances: found.map(
      ({ studyUid: _s, bodyPart: _b, studyDate: _d, studyDescription: _sd, personal: _p, ...rest }) => rest,
    ),
  };
}

/**
 * A report file of medical images, checked and read before its report is made: a single DICOM
 * file, or a ZIP whose DICOM entries (by their bytes) are all of one study. Refusals (a DomainError
 * on the `report` field): not DICOM, unreadable, a ZIP with path tricks, links, a bomb, more than
 * one study, or no DICOM at all. Objects stored for a ZIP's instances are removed on refusal.
 */
export async function inspectStudy(file: StoredFile): Promise<StudyDraft | null> {
  if (!isStudyMime(file.mimeType)) return null;
  if (file.mimeType === DICOM_MIME) {
    if (file.size > INSTANCE_MAX_BYTES)
      throw refuse("imaging.instanceTooLarge", { max: Math.round(INSTANCE_MAX_BYTES / (1024 * 1024)) });
    const parsed = parseInstance(await readInstanceBytes(file.key));
    return summarise([{ ...parsed, id: newId(), fileKey: file.key, own: false }]);
  }
  const stored: string[] = [];
  try {
    const found = await readZipStudy(file, stored);
    return summarise(found);
  } catch (err) {
    for (const key of stored) await deleteStored(key).catch(() => {});
    if (isDomainError(err)) throw err;
    log("info", "zip refused", { error: String((err as Error)?.message ?? err) });
    throw refuse("imaging.badZip");
  }
}

// ---------------------------------------------------------------------------------------------
// ZIP: read through its central directory (yauzl), from a temporary copy encrypted with a key
// that only this process holds for the few seconds it exists (AES-CTR, so any range can be read).

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

async function readZipStudy(file: StoredFile, stored: string[]): Promise<InstanceDraft[]> {
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

// ---------------------------------------------------------------------------------------------
// Rows

/** In the report's transaction: the study and its instances (PACS queued when PACS_URL is set). */
export function* insertStudy(tx: DB, reportId: string, draft: StudyDraft): TxSteps<void> {
  const pacs = Boolean(config().pacsUrl);
  yield* exec(
    tx.insert(imagingStudies).values({
      reportId,
      studyUid: draft.studyUid,
      modality: draft.modality,
      bodyPart: draft.bodyPart,
      studyDate: draft.studyDate,
      description: draft.description,
      personalFields: JSON.stringify(draft.personalFields),
      pacsStatus: pacs ? "queued" : "none",
      pacsNextAt: pacs ? new Date() : null,
      createdAt: new Date(),
    }),
  );
  yield* exec(
    tx.insert(imagingInstances).values(
      draft.instances.map((i) => ({
        id: i.id,
        reportId,
        fileKey: i.fileKey,
        seriesUid: i.seriesUid,
        seriesNumber: i.seriesNumber,
        seriesDescription: i.seriesDescription,
        modality: i.modality,
        instanceNumber: i.instanceNumber,
        sopInstanceUid: i.sopInstanceUid,
        rows: i.rows,
        columns: i.columns,
        frames: i.frames,
        transferSyntax: i.transferSyntax,
        size: i.size,
      })),
    ),
  );
}

/** The objects a draft stored beside the report's own file (removed when the report is not made). */
export function draftObjects(draft: StudyDraft | null): string[] {
  return draft ? draft.instances.filter((i) => i.own).map((i) => i.fileKey) : [];
}

/**
 * Every object a report's study holds besides the report's own file (the instances of a ZIP and
 * the cached previews). Read BEFORE the report's row is deleted (the rows cascade); the caller
 * removes the objects after, and the sweep catches whatever a crash leaves.
 */
export async function studyObjects(reportIds: string[]): Promise<string[]> {
  if (!reportIds.length) return [];
  const [inst, prev] = await Promise.all([
    db()
      .select({ k: imagingInstances.fileKey })
      .from(imagingInstances)
      .where(inArray(imagingInstances.reportId, reportIds)),
    db()
      .select({ k: imagingPreviews.key })
      .from(imagingPreviews)
      .innerJoin(imagingInstances, eq(imagingPreviews.instanceId, imagingInstances.id))
      .where(inArray(imagingInstances.reportId, reportIds)),
  ]);
  return [...new Set([...inst.map((r) => r.k), ...prev.map((r) => r.k)])];
}

// ---------------------------------------------------------------------------------------------
// Reading a study (access is decided by the caller, consultation's study functions)

export type StudyInstance = {
  id: string;
  instanceNumber: number | null;
  sopInstanceUid: string;
  rows: number;
  columns: number;
  frames: number;
  transferSyntax: string;
};
export type StudySeries = {
  seriesUid: string;
  seriesNumber: number | null;
  description: string | null;
  modality: string | null;
  instances: StudyInstance[];
  frames: number;
};
export type PacsStatus = "none" | "queued" | "sending" | "sent" | "failed";
export type Study = {
  studyUid: string;
  modality: string | null;
  bodyPart: string | null;
  /** ISO date (YYYY-MM-DD) when the file gives a valid one. */
  studyDate: string | null;
  description: string | null;
  personalFields: PersonalField[];
  series: StudySeries[];
  instanceCount: number;
  pacs: { status: PacsStatus; attempts: number; sentAt: string | null; error: string | null };
  /** `${OHIF_URL}/viewer?StudyInstanceUIDs=…` when OHIF_URL is set. */
  viewerUrl: string | null;
};

const isoDate = (d: string | null) =>
  d && /^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}` : null;

/** The study of a report (null when its file is not medical images). No access check here. */
export async function loadStudy(reportId: string): Promise<Study | null> {
  const [study] = await db().select().from(imagingStudies).where(eq(imagingStudies.reportId, reportId));
  if (!study) return null;
  const rows = await db()
    .select()
    .from(imagingInstances)
    .where(eq(imagingInstances.reportId, reportId))
    .orderBy(
      asc(imagingInstances.seriesNumber),
      asc(imagingInstances.seriesUid),
      asc(imagingInstances.instanceNumber),
      asc(imagingInstances.id),
    );
  const series: StudySeries[] = [];
  for (const r of rows) {
    let s = series.find((x) => x.seriesUid === r.seriesUid);
    if (!s) {
      s = {
        seriesUid: r.seriesUid,
        seriesNumber: r.seriesNumber,
        description: r.seriesDescription,
        modality: r.modality,
        instances: [],
        frames: 0,
      };
      series.push(s);
    }
    s.instances.push({
      id: r.id,
      instanceNumber: r.instanceNumber,
      sopInstanceUid: r.sopInstanceUid,
      rows: r.rows,
      columns: r.columns,
      frames: r.frames,
      transferSyntax: r.transferSyntax,
    });
    s.frames += r.frames;
  }
  let personal: PersonalField[] = [];
  try {
    personal = JSON.parse(study.personalFields) as PersonalField[];
  } catch {
    /* written by us */
  }
  const ohif = config().ohifUrl;
  return {
    studyUid: study.studyUid,
    modality: study.modality,
    bodyPart: study.bodyPart,
    studyDate: isoDate(study.studyDate),
    description: study.description,
    personalFields: personal,
    series,
    instanceCount: rows.length,
    pacs: {
      status: study.pacsStatus as PacsStatus,
      attempts: study.pacsAttempts,
      sentAt: study.pacsSentAt ? study.pacsSentAt.toISOString() : null,
      error: study.pacsError,
    },
    viewerUrl: ohif ? `${ohif}/viewer?StudyInstanceUIDs=${encodeURIComponent(study.studyUid)}` : null,
  };
}

/** One instance of a report's study (not_found when it belongs to another report). */
export async function findInstance(reportId: string, instanceId: string) {
  const [row] = await db().select().from(imagingInstances).where(eq(imagingInstances.id, instanceId));
  if (!row || row.reportId !== reportId) throw new DomainError("not_found", "imaging.notFound");
  return row;
}

export { ZIP_MIME };
