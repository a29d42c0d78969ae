/**
 * One value, one unit, one judgement (decision 0088). A lab value and the range printed beside it
 * are held together in the analyte's UCUM unit, both converted by the one conversion below, so a
 * value is only ever compared with a range in its own unit. This type alone says whether the value
 * is below, within or above its printed range (or that none was printed) and what FHIR calls that
 * (L, N, H): the reader's computed flag, the expert's flag, the patient's words, the chart's band
 * and the FHIR Observation all read it, and so cannot disagree. Pure: no I/O.
 */
import { factorFor } from "./catalogue";
import { convert } from "./convert";
import { printedParts } from "./ranges";
import type { Analyte, Interpretation, Judgement, LabMeasure, NumberMeasure, TextMeasure } from "./types";

// The measure's shape lives with the reader's other shapes (types.ts), which this module builds;
// kept there so the shapes import nothing (no circle through the catalogue).
export type { Interpretation, Judgement, LabMeasure, NumberMeasure, TextMeasure } from "./types";
export { convert } from "./convert";

/** The patient's sentence for each judgement (app/i18n, section labs): what her screen says. */
export const JUDGEMENT_WORDS = {
  below: "labs.below",
  within: "labs.within",
  above: "labs.above",
  outside: "labs.outside",
  unknown: "labs.noRange",
} as const satisfies Record<Judgement, string>;

/** The patient's sentence for a text result (decision 0098): its reference is a word, not a range. */
export const TEXT_JUDGEMENT_WORDS = {
  below: "labs.textUnknown",
  above: "labs.textUnknown",
  within: "labs.textWithin",
  outside: "labs.textOutside",
  unknown: "labs.textUnknown",
} as const satisfies Record<Judgement, string>;

/**
 * The sentence for this measure: a number's against its range, a text result's against its
 * reference. A range printed beside the value that gives no bounds to compare with (in parts by sex
 * or age, and hers not recorded; decision 0105) is quoted whole and said not compared — never "no
 * range was printed"; one of a single part (a report whose flag says otherwise than its range,
 * decision 0126) is said not compared without a reason that is not hers.
 */
export function judgementWords(m: LabMeasure, printedRange?: string | null): string {
  if (m.kind === "text")
    return m.reference === null ? "labs.textNoReference" : TEXT_JUDGEMENT_WORDS[m.judgement];
  if (m.judgement === "unknown" && printedRange?.trim() && Number.isFinite(m.value))
    return printedParts(printedRange) ? "labs.notCompared" : "labs.notComparedOne";
  return JUDGEMENT_WORDS[m.judgement];
}

const INTERPRETATION: Record<Judgement, Interpretation | null> = {
  below: "L",
  within: "N",
  above: "H",
  outside: "A",
  unknown: null,
};

function judged(value: number, unit: string, low: number | null, high: number | null): NumberMeasure {
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
    kind: "number",
    value,
    unit,
    low,
    high,
    judgement,
    interpretation,
    flag: interpretation === "H" || interpretation === "L" ? interpretation : null,
  } as NumberMeasure;
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
): NumberMeasure | null {
  const factor = ucum === null ? 1 : factorFor(a, ucum);
  if (factor === null) return null;
  const bound = (n: number | null | undefined) => (n == null ? null : convert(n, factor));
  return judged(convert(value, factor), a.unit, bound(range?.low), bound(range?.high));
}

/*
 * Text results (decision 0098). A word is judged against the reference printed beside it only where
 * the two words say so for certain: each word is known as one of three kinds — the reference's own
 * kind of "nothing found" (Non-reactive, Negative, Nil, Absent, Not detected), "something found"
 * (Reactive, Positive, Present, Detected, Trace, +, ++, 1+ …) or "Normal" — and a result of the
 * reference's kind is within it, "something found" against "nothing found" is outside it. Any other
 * pair (an unknown word, a titre, a blood group, a reference that is itself "something found") is
 * not judged: no guess is ever said to the patient.
 */
type WordKind = "none" | "found" | "normal";

const NONE = ["non reactive", "nonreactive", "negative", "nil", "absent", "not detected", "neg", "-ve"];
const FOUND = ["reactive", "positive", "present", "detected", "pos", "+ve", "trace"];

/** A word's kind, or null when it is not one whose meaning is certain. */
export function wordKind(word: string): WordKind | null {
  const w = word
    .toLowerCase()
    .replace(/[()[\].,:;]/g, " ")
    .replace(/\s*-\s*ve$/, " -ve")
    .replace(/\s*\+\s*ve$/, " +ve")
    .replace(/(\w)[-_/\s]+(?=\w)/g, "$1 ")
    .replace(/\s+/g, " ")
    .trim();
  // The urine strip's grades: "+", "++", "+++", "++++", "1+" … "4+".
  if (/^\+{1,4}$/.test(w) || /^[1-4] ?\+$/.test(w)) return "found";
  if (NONE.includes(w)) return "none";
  if (FOUND.includes(w)) return "found";
  if (w === "normal") return "normal";
  return null;
}

/** The longest text result or reference kept (decision 0098): a word or a few, never a paragraph. */
export const MAX_TEXT = 40;

function wordJudgement(text: string, reference: string | null): Judgement {
  if (reference === null) return "unknown";
  const r = wordKind(text);
  const ref = wordKind(reference);
  if (r === null || ref === null) return "unknown";
  if (r === ref) return "within";
  if (ref === "none" && r === "found") return "outside";
  return "unknown";
}

/**
 * A text result and the reference printed beside it, both as text (decision 0098): judged only
 * where the words are certain. Null for an empty result, or one or a reference longer than MAX_TEXT.
 */
export function wordMeasure(text: string, reference: string | null): TextMeasure | null {
  const t = text.trim();
  const ref = reference?.trim() || null;
  if (!t || t.length > MAX_TEXT || (ref !== null && ref.length > MAX_TEXT)) return null;
  const judgement = wordJudgement(t, ref);
  return {
    kind: "text",
    text: t,
    reference: ref,
    judgement,
    interpretation: INTERPRETATION[judgement],
    flag: null,
  } as TextMeasure;
}

/**
 * A stored value (a `lab_values` row, or the API's shape of one): the value, and the printed range
 * converted as it was, both in `unit` (decision 0088); or a text result and its printed reference
 * (`valueText`, `rangeText`; decision 0098). A row with a text result is a text measure, whatever
 * else it holds.
 */
export function storedMeasure(v: {
  value: number | null;
  unit: string;
  rangeLow: number | null;
  rangeHigh: number | null;
  valueText?: string | null;
  rangeText?: string | null;
}): LabMeasure {
  if (v.valueText != null) {
    const ref = v.rangeText?.trim() || null;
    const judgement = wordJudgement(v.valueText, ref);
    return {
      kind: "text",
      text: v.valueText,
      reference: ref,
      judgement,
      interpretation: INTERPRETATION[judgement],
      flag: null,
    } as TextMeasure;
  }
  return judged(v.value ?? Number.NaN, v.unit, v.rangeLow ?? null, v.rangeHigh ?? null);
}
