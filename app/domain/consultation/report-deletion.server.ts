import { eq } from "drizzle-orm";
import { db, exec, rows, transaction } from "~/db/client.server";
import { reports, voiceNotes } from "~/db/schema";
import { log } from "~/lib/log.server";
import { auditInsert } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { deleteObjects, deleteReportFileIfUnused } from "../records/index.server";
import { studyObjects } from "../records/index.server";
import type { Actor } from "../platform/index.server";
import { assertMayDeleteReports, patientAccess } from "../care/index.server";
import { findRow } from "./report-rows.server";

/** The owning Patient or an Admin deletes a report: the row first, then its file. */
export async function deleteReport(
  actor: Actor,
  reportId: string,
  opts: { ip?: string | null } = {},
): Promise<void> {
  if (
    actor.accountType !== "Patient" &&
    actor.accountType !== "Admin" &&
    actor.accountType !== "HealthWorker"
  ) {
    throw new DomainError("forbidden", "reports.deleteNotAllowed");
  }
  const row = await findRow(reportId);
  if (!row) throw new DomainError("not_found", "reports.notFound");
  const access = await patientAccess(actor, row.patientId);
  if (!access) throw new DomainError("forbidden", "reports.deleteNotAllowed");
  // A taken-over account waits 72 hours (or an admin's review) before deleting anything.
  await assertMayDeleteReports(actor, row.patientId);
  // A study's instances and previews (their rows go with the report's).
  const studyKeys = await studyObjects([row.id]);
  // Its voice notes' rows go with the report (on delete cascade); their audio is removed after.
  const voiceKeys = (
    await db()
      .select({ k: voiceNotes.fileKey, phone: voiceNotes.phoneFileKey })
      .from(voiceNotes)
      .where(eq(voiceNotes.reportId, row.id))
  ).flatMap((v) => (v.phone ? [v.k, v.phone] : [v.k]));
  const deleted = await transaction(function* (tx) {
    const gone = yield* rows(tx.delete(reports).where(eq(reports.id, row.id)).returning({ id: reports.id }));
    if (gone.length === 1)
      yield* exec(
        auditInsert(tx, actor, "report.delete", "report", row.id, { by: actor.accountType }, opts.ip),
      );
    return gone.length === 1;
  });
  if (!deleted) throw new DomainError("not_found", "reports.notFound");
  // Its second opinions went with it (the foreign key cascades); a second opinion deleted alone
  // leaves the file to its case. A failure here leaves an unreferenced file that sweepLeftovers() removes later.
  await deleteReportFileIfUnused(row.fileKey).catch((err) =>
    log("error", "could not delete report file", { reportId: row.id, error: String(err?.message ?? err) }),
  );
  await deleteObjects(studyKeys.filter((k) => k !== row.fileKey));
  await deleteObjects(voiceKeys);
}
