/**
 * A printed reference range, kept whole as printed (decision 0089): one part ("13.0 - 17.0",
 * "Up to 40", "Desirable: < 200") or several — for men and women, adults and children, age
 * bands, the categories of a risk table — each with its bounds. The part that applies is chosen
 * from what the platform has recorded of the patient (her sex, her age); when that does not
 * decide it, none is chosen and no judgement is made against the range.
 *
 * One grammar (decision 0105): the reader's row and a range typed by the expert or sent to the
 * API are read by the same lexer and the same `printedRange`, so every form the reader knows is
 * known wherever a range is read.
 */
import { lex, RANGE_CELL, type Label, type Tok } from "./lexer";
import { convert } from "./convert";
import type { PrintedRange, RangePart } from "./types";

/** What the platform has recorded of the patient a report belongs to. */
export type Patient = { sex: "female" | "male" | "other" | null; age: number | null };

/** What is stored of her: her sex and year of birth (the patient's profile). */
export type Recorded = { sex: Patient["sex"]; birthYear: number | null };

/**
 * What is recorded of her, with her age in the year of `date` (the sample's printed date, ISO, or
 * the day the report came): the sex and age that choose a range's part.
 */
export function patientOn(recorded: Recorded, date: string | Date): Patient {
  const year = typeof date === "string" ? Number(date.slice(0, 4)) : date.getUTCFullYear();
  return { sex: recorded.sex, age: recorded.birthYear ? year - recorded.birthYear : null };
}

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
  // A unit printed after a range is the range's own ("Up to 46 U / L") where the table reader
  // said the range cell begins, or where the value's unit was printed before the range
  // (decision 0104); otherwise it may be a unit column after the range, and is not the range's.
  let cell = false;
  let unitFirst = false;
  for (const t of toks) {
    if (t.k === "noise" && t.text === RANGE_CELL) cell = true;
    else if (t.k === "unit" && parts.length === 0) unitFirst = true;
    else if (t.k === "unit" && (cell || unitFirst) && text.length > 0 && !label) {
      const last = parts.at(-1)!;
      last.text = `${last.text} ${t.text}`;
      text.push(t.text);
    } else if (t.k === "label") {
      // A part's label with no bounds before the next label of its kind ("Male: Female: 0.55-1.02",
      // OCR having lost a part's bounds) is a range not read whole: suspect, never shown as read.
      if (label && label.kind === t.label.kind) suspect = true;
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
  // So is a range that ends with a part's label ("F : <38 U/L M:"): that part's bounds were lost.
  if (label && parts.some((p) => p.label)) suspect = true;
  // And a part for one sex after a part for nobody ("2.6-6.0 M: 3.5-7.2", OCR having lost the
  // first part's "F :"; decision 0124): whose the first part is cannot be told.
  if (parts[0]!.label === null && parts.some((p) => p.label?.kind === "sex")) suspect = true;
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

/** The longest range kept as typed: a range in several parts, with its units, fits. */
export const MAX_RANGE = 120;

/** A range read from its text, with the UCUM codes of the units printed inside it ("mg/dl"). */
export type ParsedRange = PrintedRange & { units: string[] };

/** What a range may hold besides its labels and parts: its units, punctuation, a word such as "Desirable". */
const BESIDE: ReadonlySet<Tok["k"]> = new Set(["unit", "noise", "status", "result"]);

/**
 * A printed range as text (typed by the expert, sent to the API): read by the reader's own lexer
 * and `printedRange`, so every form the reader knows — parts by sex, age or category in any order,
 * "Up to", "<", ">", "Less than", units inside ("4.0 - 6.0 million / cu.mm") — is known here too.
 * Its text is kept whole (spaces made single); its bounds are the part that applies to `patient`,
 * null when none can be chosen. Null when it is not a range: a number or word that belongs to no
 * part, a label without its range, a part whose low bound is above its high one.
 */
export function parseRange(text: string, patient?: Patient): ParsedRange | null {
  const whole = text.trim().replace(/\s+/g, " ");
  if (!whole) return null;
  // A decimal comma typed for a point ("12,5 - 15,5"); "4,000" and "1,50,000" stay thousands.
  const words = whole.replace(/(\d),(\d{1,2})(?![\d,])/g, "$1.$2").split(" ");
  const toks = lex(words);
  let open = false;
  for (const t of toks) {
    if (t.k === "label") {
      if (open) return null;
      open = true;
    } else if (t.k === "range") open = false;
    else if (!BESIDE.has(t.k)) return null;
  }
  if (open) return null;
  const read = printedRange(toks, patient);
  if (!read || read.suspect) return null;
  const units = toks.flatMap((t) => (t.k === "unit" && t.ucum !== "?" ? [t.ucum] : []));
  return { ...read.range, text: whole, units };
}

/**
 * The part of a stored range that applies (decision 0105): a value's row keeps its range whole and,
 * in the value's unit, the bounds of the part that applies; `factor` turns the range's printed unit
 * into that unit. Null for a range of one part, when no part was chosen (no bounds), or when the
 * bounds are not one part's.
 */
export function appliedPart(
  text: string | null,
  low: number | null,
  high: number | null,
  factor: number,
): string | null {
  if (!text || (low === null && high === null)) return null;
  const parts = parseRange(text)?.parts;
  if (!parts || parts.length < 2) return null;
  const same = (printed: number | null, stored: number | null) =>
    printed === null
      ? stored === null
      : stored !== null &&
        Math.abs(convert(printed, factor) - stored) <= 1e-9 * Math.max(1, Math.abs(stored));
  const texts = new Set(parts.filter((p) => same(p.low, low) && same(p.high, high)).map((p) => p.text));
  return texts.size === 1 ? [...texts][0]! : null;
}

/**
 * A range printed in parts cut before each part, so that each shows whole with its units ("Male :
 * 0.7 - 1.4 mg/dl", "Female : 0.6 - 1.2 mg/dl"), with its part's text (as `applies` names it). Null
 * for a range of one part, or when its parts are not found in the text as printed.
 */
export function printedParts(text: string | null): { printed: string; part: string }[] | null {
  const r = text ? parseRange(text) : null;
  if (!r?.parts || r.parts.length < 2) return null;
  const at: number[] = [];
  for (const p of r.parts) {
    const i = r.text.indexOf(p.text, at.length ? at[at.length - 1]! + 1 : 0);
    if (i < 0) return null;
    at.push(i);
  }
  return r.parts.map((p, k) => ({
    printed: r.text
      .slice(k === 0 ? 0 : at[k], at[k + 1])
      .trim()
      .replace(/[,;]$/, ""),
    part: p.text,
  }));
}
