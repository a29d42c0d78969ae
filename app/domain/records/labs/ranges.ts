/**
 * A printed reference range, kept whole as printed (decision 0089): one part ("13.0 - 17.0",
 * "Up to 40", "Desirable: < 200") or several — for men and women, adults and children, age
 * bands, the categories of a risk table — each with its bounds. The part that applies is chosen
 * from what the platform has recorded of the patient (her sex, her age); when that does not
 * decide it, none is chosen and no judgement is made against the range.
 */
import type { Label, Tok } from "./lexer";
import type { PrintedRange, RangePart } from "./types";

/** What the platform has recorded of the patient a report belongs to. */
export type Patient = { sex: "female" | "male" | "other" | null; age: number | null };

/** The categories of a risk table that are its reference: the "normal" part. */
const REFERENCE = /^(desirable|optimal|normal|non.?diabetic|sufficiency|sufficient|negative)$/i;

type Collected = {
  text: string;
  parts: (RangePart & { label: Label | null })[];
  suspect: boolean;
  lead0: boolean;
};

/** The range tokens of a row (labels and ranges, in order), as printed. */
export function collectRange(toks: readonly Tok[]): Collected | null {
  const parts: Collected["parts"] = [];
  const text: string[] = [];
  let label: Label | null = null;
  let suspect = false;
  let lead0 = false;
  for (const t of toks) {
    if (t.k === "label") {
      label = t.label;
      text.push(t.text);
    } else if (t.k === "range") {
      parts.push({
        label,
        text: label ? `${label.text} ${t.text}` : t.text,
        low: t.range.low,
        high: t.range.high,
      });
      text.push(t.text);
      suspect ||= t.suspect;
      lead0 ||= t.lead0 === true;
      label = null;
    }
  }
  if (parts.length === 0) return null;
  return { text: text.join(" "), parts, suspect, lead0 };
}

/** Years of an age band, widened by a year each way: an age worked out from a year of birth may be one out. */
function bandHolds(years: [number | null, number | null], age: number): boolean {
  const [lo, hi] = years;
  return (lo === null || age - 1 >= lo) && (hi === null || age + 1 <= hi);
}

function ageKey(age: number): string | null {
  if (age >= 18) return "adult";
  if (age >= 1 && age < 12) return "child";
  return null;
}

/** The part that applies to this patient, or null when what is recorded of her does not decide it. */
function choose(parts: Collected["parts"], patient: Patient | undefined): Collected["parts"][number] | null {
  if (parts.length === 1 && !parts[0]!.label) return parts[0]!;
  const kinds = new Set(parts.map((p) => p.label?.kind ?? "none"));
  if (kinds.size !== 1) return null;
  const kind = [...kinds][0];
  if (kind === "category") {
    const ref = parts.filter((p) => REFERENCE.test(p.label!.key.replace(/[^a-z]/gi, " ").trim()));
    return ref.length === 1 ? ref[0]! : null;
  }
  if (kind === "sex") {
    const sex = patient?.sex;
    if (sex !== "female" && sex !== "male") return null;
    const mine = parts.filter((p) => p.label!.key === sex);
    return mine.length === 1 ? mine[0]! : null;
  }
  if (kind === "age") {
    const age = patient?.age;
    if (age == null) return null;
    const mine = parts.filter((p) =>
      p.label!.years ? bandHolds(p.label!.years, age) : p.label!.key === ageKey(age),
    );
    return mine.length === 1 ? mine[0]! : null;
  }
  return null;
}

/**
 * The printed range of a row: its text as printed, its parts, and the bounds of the part that
 * applies to the patient (null bounds, and `applies` null, when it cannot be chosen).
 */
export function printedRange(
  toks: readonly Tok[],
  patient?: Patient,
): { range: PrintedRange; suspect: boolean; lead0: boolean } | null {
  const c = collectRange(toks);
  if (!c) return null;
  if (c.parts.length === 1 && !c.parts[0]!.label) {
    const p = c.parts[0]!;
    return { range: { text: c.text, low: p.low, high: p.high }, suspect: c.suspect, lead0: c.lead0 };
  }
  const chosen = choose(c.parts, patient);
  return {
    range: {
      text: c.text,
      low: chosen?.low ?? null,
      high: chosen?.high ?? null,
      parts: c.parts.map(({ text, low, high }) => ({ text, low, high })),
      applies: chosen?.text ?? null,
    },
    suspect: c.suspect,
    lead0: c.lead0,
  };
}
