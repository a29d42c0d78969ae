import { audit } from "../platform/index.server";
import { DomainError } from "../platform/errors";
import { specialtiesOf } from "../accounts/index.server";
import { hidePhonesOfRefusers } from "../rights/index.server";
import type { Actor } from "../platform/index.server";
import { liveClaim, type ApiReport } from "./api-report.server";
import { withSecondOpinions } from "./report-case.server";
import { fileAccessRefusal } from "./report-files.server";
import { findJoined, fromJoined, matches, requireApprovedExpert } from "./report-rows.server";

/**
 * The add-review screen's report: what an approved expert sees of one report (the opinion only
 * to its writer, the first opinion to the expert holding or who gave the second) and whether they may open its file.
 */

/**
 * The add-review screen: one report for an approved Expert (same rules as addReview: other
 * account types → forbidden "reports.onlyExperts", experts awaiting approval → forbidden
 * "reports.awaitApproval", unknown id → not_found). A report that is already reviewed is
 * returned too, so the screen can say so; its opinion only to the expert who wrote it.
 */
export async function getReportForReview(actor: Actor, reportId: string): Promise<ApiReport> {
  return (await reviewScreenReport(actor, reportId)).report;
}

/**
 * getReportForReview for the add-review screen, with whether the actor may open the report's file
 * — decided from the same row by the same rule as GET /api/v1/report/:id/file.
 */
export async function reviewScreenReport(
  actor: Actor,
  reportId: string,
): Promise<{ report: ApiReport; fileAllowed: boolean }> {
  requireApprovedExpert(actor);
  const joined = await findJoined(reportId);
  if (!joined) throw new DomainError("not_found", "reports.notFound");
  const report = fromJoined(joined);
  if (report.status === "Reviewed" && joined.report.expertId !== actor.id) {
    report.review = null;
    report.findings = null;
    report.recommendations = null;
    report.letter = null;
  }
  report.matchesSpecialties = matches(report, actor.specialties ?? (await specialtiesOf(actor.id)));
  const fileAllowed = !(await fileAccessRefusal(actor, joined.report));
  // Only the expert holding the second opinion (its live claim) or who gave it reads the first
  // opinion (decision 0058: not every approved expert who opens the pending second), and the reading is
  // recorded like a file opening.
  const holds =
    joined.report.expertId === actor.id || (liveClaim(joined.report) && joined.report.claimedBy === actor.id);
  if (joined.report.secondOf && fileAllowed && holds) {
    const firstJoined = await findJoined(joined.report.secondOf);
    if (firstJoined?.report.status === "Reviewed") {
      report.firstOpinion = fromJoined(firstJoined);
      await audit(actor, "report.first_opinion_open", "report", firstJoined.report.id, {
        secondOf: joined.report.id,
      });
    } else report.firstOpinion = null;
  }
  // The expert of the first opinion sees what they asked of other specialties.
  if (!joined.report.secondOf && holds) await withSecondOpinions([report]);
  return { report: (await hidePhonesOfRefusers(actor, [report]))[0], fileAllowed };
}
