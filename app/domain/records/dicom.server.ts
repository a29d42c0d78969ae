import { asc, eq, inArray } from "drizzle-orm";
import { config } from "~/config.server";
import { db, exec, type DB, type TxSteps } from "~/db/client.server";
import { databaseFault } from "~/db/faults";
import { imagingInstances, imagingPreviews, imagingStudies } from "~/db/schema";
import { newId } from "~/lib/ids.server";
import { storeFault } from "~/storage/faults.server";
import { log } from "~/lib/log.server";
import { DomainError, isDomainError } from "../platform/errors";
import {
  INSTANCE_MAX_BYTES,
  parseInstance,
  PERSONAL_FIELDS,
  readInstanceBytes,
  refuse,
  type InstanceDraft,
  type PersonalField,
} from "./dicom-instance.server";
import { issuedUid } from "./dicom-identity.server";
import { readZipStudy } from "./dicom-zip.server";
import { DICOM_MIME, isStudyMime, ZIP_MIME } from "./file-types.server";
import { deleteStored, type StoredFile } from "./files.server";
import { queuePacsSteps } from "./dicom-pacs.server";

/**
 * Medical images (decision 0039): a report file that is one DICOM Part 10 file or a ZIP of one
 * study. Before the report is made, `inspectStudy` reads every instance's header with dcmjs
 * (never the pixels) and checks a ZIP entry by entry; each instance of a ZIP is stored as an
 * encrypted object of its own (the previews and the PACS hand-off read one instance at a time).
 * What the files say about the person (names of the fields only) is kept, so the patient is
 * told what they carry.
 *
 * This module: a study checked before its report is made (`inspectStudy`), its rows, and reading
 * it back. One instance: dicom-instance.server.ts; a ZIP: dicom-zip.server.ts; previews:
 * dicom-render.server.ts; the PACS hand-off: dicom-pacs.server.ts.
 */

export type StudyDraft = {
  studyUid: string;
  modality: string | null;
  bodyPart: string | null;
  studyDate: string | null;
  description: string | null;
  personalFields: PersonalField[];
  instances: Omit<InstanceDraft, "studyUid" | "bodyPart" | "studyDate" | "studyDescription" | "personal">[];
};

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
    if (file.size > INSTANCE_MAX_BYTES) throw refuse("imaging.instanceTooLarge");
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
    // The store or the database failed while the instances were stored (decision 0060): the ZIP is
    // not to blame, and the person may send it again (503), never "damaged".
    if (storeFault(err) || databaseFault(err)) throw err;
    log("info", "zip refused", { error: String((err as Error)?.message ?? err) });
    throw refuse("imaging.badZip");
  }
}

// ---------------------------------------------------------------------------------------------
// Rows

/** Rows per insert of instances: under SQLite's 32,766 and PostgreSQL's 65,535 bound values (14 a row). */
const INSTANCE_BATCH = 500;

/**
 * In the report's transaction: the study and its instances (PACS queued when PACS_URL is set).
 * The rows carry the UIDs the server issues for this report (decision 0057), never the file's;
 * instances are inserted in batches, so a CD of thousands of images fits any database's limit.
 */
export function* insertStudy(tx: DB, reportId: string, draft: StudyDraft): TxSteps<void> {
  const pacs = Boolean(config().pacsUrl);
  yield* exec(
    tx.insert(imagingStudies).values({
      reportId,
      studyUid: issuedUid(reportId, draft.studyUid),
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
  if (pacs) yield* queuePacsSteps(tx, reportId);
  for (let at = 0; at < draft.instances.length; at += INSTANCE_BATCH) {
    yield* exec(
      tx.insert(imagingInstances).values(
        draft.instances.slice(at, at + INSTANCE_BATCH).map((i) => ({
          id: i.id,
          reportId,
          fileKey: i.fileKey,
          seriesUid: issuedUid(reportId, i.seriesUid),
          seriesNumber: i.seriesNumber,
          seriesDescription: i.seriesDescription,
          modality: i.modality,
          instanceNumber: i.instanceNumber,
          sopInstanceUid: issuedUid(reportId, i.sopInstanceUid),
          rows: i.rows,
          columns: i.columns,
          frames: i.frames,
          transferSyntax: i.transferSyntax,
          size: i.size,
        })),
      ),
    );
  }
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
