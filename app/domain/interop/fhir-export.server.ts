import { createHash } from "node:crypto";
import { PassThrough, Readable, Transform } from "node:stream";
import type { Bundle } from "@medplum/fhirtypes";
import { asc, eq, inArray } from "drizzle-orm";
import { ZipFile } from "yazl";
import { config } from "~/config.server";
import { db, first } from "~/db/client.server";
import { users, voiceNotes, type PatientRow, type ReportRow, type UserRow } from "~/db/schema";
import { site } from "~/site";
import { DEFAULT_TIME_ZONE } from "~/lib/format";
import { log } from "~/lib/log.server";
import { audit } from "../platform/index.server";
import type { Client } from "../platform/client";
import { DomainError } from "../platform/errors";
import { openDecrypted, sanitizeFileName, storedExists } from "../records/index.server";
import { limit } from "../platform/index.server";
import {
  letterFileName,
  opinionUrl,
  renderOpinionLetter,
  reportFileUrl,
  toApiReport,
} from "../consultation/index.server";
import type { Actor } from "../platform/index.server";
import { findPatient, patientAccess, traceAccess, type PatientAccess } from "../care/index.server";
import { buildBundle } from "./fhir-bundle.server";
import type { AttachmentLink } from "./fhir-codes.server";
import { EXPORT_EVENT, snapshot, type Snapshot } from "./fhir-snapshot.server";

/**
 * A patient's data as FHIR R4 (decision 0018): one `collection` Bundle with the patient,
 * their reports (DocumentReference, the file as an attachment), the opinions (DiagnosticReport,
 * the letter PDF in presentedForm), the experts (Practitioner, registration number as an
 * identifier), the follow-up questions and answers (Communication), consents (Consent) and who
 * opened their files or exported their data (AuditEvent).
 *
 * Two shapes: for /api/v1 the attachments link to the authenticated file and letter routes; for
 * "Download my data" a ZIP streams the decrypted originals and the letters one at a time and ends
 * with the Bundle, whose attachment URLs are paths inside the ZIP (with size and SHA-1, counted
 * while the bytes passed). The patient themself or an admin only; every export is audited and
 * rate-limited.
 *
 * This module checks, records and streams an export; the rows are read by fhir-snapshot, the
 * Bundle is assembled by fhir-bundle from the resources the mapping modules build (fhir-people,
 * fhir-reports, fhir-consents, fhir-audit-events; ids and codes in fhir-codes).
 */

export const FHIR_CONTENT_TYPE = "application/fhir+json; fhirVersion=4.0";

// ---------------------------------------------------------------------------------------------
// Who may export whom

const ID_MAX = 100;

/**
 * The profile whose data `actor` may export, through the one access rule (decision 0030): the
 * person themself, a family manager, the registering centre's health workers, an admin. Experts
 * may not; a profile the actor may not act for is refused without saying whether it exists; an
 * admin asking for an id that is no profile gets not_found.
 */
async function exportablePatient(
  actor: Actor,
  patientId: unknown,
): Promise<{ patient: PatientRow; account: UserRow | undefined; access: PatientAccess }> {
  if (actor.accountType === "Expert") throw new DomainError("forbidden", "fhir.notAllowed");
  if (
    actor.accountType !== "Patient" &&
    actor.accountType !== "Admin" &&
    actor.accountType !== "HealthWorker"
  )
    throw new DomainError("forbidden", "fhir.notAllowed");
  const id = typeof patientId === "string" && patientId.length <= ID_MAX ? patientId : "";
  const patient = id ? await findPatient(id) : undefined;
  if (!patient) {
    if (actor.accountType === "Admin") throw new DomainError("not_found", "fhir.patientNotFound");
    throw new DomainError("forbidden", "fhir.notYourData");
  }
  const access = await patientAccess(actor, patient.id);
  if (!access) throw new DomainError("forbidden", "fhir.notYourData");
  const account = patient.accountId
    ? await first(db().select().from(users).where(eq(users.id, patient.accountId)))
    : undefined;
  return { patient, account, access };
}

// ---------------------------------------------------------------------------------------------
// Exports

type ExportFormat = "bundle" | "zip";

/** Checks, limits and records one export; returns what it will contain. */
async function beginExport(
  actor: Actor,
  patientId: unknown,
  client: Client,
  format: ExportFormat,
): Promise<Snapshot> {
  const { patient, account, access } = await exportablePatient(actor, patientId);
  await limit("dataExport", actor.id, client);
  const ip = client.ip === "unknown" ? null : client.ip;
  // Recorded before the read, so the export lists itself among the exports of this patient's data.
  await audit(actor, EXPORT_EVENT, "user", patient.id, { format, by: actor.accountType }, ip);
  // A family manager's or a health worker's export is in the profile's access trail too.
  await traceAccess(actor, access, "patient.fhir_export", { format }, ip);
  return snapshot(patient, account);
}

/**
 * `GET /api/v1/fhir/Patient/{id}/$everything`: the patient's data as a FHIR R4 collection Bundle
 * whose attachments link to the authenticated file and letter routes (absolute URLs; fetching
 * them is audited like any other opening).
 */
export async function exportBundle(actor: Actor, patientId: unknown, client: Client): Promise<Bundle> {
  const s = await beginExport(actor, patientId, client, "bundle");
  const base = config().appUrl;
  return buildBundle(s, {
    file: (r) => ({ url: `${base}${reportFileUrl(r.id)}` }),
    letter: (r) => (r.expertId && r.letterCode ? { url: `${base}${opinionUrl(r.id)}` } : null),
  });
}

const EXT: Record<string, string> = {
  "application/pdf": "pdf",
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
};

/** YYYY-MM-DD of `d` in the app's time zone. */
function isoDay(d: Date): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: DEFAULT_TIME_ZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(d);
}

/** A path inside the ZIP as a relative URL (each segment percent-encoded). */
const relativeUrl = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/** Counts and hashes the bytes passing through (the Bundle, written last, carries both). */
function measured(onDone: (size: number, sha1: string) => void): Transform {
  const hash = createHash("sha1");
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      onDone(size, hash.digest("base64"));
      done();
    },
  });
}

export const BUNDLE_FILE = "fhir-bundle.json";

/** What yazl's callback gets with an error (it reads no stream then). */
const NO_STREAM = undefined as unknown as NodeJS.ReadableStream;

/**
 * "Download my data": a ZIP, streamed, with a README, one folder per report (the original file
 * as uploaded, decrypted, and the signed opinion letter once reviewed) and, last, the FHIR Bundle
 * whose attachments point at those files (relative paths, with size and SHA-1). Files are read
 * one at a time; a file that cannot be read ends the download with an error (never a ZIP that
 * looks whole but is not).
 */
export async function exportZip(
  actor: Actor,
  patientId: unknown,
  client: Client,
): Promise<{ stream: Readable; fileName: string }> {
  const s = await beginExport(actor, patientId, client, "zip");
  const { t } = s;
  const day = isoDay(s.at);
  const own = actor.id === s.patient.accountId;
  const fileName = own
    ? `carebridge-my-data-${day}.zip`
    : `carebridge-patient-${s.patient.id.replace(/[^A-Za-z0-9]/g, "")}-${day}.zip`;

  // Files the store no longer has are left out (and logged) rather than failing the export.
  const present = new Set<string>();
  for (const r of s.reports) {
    if (await storedExists(r.fileKey)) present.add(r.id);
    else log("error", "export: stored file missing", { reportId: r.id });
  }

  const folders = new Map<string, string>();
  for (const r of s.reports) {
    const type = r.reportType.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "") || "report";
    folders.set(r.id, `reports/${isoDay(r.createdAt)}_${type}_${r.id.replace(/[^A-Za-z0-9]/g, "")}`);
  }
  const filePath = (r: ReportRow) =>
    `${folders.get(r.id)}/${sanitizeFileName(r.fileName, EXT[r.mimeType] ?? "bin")}`;
  const letterPath = (r: ReportRow) => {
    const name = letterFileName(r.letterCode ?? "letter");
    const path = `${folders.get(r.id)}/${name}`;
    return path === filePath(r) ? `${folders.get(r.id)}/letter-${name}` : path;
  };
  const fileInfo = new Map<string, AttachmentLink>();
  const letterInfo = new Map<string, AttachmentLink>();

  const zip = new ZipFile();
  const out = new PassThrough();
  let current: Readable | null = null;
  let failed = false;
  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    log("error", "export zip failed", {
      patientId: s.patient.id,
      error: String((err as Error)?.message ?? err),
    });
    current?.destroy();
    out.destroy(err instanceof Error ? err : new Error(String(err)));
  };
  zip.on("error", fail);
  zip.outputStream.on("error", fail);
  zip.outputStream.pipe(out);
  // The reader went away (download cancelled): stop reading files.
  out.on("close", () => {
    if (!out.writableFinished) {
      failed = true;
      current?.destroy();
    }
  });

  const readme = [
    t("fhir.readmeTitle", { product: site.productName, date: day }),
    "",
    t("fhir.readmeIntro", { product: site.productName }),
    "",
    t("fhir.readmeReports"),
    "",
    t("fhir.readmeBundle", { file: BUNDLE_FILE }),
    "",
  ].join("\r\n");
  zip.addBuffer(Buffer.from(readme, "utf8"), "README.txt", { mtime: s.at });

  const entry = (
    source: () => Promise<Readable>,
    path: string,
    mtime: Date,
    info: Map<string, AttachmentLink>,
    id: string,
  ) =>
    zip.addReadStreamLazy(path, { mtime, compress: false }, (cb) => {
      if (failed) return cb(new Error("export cancelled"), NO_STREAM);
      source().then(
        (src) => {
          const counter = measured((size, sha1) => info.set(id, { url: relativeUrl(path), size, sha1 }));
          current = src;
          src.on("error", (err) => counter.destroy(err));
          counter.on("error", fail);
          cb(null, src.pipe(counter));
        },
        (err) => cb(err, NO_STREAM),
      );
    });

  for (const r of [...s.reports].reverse()) {
    if (present.has(r.id)) entry(() => openDecrypted(r.fileKey), filePath(r), r.createdAt, fileInfo, r.id);
    if (r.status === "Reviewed" && r.letterCode && r.expertId && s.people.has(r.expertId)) {
      const letterCode = r.letterCode;
      entry(
        async () => {
          const { pdf } = await renderOpinionLetter(letterSource(s, r), letterCode, s.locale);
          return Readable.from([pdf], { objectMode: false });
        },
        letterPath(r),
        r.reviewedAt ?? s.at,
        letterInfo,
        r.id,
      );
    }
  }

  // The voice notes on the reports (decision 0037), beside each report's file, as recorded.
  const voiceInfo = new Map<string, AttachmentLink>();
  const reportIds = s.reports.map((r) => r.id);
  const voices = reportIds.length
    ? await db()
        .select()
        .from(voiceNotes)
        .where(inArray(voiceNotes.reportId, reportIds))
        .orderBy(asc(voiceNotes.createdAt), asc(voiceNotes.id))
    : [];
  const reviewed = new Set(s.reports.filter((r) => r.status === "Reviewed").map((r) => r.id));
  for (const v of voices) {
    // The expert's spoken explanation is the patient's only beside the written opinion.
    if (v.kind === "explanation" && !reviewed.has(v.reportId)) continue;
    if (!(await storedExists(v.fileKey))) continue;
    const ext =
      { "audio/webm": "webm", "audio/ogg": "ogg", "audio/mp4": "m4a", "audio/mpeg": "mp3" }[v.mimeType] ??
      "wav";
    entry(
      () => openDecrypted(v.fileKey),
      `${folders.get(v.reportId)}/voice-${v.kind}-${isoDay(v.createdAt)}-${v.id.slice(0, 8)}.${ext}`,
      v.createdAt,
      voiceInfo,
      v.id,
    );
  }

  zip.addReadStreamLazy(BUNDLE_FILE, { mtime: s.at }, (cb) => {
    try {
      const bundle = buildBundle(s, {
        file: (r) => fileInfo.get(r.id) ?? null,
        letter: (r) => letterInfo.get(r.id) ?? null,
      });
      cb(null, Readable.from([Buffer.from(JSON.stringify(bundle, null, 2), "utf8")], { objectMode: false }));
    } catch (err) {
      cb(err, NO_STREAM);
    }
  });
  zip.end();
  return { stream: out, fileName };
}

/** What the letter of one reviewed report prints, from the snapshot. */
function letterSource(s: Snapshot, r: ReportRow) {
  const expert = r.expertId ? (s.people.get(r.expertId) ?? null) : null;
  const report = toApiReport(r, s.patient, expert);
  const details = expert ? s.expertDetails.get(expert.id) : undefined;
  // Name, registration and council as signed come with the report row (decision 0023).
  if (report.expert && details) report.expert.specialties = details.specialties;
  report.followUps = s.followUps.get(r.id) ?? [];
  return report;
}

/** `GET /api/v1/profile/download-my-data`: the signed-in patient's own ZIP (other accounts have no such data). */
export async function exportOwnZip(actor: Actor, client: Client) {
  if (actor.accountType !== "Patient") throw new DomainError("forbidden", "fhir.patientsOnly");
  return exportZip(actor, actor.id, client);
}
