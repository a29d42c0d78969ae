import type { Readable } from "node:stream";
import type { ReportRow } from "~/db/schema";
import { audit } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { MAX_PREVIEW_PAGE, openDecrypted, pdfPagePreview } from "../records/index.server";
import type { Actor } from "../platform/index.server";
import { patientAccess, traceAccess } from "../care/index.server";
import { findRow } from "./report-rows.server";

/**
 * Opening a report's file, under the one rule of who may (fileAccessRefusal, decision 0023); every
 * opening and every refusal is recorded.
 */

/**
 * The report row for one who may open its file (fileAccessRefusal), else forbidden, recorded as
 * "report.file_refused" like any refused opening. Medical images (imaging.server.ts) use it, so
 * the images follow the file's rule exactly.
 */
export async function reportForFileAccess(actor: Actor, reportId: string, ip?: string | null) {
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  const refusal = await fileAccessRefusal(actor, row);
  if (refusal) {
    await audit(actor, "report.file_refused", "report", row.id, { status: row.status }, ip);
    throw new DomainError("forbidden", refusal);
  }
  return row;
}

export type OpenedReportFile = {
  stream: Readable;
  mimeType: string;
  fileName: string;
  size: number;
  /** The stored object's key (the page previews' cache is keyed by it). */
  fileKey: string;
  /** The profile the report belongs to (the page previews' cache is counted against it). */
  patientId: string;
};

/** What decides who may open a report's file: read from the report's own row, never from a caller. */
type FileAccessFacts = Pick<
  ReportRow,
  "patientId" | "status" | "expertId" | "claimedBy" | "followupExpertId"
>;

/**
 * Who may open a report's file (decision 0023), the one place this rule lives: the owning patient;
 * admins; approved experts while the report is pending (to decide whether to claim it), and once
 * reviewed only its reviewer (expert_id), the expert whose claim became the review (claimed_by)
 * and the expert holding its follow-ups (followup_expert_id, the reviewer unless an admin
 * reassigned them). Returns the refusal's message key, or null when allowed. It takes the row
 * itself, so the file route and the add-review screen (reviewScreenReport) cannot disagree.
 * (Sharing links serve files by their own token.)
 */
export async function fileAccessRefusal(actor: Actor, row: FileAccessFacts): Promise<string | null> {
  if (actor.accountType === "Admin") return null;
  if (actor.accountType === "Patient" || actor.accountType === "HealthWorker")
    return (await patientAccess(actor, row.patientId)) ? null : "reports.notYourReport";
  if (actor.accountType !== "Expert") return "reports.notYourReport";
  if (!actor.approved) return "reports.awaitApprovalFile";
  if (row.status === "Pending") return null;
  if ([row.expertId, row.claimedBy, row.followupExpertId].includes(actor.id)) return null;
  return "reports.fileNotYours";
}

/**
 * The decrypted file for those fileAccessRefusal allows; records who opened it
 * ("report.file_open"). Any refused actor gets forbidden and is recorded ("report.file_refused").
 */
export async function openReportFile(
  actor: Actor,
  reportId: string,
  ip?: string | null,
): Promise<OpenedReportFile> {
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  const refusal = await fileAccessRefusal(actor, row);
  if (refusal) {
    // Every refused opening by a signed-in actor is recorded — patients probing other patients'
    // reports as much as experts; strangers never get here (401 without a session).
    await audit(actor, "report.file_refused", "report", row.id, { status: row.status }, ip);
    throw new DomainError("forbidden", refusal);
  }
  const stream = await openDecrypted(row.fileKey);
  try {
    await audit(actor, "report.file_open", "report", row.id, null, ip);
    // A family manager's or a health worker's opening is in the profile's access trail too.
    const access = actor.accountType === "Admin" ? null : await patientAccess(actor, row.patientId);
    if (access) await traceAccess(actor, access, "patient.file_open", { reportId: row.id }, ip);
  } catch (err) {
    stream.destroy();
    throw err;
  }
  return {
    stream,
    mimeType: row.mimeType,
    fileName: row.fileName,
    size: row.size,
    fileKey: row.fileKey,
    patientId: row.patientId,
  };
}

/**
 * One page of a PDF report as a JPEG, for whoever may open its file (the same rule and the same
 * trail as the file itself): the expert's preview of where a lab value was read (decision 0084).
 */
export async function reportPageImage(
  actor: Actor,
  reportId: string,
  page: unknown,
  ip?: string | null,
): Promise<Buffer> {
  const n = typeof page === "string" && /^\d{1,3}$/.test(page) ? Number(page) : NaN;
  if (!(n >= 1 && n <= MAX_PREVIEW_PAGE)) throw new DomainError("invalid", "labs.noPage");
  const opened = await openReportFile(actor, reportId, ip);
  if (opened.mimeType !== "application/pdf") {
    opened.stream.destroy();
    throw new DomainError("not_found", "labs.noPage");
  }
  let used = false;
  try {
    // The asking account waits for its turn; the cache is counted against the report's profile (decision 0100).
    const who = { account: actor.id, owner: opened.patientId };
    const jpeg = await pdfPagePreview(opened.fileKey, n, who, async () => {
      used = true;
      return opened.stream;
    });
    if (!jpeg) throw new DomainError("not_found", "labs.noPage");
    return jpeg;
  } finally {
    // A cached page (or a refusal) leaves the file unread.
    if (!used) opened.stream.destroy();
  }
}
