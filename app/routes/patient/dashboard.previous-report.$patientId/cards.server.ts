import type { PatientReport } from "~/domain/consultation/index.server";
import { secondOpinionCards } from "./second-opinions";

/** One report as its card shows it (the patient's list, or an admin looking at a patient's). */
export function cardOf(r: PatientReport, opts: { mayAskSecond?: boolean } = {}) {
  return {
    _id: r._id,
    reportType: r.reportType,
    description: r.description,
    status: r.status,
    review: r.review,
    reportUrl: r.reportUrl,
    isPdf: r.resourceType === "raw" || r.reportUrl.includes("/raw/"),
    /** Medical images (DICOM, a ZIP of one study): opened in the image viewer, not as a file. */
    isStudy: r.mimeType === "application/dicom" || r.mimeType === "application/zip",
    createdAt: r.createdAt,
    patientName: `${r.patient.firstName} ${r.patient.lastName}`.trim(),
    fileViews: r.fileViews,
    linkOpens: r.linkOpens,
    urgent: r.urgent,
    inReview: !!r.claimedBy,
    findings: r.findings,
    recommendations: r.recommendations,
    seeDoctorSoon: r.seeDoctorSoon,
    expert: r.expert,
    opinionUrl: r.opinionUrl,
    followUps: r.followUps ?? [],
    followUpsLeft: r.followUpsLeft ?? 0,
    followUpsUntil: r.followUpsUntil ?? null,
    secondOpinions: secondOpinionCards(r),
    /** An admin may ask another specialty for a second opinion (decision 0038). */
    mayAskSecond: !!opts.mayAskSecond,
  };
}

export type Card = ReturnType<typeof cardOf>;
