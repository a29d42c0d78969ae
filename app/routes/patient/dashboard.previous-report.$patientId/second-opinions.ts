import type { ApiReport } from "~/domain/consultation/index.server";

/** A case's second opinions as the patient's card shows them (decision 0038). */
export function secondOpinionCards(r: Pick<ApiReport, "secondOpinions">) {
  return (r.secondOpinions ?? []).map((s) => ({
    _id: s._id,
    status: s.status,
    specialty: s.secondSpecialty ?? "",
    note: s.secondNote,
    agreement: s.agreement,
    agreementReason: s.agreementReason,
    review: s.review,
    findings: s.findings,
    recommendations: s.recommendations,
    seeDoctorSoon: s.seeDoctorSoon,
    expert: s.expert,
    followUps: s.followUps ?? [],
    followUpsLeft: s.followUpsLeft ?? 0,
  }));
}

export type SecondOpinionCard = ReturnType<typeof secondOpinionCards>[number];
