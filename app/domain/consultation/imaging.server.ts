import { audit } from "../platform/index.server";
import type { Actor } from "../platform/index.server";
import { patientAccess, traceAccess } from "../care/index.server";
import { DomainError } from "../platform/errors";
import { framePng, loadStudy, type Preset, type Study } from "../records/index.server";
import { reportForFileAccess } from "./report-files.server";

/**
 * A report's medical images (decision 0039), for exactly those who may open its file
 * (`reportForFileAccess`: the patient, a family manager or centre worker acting for the profile,
 * the experts the file rule names, admins). Every opening is audited like the file's
 * ("report.study_open", "report.frame_open") and is in the profile's access trail.
 */
async function recordOpening(
  actor: Actor,
  row: { id: string; patientId: string },
  action: "report.study_open" | "report.frame_open",
  detail: Record<string, unknown> | null,
  ip?: string | null,
) {
  await audit(actor, action, "report", row.id, detail, ip);
  const access = actor.accountType === "Admin" ? null : await patientAccess(actor, row.patientId);
  if (access)
    await traceAccess(actor, access, "patient.file_open", { reportId: row.id, ...(detail ?? {}) }, ip);
}

/**
 * Whose study a report shows: a second opinion shares its case's stored file (decision 0038), so
 * it shows the study read from the case's first report.
 */
function caseOf(row: { id: string; secondOf: string | null }): string {
  return row.secondOf ?? row.id;
}

/**
 * What someone sees of the PACS hand-off (decision 0057): admins the whole of it (attempts, the
 * last error, which may name hosts and paths); everyone else — the patient, family managers,
 * centre workers, experts — only whether the images are sent, waiting ("queued", also while being
 * sent) or not sent ("failed"), with no error and no attempt count (0).
 */
export function studyAsSeenBy(actor: Actor, study: Study): Study {
  if (actor.accountType === "Admin") return study;
  const status = study.pacs.status === "sending" ? "queued" : study.pacs.status;
  return { ...study, pacs: { status, attempts: 0, sentAt: study.pacs.sentAt, error: null } };
}

/** The report's study (not_found when its file is not medical images). */
export async function openReportStudy(actor: Actor, reportId: string, ip?: string | null): Promise<Study> {
  const row = await reportForFileAccess(actor, reportId, ip);
  const study = await loadStudy(caseOf(row));
  if (!study) throw new DomainError("not_found", "imaging.noStudy");
  await recordOpening(actor, row, "report.study_open", null, ip);
  return studyAsSeenBy(actor, study);
}

/** One frame of one instance as PNG with a window preset (rendered in the actor's budget; `signal`: the request's). */
export async function openStudyFrame(
  actor: Actor,
  reportId: string,
  instanceId: string,
  frame: number,
  preset: Preset,
  ip?: string | null,
  signal?: AbortSignal,
): Promise<Buffer> {
  const row = await reportForFileAccess(actor, reportId, ip);
  const png = await framePng({ account: actor.id, signal }, caseOf(row), instanceId, frame, preset);
  await recordOpening(actor, row, "report.frame_open", { instance: instanceId, frame, preset }, ip);
  return png;
}

/** The study for a screen that already checked access itself with the same row (review page, patient's report). */
export async function studyForScreen(
  actor: Actor,
  reportId: string,
  ip?: string | null,
): Promise<Study | null> {
  try {
    return await openReportStudy(actor, reportId, ip);
  } catch (err) {
    if (err instanceof DomainError && (err.code === "not_found" || err.code === "forbidden")) return null;
    throw err;
  }
}
