import type { Actor } from "~/domain/accounts/index.server";
import { SPECIALTIES } from "~/schemas/specialties";
import type { ApiReport } from "~/domain/consultation/index.server";
import { askSecondOpinionAction } from "~/web/second-opinion.server";
import type { ReviewScreen } from "./claim.server";

/**
 * What the review screen shows of a second opinion (decision 0038): to the expert of the first
 * opinion, the form to ask another specialty and what was asked; to the second expert, the request
 * and the first opinion, read-only. The domain decided who sees what (reviewScreenReport).
 */
export function panelOf(actor: Actor, report: ApiReport) {
  const mine =
    report.claimedBy?._id === actor.id || (report.status === "Reviewed" && report.expert?._id === actor.id);
  const first = report.firstOpinion;
  return {
    mayAsk: !report.secondOf && mine,
    specialties: [...SPECIALTIES],
    asked: (report.secondOpinions ?? []).map((s) => ({
      id: s._id,
      specialty: s.secondSpecialty ?? "",
      given: s.status === "Reviewed",
    })),
    second: report.secondOf
      ? {
          specialty: report.secondSpecialty ?? "",
          note: report.secondNote,
          first: first
            ? {
                review: first.review,
                findings: first.findings,
                recommendations: first.recommendations,
                seeDoctorSoon: first.seeDoctorSoon,
                expert: first.expert,
              }
            : null,
        }
      : null,
  };
}

export type Panel = ReturnType<typeof panelOf>;

/** The "Ask for a second opinion" form: back to this screen, a refusal as a toast naming the field's problem. */
export function askSecondAction(form: FormData, screen: ReviewScreen) {
  const here = `/dashboard/add-review/${encodeURIComponent(screen.reportId)}`;
  return askSecondOpinionAction(form, screen.reportId, here, screen);
}
