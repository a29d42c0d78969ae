import type {
  Attachment,
  CodeableConcept,
  Communication,
  DiagnosticReport,
  DocumentReference,
} from "@medplum/fhirtypes";
import type { ReportRow } from "~/db/schema";
import { REPORT_TYPE_KEYS, type ReportType } from "~/schemas/reports";
import { letterFileName } from "../consultation/index.server";
import { fhirId, iso, text, type BundleContext, type Ref } from "./fhir-codes.server";
import type { Parties } from "./fhir-people.server";
import { addObservations, observationRefs } from "./fhir-observations.server";

/**
 * FHIR mapping of the reports (decision 0018): each report as a DocumentReference (the file as
 * an attachment), each opinion as a DiagnosticReport (the letter PDF in presentedForm), and the
 * follow-up questions and answers as Communications.
 */

/** Adds a DocumentReference per report, each followed by its DiagnosticReport once reviewed. */
export function addReports(
  ctx: BundleContext,
  parties: Parties,
): { documentRefs: Map<string, Ref>; opinionRefs: Map<string, Ref> } {
  const { s, t, sys, links, add, refTo } = ctx;
  const { orgRef, patientRef, expertRef } = parties;

  const documentRefs = new Map<string, Ref>();
  const opinionRefs = new Map<string, Ref>();
  const typeOf = (r: ReportRow): CodeableConcept => ({
    coding: [{ system: sys.reportType, code: r.reportType, display: r.reportType }],
    text: t(REPORT_TYPE_KEYS[r.reportType as ReportType] ?? r.reportType),
  });
  for (const r of s.reports) {
    const reviewed = r.status === "Reviewed";
    const documentId = fhirId("DocumentReference", r.id);
    const opinionId = fhirId("DiagnosticReport", r.id);
    const file = links.file(r);
    const attachment: Attachment = {
      contentType: r.mimeType,
      ...(file ? { url: file.url } : {}),
      size: file?.size ?? r.size,
      ...(file?.sha1 ? { hash: file.sha1 } : {}),
      ...(text(r.fileName) ? { title: text(r.fileName) } : {}),
      creation: iso(r.createdAt),
    };
    const document: DocumentReference = {
      resourceType: "DocumentReference",
      id: documentId,
      identifier: [{ system: sys.report, value: r.id }],
      status: "current",
      type: typeOf(r),
      subject: patientRef,
      date: iso(r.createdAt),
      author: [patientRef],
      custodian: orgRef,
      ...(text(r.description) ? { description: text(r.description) } : {}),
      content: [{ attachment }],
      ...(reviewed ? { context: { related: [refTo("DiagnosticReport", opinionId)] } } : {}),
    };
    const documentRef = add(document);
    documentRefs.set(r.id, documentRef);

    if (!reviewed) continue;
    const reviewer = expertRef(r.expertId);
    const letter = links.letter(r);
    const conclusion = [
      text(r.review),
      text(r.findings) ? `${t("opinion.findings")}: ${text(r.findings)}` : undefined,
      text(r.recommendations) ? `${t("opinion.recommendations")}: ${text(r.recommendations)}` : undefined,
      r.seeDoctorSoon ? t("opinion.seeDoctorSoonNotice") : undefined,
    ]
      .filter(Boolean)
      .join("\n\n");
    const results = observationRefs(ctx, r);
    const opinion: DiagnosticReport = {
      resourceType: "DiagnosticReport",
      id: opinionId,
      identifier: [
        { system: sys.opinion, value: r.id },
        ...(r.letterCode ? [{ system: sys.letterCode, value: r.letterCode }] : []),
      ],
      status: "final",
      code: typeOf(r),
      subject: patientRef,
      ...(r.reviewedAt ? { issued: iso(r.reviewedAt) } : {}),
      ...(reviewer ? { performer: [reviewer], resultsInterpreter: [reviewer] } : {}),
      ...(results.length ? { result: results } : {}),
      ...(conclusion ? { conclusion } : {}),
      ...(r.seeDoctorSoon
        ? {
            conclusionCode: [
              {
                coding: [
                  {
                    system: sys.opinionFlag,
                    code: "see-doctor-soon",
                    display: "See a doctor in person soon",
                  },
                ],
                text: t("opinion.seeDoctorSoonNotice"),
              },
            ],
          }
        : {}),
      ...(letter && r.letterCode
        ? {
            presentedForm: [
              {
                contentType: "application/pdf",
                language: s.locale,
                url: letter.url,
                ...(letter.size !== undefined ? { size: letter.size } : {}),
                ...(letter.sha1 ? { hash: letter.sha1 } : {}),
                title: letterFileName(r.letterCode),
              },
            ],
          }
        : {}),
    };
    opinionRefs.set(r.id, add(opinion));
    addObservations(ctx, r, patientRef, reviewer, documentRef);
  }
  return { documentRefs, opinionRefs };
}

/** Adds the follow-up questions and their answers (a Communication each). */
export function addFollowUps(ctx: BundleContext, parties: Parties, opinionRefs: Map<string, Ref>): void {
  const { s, sys, add } = ctx;
  const { patientRef, expertRef } = parties;
  for (const r of s.reports) {
    for (const f of s.followUps.get(r.id) ?? []) {
      const about = opinionRefs.get(r.id);
      const answerer = expertRef(f.answeredBy?._id);
      const holder = answerer ?? expertRef(r.followupExpertId) ?? expertRef(r.expertId);
      const question: Communication = {
        resourceType: "Communication",
        id: fhirId("Communication", `question/${f._id}`),
        identifier: [{ system: sys.followUp, value: f._id }],
        status: "completed",
        subject: patientRef,
        ...(about ? { about: [about] } : {}),
        sent: f.askedAt,
        sender: patientRef,
        ...(holder ? { recipient: [holder] } : {}),
        payload: [{ contentString: text(f.question) ?? "?" }],
      };
      const questionRef = add(question);
      const answerText = text(f.answer);
      if (!answerText || !f.answeredAt) continue;
      const answer: Communication = {
        resourceType: "Communication",
        id: fhirId("Communication", `answer/${f._id}`),
        identifier: [{ system: sys.followUpAnswer, value: f._id }],
        inResponseTo: [questionRef],
        status: "completed",
        subject: patientRef,
        ...(about ? { about: [about] } : {}),
        sent: f.answeredAt,
        ...(answerer ? { sender: answerer } : {}),
        recipient: [patientRef],
        payload: [{ contentString: answerText }],
      };
      add(answer);
    }
  }
}
