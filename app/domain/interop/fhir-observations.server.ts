import type { Observation, Quantity } from "@medplum/fhirtypes";
import type { ReportRow } from "~/db/schema";
import { analyteByLoinc, loincName, storedMeasure } from "../records/labs";
import { fhirId, iso, type BundleContext, type Ref } from "./fhir-codes.server";

/**
 * Checked lab values as FHIR Observations (decision 0084): LOINC code, valueQuantity in UCUM,
 * referenceRange as printed on the report (never one we invent), interpretation H/L/N from the
 * printed range (N only when a range was printed). Value, range and interpretation are the value's
 * measure (decision 0088): one unit, and the judgement the patient and the expert read. Only values
 * an expert confirmed, corrected or added reach the snapshot; the report's DiagnosticReport lists
 * them in `result`. A text result ("Reactive") is a valueString with its printed reference as
 * `referenceRange.text`, interpreted (A or N) only where its measure is certain (decision 0098).
 */

const UCUM = "http://unitsofmeasure.org";
const LOINC = "http://loinc.org";
const INTERPRETATION = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation";
const CATEGORY = "http://terminology.hl7.org/CodeSystem/observation-category";
const DISPLAY = { H: "High", L: "Low", N: "Normal", A: "Abnormal" } as const;

function quantity(value: number, unit: string): Quantity {
  return { value, unit, system: UCUM, code: unit };
}

/** The references the report's DiagnosticReport gives in `result`, before the Observations are added. */
export function observationRefs(ctx: BundleContext, r: ReportRow): Ref[] {
  return (ctx.s.labValues.get(r.id) ?? []).map((v) => ctx.refTo("Observation", fhirId("Observation", v.id)));
}

/** Adds an Observation per checked value of the reviewed report. */
export function addObservations(
  ctx: BundleContext,
  r: ReportRow,
  subject: Ref,
  performer: Ref | undefined,
  document: Ref,
): void {
  for (const v of ctx.s.labValues.get(r.id) ?? []) {
    const analyte = analyteByLoinc(v.loinc);
    const m = storedMeasure(v);
    const interpretation = m.interpretation;
    const range =
      m.kind === "text"
        ? m.reference
          ? [{ text: m.reference }]
          : undefined
        : m.low != null || m.high != null || v.rangeText
          ? [
              {
                ...(m.low != null ? { low: quantity(m.low, m.unit) } : {}),
                ...(m.high != null ? { high: quantity(m.high, m.unit) } : {}),
                ...(v.rangeText ? { text: v.rangeText } : {}),
              },
            ]
          : undefined;
    const observation: Observation = {
      resourceType: "Observation",
      id: fhirId("Observation", v.id),
      status: v.status === "corrected" ? "corrected" : "final",
      category: [{ coding: [{ system: CATEGORY, code: "laboratory", display: "Laboratory" }] }],
      code: {
        // LOINC's own name for the code (decision 0089); the name printed on her report in `text`.
        coding: [
          { system: LOINC, code: v.loinc, ...(loincName(v.loinc) ? { display: loincName(v.loinc) } : {}) },
        ],
        text: v.printedName || analyte?.name || v.loinc,
      },
      subject,
      effectiveDateTime: iso(r.createdAt),
      ...(v.checkedAt ? { issued: iso(v.checkedAt) } : {}),
      ...(performer ? { performer: [performer] } : {}),
      ...(m.kind === "text" ? { valueString: m.text } : { valueQuantity: quantity(m.value, m.unit) }),
      ...(interpretation
        ? {
            interpretation: [
              {
                coding: [{ system: INTERPRETATION, code: interpretation, display: DISPLAY[interpretation] }],
              },
            ],
          }
        : {}),
      ...(range ? { referenceRange: range } : {}),
      derivedFrom: [document],
    };
    ctx.add(observation);
  }
}
