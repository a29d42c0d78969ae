/**
 * One value, one unit, one judgement (decision 0088). A lab value and the range printed beside it
 * are held together in the analyte's UCUM unit, both converted by the one conversion below, so a
 * value is only ever compared with a range in its own unit. This type alone says whether the value
 * is below, within or above its printed range (or that none was printed) and what FHIR calls that
 * (L, N, H): the reader's computed flag, the expert's flag, the patient's words, the chart's band
 * and the FHIR Observation all read it, and so cannot disagree. Pure: no I/O.
 */
import { factorFor } from "./catalogue";
import type { Analyte, Interpretation, Judgement, LabMeasure } from "./types";

// The measure's shape lives with the reader's other shapes (types.ts), which this module builds;
// kept there so the shapes import nothing (no circle through the catalogue).
export type { Interpretation, Judgement, LabMeasure } from "./types";

/**
 * The one conversion: `n` in a unit whose factor to the analyte's unit is `factor`. Twelve
 * significant digits take the float noise off (2.1 × 100 = 210.00000000000003 → 210) and keep every
 * digit a lab prints; it never reverses an order, so a value on its printed range's edge stays on it.
 */
export function convert(n: number, factor: number): number {
  return factor === 1 ? n : Number((n * factor).toPrecision(12));
}

/** The patient's sentence for each judgement (app/i18n, section labs): what her screen says. */
export const JUDGEMENT_WORDS = {
  below: "labs.below",
  within: "labs.within",
  above: "labs.above",
  unknown: "labs.noRange",
} as const satisfies Record<Judgement, string>;

const INTERPRETATION: Record<Judgement, Interpretation | null> = {
  below: "L",
  within: "N",
  above: "H",
  unknown: null,
};

function judged(value: number, unit: string, low: number | null, high: number | null): LabMeasure {
  const judgement: Judgement =
    (low === null && high === null) || !Number.isFinite(value)
      ? "unknown"
      : high !== null && value > high
        ? "above"
        : low !== null && value < low
          ? "below"
          : "within";
  const interpretation = INTERPRETATION[judgement];
  return {
    value,
    unit,
    low,
    high,
    judgement,
    interpretation,
    flag: interpretation === "H" || interpretation === "L" ? interpretation : null,
  } as LabMeasure;
}

/**
 * A value and the range printed beside it, as printed: both in `ucum` (null: no unit was printed,
 * so the analyte's own), converted alike into the analyte's unit. Null when `ucum` does not fit
 * the analyte.
 */
export function printedMeasure(
  a: Analyte,
  value: number,
  ucum: string | null,
  range: { low: number | null; high: number | null } | null,
): LabMeasure | null {
  const factor = ucum === null ? 1 : factorFor(a, ucum);
  if (factor === null) return null;
  const bound = (n: number | null | undefined) => (n == null ? null : convert(n, factor));
  return judged(convert(value, factor), a.unit, bound(range?.low), bound(range?.high));
}

/**
 * A stored value (a `lab_values` row, or the API's shape of one): the value, and the printed range
 * converted as it was, both in `unit` (decision 0088).
 */
export function storedMeasure(v: {
  value: number;
  unit: string;
  rangeLow: number | null;
  rangeHigh: number | null;
}): LabMeasure {
  return judged(v.value, v.unit, v.rangeLow ?? null, v.rangeHigh ?? null);
}
