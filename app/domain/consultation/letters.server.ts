import { isLocale, type Locale } from "~/i18n/config";
import { getT } from "~/i18n/i18n.server";
import { AGREEMENT_VERDICT_KEYS, REPORT_TYPE_KEYS, type ReportType } from "~/schemas/reports";
import { site } from "~/site";
import { DEFAULT_TIME_ZONE, formatDay } from "~/lib/format";
import { renderLetterPdf } from "./letter-pdf.server";
import { letterVerifyUrl, type ApiReport } from "./api-report.server";
import { reportForLetter } from "./letter-access.server";
import { stepWords } from "./step-words.server";
import { type Actor, SPECIALTY_KEYS, type Specialty } from "../accounts/index.server";

/**
 * The signed opinion letter (decision 0012): the structured opinion, the follow-ups, who signed it and a
 * verification code, rendered as a PDF in the patient's language. Only the patient, the reviewing
 * expert and admins may fetch it (reportForLetter decides and records each fetch).
 */
export async function opinionLetter(
  actor: Actor,
  reportId: string,
  ip?: string | null,
): Promise<{ pdf: Buffer; fileName: string }> {
  const { report, letterCode, patientLocale } = await reportForLetter(actor, reportId, ip);
  return renderOpinionLetter(report, letterCode, patientLocale);
}

/** What a letter prints: a reviewed report with its reviewer's details and the follow-ups. */
export type LetterSource = Pick<
  ApiReport,
  | "patient"
  | "reportType"
  | "createdAt"
  | "reviewedAt"
  | "review"
  | "findings"
  | "recommendations"
  | "seeDoctorSoon"
  | "expert"
  | "followUps"
  | "secondOpinions"
  | "nextSteps"
>;

/** The letter's file name: the same for every fetch of one report's letter. */
export function letterFileName(letterCode: string): string {
  return `${site.productName}-opinion-${letterCode}.pdf`;
}

/**
 * Renders a letter without deciding who may have it or recording anything: for callers that
 * already did both (opinionLetter above, the data export in fhir.server.ts).
 */
export async function renderOpinionLetter(
  report: LetterSource,
  letterCode: string,
  patientLocale: string,
): Promise<{ pdf: Buffer; fileName: string }> {
  const locale: Locale = isLocale(patientLocale) ? patientLocale : "en";
  const t = await getT(locale);
  const day = (iso: string | null) => (iso ? formatDay(iso, locale, DEFAULT_TIME_ZONE) : "");
  const expert = report.expert;
  const verifyUrl = letterVerifyUrl(letterCode);
  const signer = (e: ApiReport["expert"]) =>
    e
      ? {
          name: t("letter.doctorName", { name: `${e.firstName} ${e.lastName}`.trim() }),
          registrationNumber: e.registrationNumber || t("letter.notGiven"),
          registrationCouncil: e.registrationCouncil,
          specialties: e.specialties.map((s) => t(SPECIALTY_KEYS[s as Specialty] ?? s)).join(", "),
        }
      : {
          name: t("letter.expertGone", { product: site.productName }),
          registrationNumber: t("letter.notGiven"),
          registrationCouncil: "",
          specialties: "",
        };
  // The case's second opinions given (decision 0038), each with its signer and its view of the first.
  const secondOpinions = (report.secondOpinions ?? [])
    .filter((s) => s.status === "Reviewed")
    .map((s) => {
      const specialty = s.secondSpecialty ?? "";
      return {
        heading: t("panel.letterSecond", {
          specialty: t(SPECIALTY_KEYS[specialty as Specialty] ?? specialty),
        }),
        agreementLabel: t("panel.letterAgreement"),
        agreement: s.agreement
          ? t("panel.verdictLine", {
              verdict: t(AGREEMENT_VERDICT_KEYS[s.agreement]),
              reason: s.agreementReason ?? "",
            })
          : "",
        summary: s.review ?? "",
        findings: s.findings,
        recommendations: s.recommendations,
        expert: signer(s.expert),
        reviewedOn: day(s.reviewedAt),
      };
    });
  const pdf = await renderLetterPdf({
    locale,
    productName: site.productName,
    patientName: `${report.patient.firstName} ${report.patient.lastName}`.trim(),
    reportType: t(REPORT_TYPE_KEYS[report.reportType as ReportType] ?? report.reportType),
    submittedOn: day(report.createdAt),
    reviewedOn: day(report.reviewedAt),
    summary: report.review ?? "",
    findings: report.findings,
    recommendations: report.recommendations,
    // The next steps in the letter's language (decision 0114).
    steps: (report.nextSteps ?? []).map((st) => {
      const w = stepWords(st, t, locale);
      return {
        title: w.title,
        detail: [w.due, w.reason ? t("steps.say.reason", { reason: w.reason }) : ""]
          .filter(Boolean)
          .join(" · "),
      };
    }),
    followUps: (report.followUps ?? []).map((f) => ({
      question: f.question,
      answer: f.answer,
      askedOn: day(f.askedAt),
      answeredOn: f.answeredAt ? day(f.answeredAt) : null,
    })),
    // The reviewing expert's account may have been deleted since: the opinion stands, the letter says so.
    expert: signer(expert),
    secondOpinions,
    verificationCode: letterCode,
    text: {
      title: t("letter.title"),
      patientLabel: t("letter.patient"),
      reportLabel: t("letter.report"),
      submittedLabel: t("letter.submitted"),
      reviewedLabel: t("letter.reviewed"),
      summaryLabel: t("opinion.summary"),
      findingsLabel: t("opinion.findings"),
      recommendationsLabel: t("opinion.recommendations"),
      stepsLabel: t("steps.letter.heading"),
      seeDoctorSoon: report.seeDoctorSoon ? t("opinion.seeDoctorSoonNotice") : null,
      followUpsLabel: t("followups.title"),
      questionLabel: t("followups.question"),
      answerLabel: t("followups.answer"),
      notAnsweredYet: t("followups.notAnswered"),
      signedByLabel: t("opinion.reviewedBy"),
      registrationLabel: t("opinion.regNo"),
      verificationLabel: t("letter.verificationCode"),
      verifyHint: t("letter.verifyHint", { url: verifyUrl }),
      disclaimer: t("letter.disclaimer", { product: site.productName }),
    },
  });
  return { pdf, fileName: letterFileName(letterCode) };
}
