import type { CarePlan, CodeableConcept, ServiceRequest } from "@medplum/fhirtypes";
import { SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import type { ApiNextStep } from "../consultation/index.server";
import { fhirId, iso, text, type BundleContext, type Ref } from "./fhir-codes.server";
import type { Parties } from "./fhir-people.server";

/**
 * An opinion's next steps in FHIR (decision 0114): one CarePlan per opinion that has steps, whose
 * activities are the steps, each a ServiceRequest — repeat tests coded by LOINC, a specialist or a
 * facility as a referral (the specialty, the facility and the reason as text) — due on the step's
 * date (`occurrenceDateTime`), active while open, completed when done or visited, revoked when she
 * cannot go or could not be reached.
 */

const LOINC = "http://loinc.org";
const SNOMED = "http://snomed.info/sct";

const STATUS: Record<ApiNextStep["state"], ServiceRequest["status"]> = {
  open: "active",
  done: "completed",
  visited: "completed",
  declined: "revoked",
  unreachable: "revoked",
};

export function addCarePlans(ctx: BundleContext, parties: Parties, opinionRefs: Map<string, Ref>): void {
  const { s, t, sys, add, refTo } = ctx;
  const { patientRef, expertRef } = parties;
  for (const r of s.reports) {
    const steps = s.steps.get(r.id) ?? [];
    if (r.status !== "Reviewed" || !steps.length) continue;
    const opinion = opinionRefs.get(r.id);
    const author = expertRef(r.expertId);
    const planId = fhirId("CarePlan", r.id);
    const requestIds = steps.map((st) => fhirId("ServiceRequest", st._id));
    const plan: CarePlan = {
      resourceType: "CarePlan",
      id: planId,
      identifier: [{ system: sys.opinion, value: r.id }],
      status: steps.some((st) => st.state === "open") ? "active" : "completed",
      intent: "plan",
      title: t("steps.letter.heading"),
      subject: patientRef,
      ...(r.reviewedAt ? { created: iso(r.reviewedAt) } : {}),
      ...(author ? { author } : {}),
      ...(opinion ? { supportingInfo: [opinion] } : {}),
      activity: requestIds.map((id) => ({ reference: refTo("ServiceRequest", id) })),
    };
    add(plan);
    steps.forEach((st, i) => {
      const referral = st.kind !== "tests";
      const code: CodeableConcept =
        st.kind === "tests"
          ? {
              coding: (st.tests ?? []).map((x) => ({ system: LOINC, code: x.loinc, display: x.name })),
              text: (st.tests ?? []).map((x) => x.name).join(", "),
            }
          : st.kind === "specialist"
            ? {
                coding: [{ system: sys.specialty, code: st.specialty ?? "" }],
                text: st.specialty ? t(SPECIALTY_KEYS[st.specialty as Specialty] ?? st.specialty) : "",
              }
            : { text: text(st.facility) ?? t("steps.say.nearest") };
      const request: ServiceRequest = {
        resourceType: "ServiceRequest",
        id: requestIds[i],
        identifier: [
          { system: sys.step, value: st._id },
          ...(st.referral ? [{ system: sys.referralCode, value: st.referral.code }] : []),
        ],
        basedOn: [refTo("CarePlan", planId)],
        status: STATUS[st.state],
        intent: "order",
        ...(referral
          ? { category: [{ coding: [{ system: SNOMED, code: "3457005", display: "Patient referral" }] }] }
          : {}),
        code,
        subject: patientRef,
        occurrenceDateTime: st.dueOn,
        ...(r.reviewedAt ? { authoredOn: iso(r.reviewedAt) } : {}),
        ...(author ? { requester: author } : {}),
        ...(st.kind === "facility" && text(st.reason) ? { reasonCode: [{ text: text(st.reason) }] } : {}),
        ...(opinion ? { reasonReference: [opinion] } : {}),
        ...(st.stateReason ? { note: [{ text: st.stateReason }] } : {}),
      };
      add(request);
    });
  }
}
