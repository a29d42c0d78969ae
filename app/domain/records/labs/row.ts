/**
 * One row of a lab report (decisions 0079, 0089): the tokens after a test's name → its value,
 * unit, printed range and flag, or the reason it is not read. The value is a plain number right
 * after the name (flags, status words, method words and a word or two of noise may come before
 * or between), or a word result for a test that reports one. Doubt is the value's own: a value
 * outside what is possible, one that fits its printed range only with its decimal point moved, a
 * leading zero that may be a lost point, a printed range far from the test's usual one, a count
 * read with another multiplier than printed (decision 0106) — each lowers this row's confidence,
 * never another's.
 */
import { factorFor } from "./catalogue";
import type { Tok } from "./lexer";
import { printedMeasure, storedMeasure, wordMeasure } from "./measure";
import { countSaid, farFromUsual, isCount, possible, readingsOf, sameOrder } from "./plausible";
import { printedRange, type Patient } from "./ranges";
import { microUcum, nearUcum, unseenMicroUcum } from "./units";
import type { Analyte, Flag, LabRow, PrintedRange, Specimen } from "./types";

export type NameMatch = {
  from: number;
  to: number;
  printed: string;
  analytes: readonly Analyte[];
  /** Why the name is a guess (one letter off a catalogue name): never confident. */
  guessed?: string;
};
export type Read = { row: Omit<LabRow, "lineIndex"> } | { reject: string };

const UNITLESS = ["1", "[pH]", "{INR}"];

/** Names a row's specimen itself, so it may stand outside its section ("Urine Microalbumin"). */
const NAMES_SPECIMEN: Record<Specimen, RegExp> = {
  urine: /urin|micro|\bacr\b/i,
  blood: /serum|plasma|blood|^s\.?r?\.? /i,
};

function pick(match: NameMatch, section: Specimen, ucum: string | null, n: number | null): Analyte[] {
  // The section decides between blood and urine; a row of the other specimen counts only when its
  // printed name says so (a bare "Sugar" under BIOCHEMISTRY is not read as the urine's).
  const pool = match.analytes.filter(
    (a) => a.specimen === section || NAMES_SPECIMEN[a.specimen].test(match.printed),
  );
  if (n === null) return pool.filter((a) => a.scale === "ord");
  const numbers = pool.filter((a) => a.scale !== "ord");
  if (ucum) return numbers.filter((a) => factorFor(a, ucum) !== null);
  const unitless = numbers.filter((a) => UNITLESS.includes(a.unit));
  if (unitless.length > 0) return unitless;
  // A count without its unit may be per cumm, thousands, lakhs or millions (decision 0106).
  return numbers.filter((a) => readingsOf(a).some((r) => possible(a, n * r.factor)));
}

/**
 * Of several tests a name may mean, the one whose usual interval a value sits closest to (by
 * ratio to its middle), when it is at least twice as close as any other; else none.
 */
function byUsual(candidates: readonly Analyte[], n: number): Analyte | null {
  if (n <= 0) return null;
  const away = candidates
    .map((a) => ({ a, d: a.usual ? Math.abs(Math.log(n / ((a.usual[0] + a.usual[1]) / 2 || 1))) : Infinity }))
    .sort((x, y) => x.d - y.d);
  const [first, second] = away;
  return first && second && Number.isFinite(first.d) && first.d * 2 < second.d ? first.a : null;
}

/** Within the range, or within half its width of it (a value a range is about). */
function near(n: number, low: number | null, high: number | null): boolean {
  const span = low !== null && high !== null ? high - low : Math.abs(high ?? low ?? 0);
  return (low === null || n >= low - span / 2) && (high === null || n <= high + span / 2);
}
const inside = (n: number, low: number | null, high: number | null) =>
  (low === null || n >= low) && (high === null || n <= high);
const scaled = (b: number | null, f: number) => (b === null ? null : b * f);

/**
 * The value with the decimal point OCR lost put back (decision 0124), or null: a whole number of
 * two digits or more, no leading zero, impossible for the test as read, that one place of the point
 * alone (a tenth or a hundredth) makes possible and puts by its printed range (with no bounds to go
 * by, among the test's usual values). Zeros where a lab printing fewer decimals would print none
 * are a mark read as a zero, and are dropped. `prints`: the decimals the lab prints for the test.
 */
function lostPoint(
  a: Analyte,
  value: { n: number; text: string },
  factor: number,
  low: number | null,
  high: number | null,
  prints: number,
): { n: number; text: string } | null {
  if (!/^[1-9]\d+$/.test(value.text)) return null;
  const bounded = low !== null && high !== null;
  // Only a number no body holds for this test: "130" beside urea's "17 - 43" is high, not 13.0.
  if (possible(a, value.n * factor) || (!bounded && !a.usual)) return null;
  const fits = [1, 2].filter((k) => {
    if (k >= value.text.length) return false;
    const n = value.n / 10 ** k;
    return bounded
      ? near(n, low, high) && possible(a, n * factor)
      : possible(a, n * factor) && near(n * factor, ...a.usual!);
  });
  if (fits.length !== 1) return null;
  const k = fits[0]!;
  // Hidden decimals all zeros from a lab that prints fewer are a mark read as a zero ("531↑" as
  // "5310"): the number without them.
  const whole = value.text.slice(0, -k);
  const hidden = value.text.slice(-k);
  const text = /^0+$/.test(hidden) && prints < k ? whole : `${whole}.${hidden}`;
  return { n: Number(text), text };
}

/**
 * A printed range of one part with its decimal points put back (decision 0124), or null: every
 * number in it a bound, whole, of two digits or more; far from the test's usual interval (or past
 * what is possible) as read, and by it with each bound a tenth ("40-56" beside HbA1c is 4.0-5.6).
 */
function lostRangePoints(a: Analyte, r: PrintedRange, factor: number): PrintedRange | null {
  if (r.parts || !a.usual) return null;
  const bounds = [r.low, r.high];
  const numbers = r.text.match(/\d+(?:[.,]\d+)?/g) ?? [];
  if (numbers.length !== bounds.filter((b) => b !== null).length) return null;
  if (!numbers.length || numbers.some((t) => !/^[1-9]\d+$/.test(t))) return null;
  const wrong = (b: (number | null)[]) =>
    b.some((x) => x !== null && x * factor > a.possible[1]) ||
    farFromUsual(a, scaled(b[0]!, factor), scaled(b[1]!, factor));
  const tenth = bounds.map((b) => (b === null ? null : b / 10));
  if (!wrong(bounds) || wrong(tenth)) return null;
  const text = r.text.replace(/\d+/g, (t) => `${t.slice(0, -1)}.${t.slice(-1)}`);
  return { ...r, text, low: tenth[0]!, high: tenth[1]! };
}

/** A word result's row: the word as printed, the printed reference word as its range. */
function wordRow(match: NameMatch, toks: Tok[], section: Specimen): Read {
  const at = toks.findIndex((t) => t.k !== "noise");
  const t = toks[at];
  if (!t || t.k !== "result") return { reject: "no value" };
  const a = pick(match, section, null, null)[0];
  if (!a) return { reject: "a word where this test prints a number" };
  if (a.typedOnly) return { reject: "a result the expert types: its letters are not read" };
  const ref = toks.slice(at + 1).find((x) => x.k === "result");
  const doubts: string[] = [];
  let confidence = 0.97;
  if (!ref) {
    doubts.push("no printed reference to check the result against");
    confidence -= 0.1;
  }
  if (match.guessed) {
    doubts.push(match.guessed);
    confidence = Math.min(confidence - 0.1, 0.85);
  }
  // The result and its printed reference kept as text, judged only where the words are certain (0098).
  const measure = wordMeasure(t.text, ref && ref.k === "result" ? ref.text : null);
  if (!measure) return { reject: "a word result too long to be one" };
  return {
    row: {
      loinc: a.loinc,
      analyte: a.name,
      printedName: match.printed,
      value: Number.NaN,
      unit: "",
      printedValue: t.text,
      printedUnit: null,
      printedUcum: null,
      range: ref && ref.k === "result" ? { text: ref.text, low: null, high: null } : null,
      measure,
      flag: null,
      flagSource: null,
      word: true,
      confidence,
      doubts,
    },
  };
}

/**
 * "Haemoglobin / हीमोग्लोबिन 11.2": the name again in another language after a "/", which OCR's
 * English pass turns into stray words — passed over up to the value.
 */
function otherLanguage(toks: Tok[]): Tok[] {
  if (toks[0]?.k !== "noise" || toks[0].text !== "/") return toks;
  let j = 1;
  while (j < toks.length && j <= 8 && (toks[j]!.k === "word" || toks[j]!.k === "noise")) j++;
  const t = toks[j];
  return t && (t.k === "num" || t.k === "result" || t.k === "flag") ? toks.slice(j) : toks;
}

/** One name's row: the tokens between it and the next name (and a continued range's lines). */
export function readRow(
  match: NameMatch,
  all: Tok[],
  section: Specimen,
  patient?: Patient,
  ocr = false,
): Read {
  const toks = otherLanguage(all);
  const doubts: string[] = [];
  let confidence = 0.97;
  let cap = 1;
  const doubt = (why: string, cost: number, most = 1) => {
    doubts.push(why);
    confidence -= cost;
    cap = Math.min(cap, most);
  };
  if (match.guessed) doubt(match.guessed, 0.1, 0.85);
  let i = 0;
  let unitBefore: Extract<Tok, { k: "unit" }> | null = null;
  let flag: Flag | null = null;
  let words = 0;
  for (; i < toks.length && toks[i]!.k !== "num"; i++) {
    const t = toks[i]!;
    if (t.k === "unit") unitBefore ??= t;
    else if (t.k === "flag") flag ??= t.flag;
    else if (t.k === "result" && words === 0 && match.analytes.some((a) => a.scale === "ord"))
      return wordRow(match, toks, section);
    else if (t.k === "range" || t.k === "label") return { reject: "a range where the value should be" };
    else if (t.k === "date") return { reject: "a date where the value should be" };
    else if (t.k === "word" && t.sentence) return { reject: "a name in a sentence, not a row" };
    else if (t.k === "word") words++;
  }
  if (i >= toks.length) return { reject: "no value" };
  if (words > 2) return { reject: "words between the name and the value" };
  if (words > 0) doubt("words between the name and the value", 0.1);
  let value = toks[i] as Extract<Tok, { k: "num" }>;
  let unit: Extract<Tok, { k: "unit" }> | null = null;
  let first = true;
  // A unit OCR garbled ("g/dt", "mnv/hr", "10°3/uL_—s") that can only be one the test is printed in.
  const allowed = match.analytes.flatMap((a) => [a.unit, ...a.alt.map((u) => u.ucum)]);
  const after = toks.slice(i + 1).map((t): Tok => {
    if (t.k !== "word") return t;
    const near = nearUcum(t.text, allowed);
    if (!near) return t;
    doubt("its unit read through a smudge", 0.05);
    return { k: "unit", ucum: near, text: t.text };
  });
  // A unit cell OCR could not read at all ("33.70  pa  ¦ 27 - 31 pg") beside a range printed with a
  // unit this test is printed in: the range's unit stands for it, in doubt (decision 0124).
  const cell = after[0];
  if (cell?.k === "word" && /^[\p{L}%]{1,5}$/u.test(cell.text)) {
    const rest = after.slice(1).filter((t) => t.k !== "noise");
    const [range, unitOfRange] = rest;
    if (range?.k === "range" && unitOfRange?.k === "unit" && allowed.includes(unitOfRange.ucum)) {
      after[0] = { k: "noise", text: cell.text };
      doubt("its unit did not read: the range's unit is taken", 0.1);
    }
  }
  for (const t of after) {
    if (t.k === "noise" || t.k === "status" || t.k === "result") continue;
    if (t.k === "flag") {
      flag ??= t.flag;
      continue;
    }
    if (first && (t.k === "word" || t.k === "date"))
      return { reject: "the value is followed by a word, not a unit" };
    if (first && t.k === "num") {
      // An arrow or a mark after the value read by OCR as one digit ("132 5 mEq/L"): the value
      // stands, in doubt; any other second number leaves the row unread.
      const mark = /^\d$/.test(t.text) && !value.text.endsWith(t.text) && after.some((x) => x.k === "unit");
      if (!mark) return { reject: "two numbers where one value should be" };
      doubt("a mark after the value read as a digit?", 0.3);
      continue;
    }
    first = false;
    if (t.k === "unit") unit ??= t;
    else if (t.k === "num") doubt("another number on the row", 0.2);
  }
  unit ??= unitBefore;
  let ucum = unit?.ucum ?? null;
  let candidates = pick(match, section, ucum, value.n);
  // A "µ" read as "p" or "y" by OCR: "pmol/L" beside creatinine is µmol/L.
  const micro = unit && candidates.length === 0 ? microUcum(unit.text) : null;
  // …or a µ not seen at all ("g/dL" beside TIBC): a guess the expert checks (decision 0124).
  const unseen = unit && candidates.length === 0 && !micro ? unseenMicroUcum(unit.text) : null;
  const asMicro = micro ?? unseen;
  if (asMicro && pick(match, section, asMicro, value.n).length > 0) {
    ucum = asMicro;
    candidates = pick(match, section, asMicro, value.n);
    if (unseen) doubt("its unit read as µ (no µ was seen)", 0.1, 0.85);
    else doubt("its unit read as µ", 0.05);
  }
  if (candidates.length === 0)
    return {
      reject: ucum ? `unit ${unit!.text} does not fit` : "no unit, and the name alone does not decide",
    };
  if (candidates.length > 1 && !ucum && !candidates.some((c) => isCount(c.unit))) {
    // "RDW 13.8" without a unit: the one test whose usual interval the value sits by (CV, not SD).
    // (A count against a percentage stays undecided: "Neutrophils 62" may be either, decision 0106.)
    const nearest = byUsual(candidates, value.n);
    if (nearest) {
      candidates = [nearest];
      doubt(`no unit printed: read as ${nearest.name}, whose usual values it sits by`, 0.05);
    }
  }
  if (candidates.length > 1) return { reject: "the name and unit fit more than one analyte" };
  const a = candidates[0]!;
  const read = printedRange(after, patient);
  // An unknown word just before the range may be a label OCR could not read ("1-l2Yrs:").
  const at = after.findIndex((t) => t.k === "range" || t.k === "label");
  if (at > 0 && after[at - 1]!.k === "word") doubt("a word before the printed range", 0.1);
  let printed = read?.range ?? null;
  // A bound printed "07" may be 0.7 or 7: it stands only when the value sits by the range it makes.
  const lost = read?.lead0 && printed && !near(value.n, printed.low, printed.high);
  if (read?.suspect || lost) {
    doubt("the printed range did not read cleanly", 0.3);
    printed = null;
  } else if (!printed) doubt("no printed range to check the value against", 0.1);
  else if (printed.parts && printed.applies === null)
    doubts.push("which part of the printed range applies could not be chosen from her recorded sex and age");
  // A range whose decimal points OCR did not see ("25-45" beside phosphorus; decision 0124).
  const pointed = ocr && printed ? lostRangePoints(a, printed, ucum ? factorFor(a, ucum)! : 1) : null;
  if (pointed) {
    doubt(`the printed range's decimal points were not seen: read as ${pointed.text}`, 0.4, 0.6);
    printed = pointed;
  }
  const { low, high } = printed ?? { low: null, high: null };
  const bounded = low !== null || high !== null;
  let factor = ucum ? factorFor(a, ucum)! : 1;
  // A count whose number and printed range fit only another multiplier than the printed one (or,
  // with none printed, than the analyte's own): "400000 lak/ cumm 150000 - 450000" is per cumm
  // (decision 0106). Both must sit where they belong: the value possible and by its range (or, with
  // none, by the usual interval), the range near the usual one.
  const fits = (f: number) =>
    possible(a, value.n * f) && !(bounded && farFromUsual(a, scaled(low, f), scaled(high, f)));
  const belongs = (f: number) =>
    fits(f) && (bounded ? sameOrder(value.n, low, high) : !a.usual || sameOrder(value.n * f, ...a.usual));
  const other =
    (ucum === null || isCount(ucum)) && !fits(factor)
      ? readingsOf(a).filter((r) => r.factor !== factor && belongs(r.factor))
      : [];
  if (other.length === 1) {
    [ucum, factor] = [other[0]!.ucum, other[0]!.factor];
    if (unit) doubt(`the printed unit does not fit the number: read as ${countSaid(ucum)}`, 0.2, 0.85);
    else doubt(`no unit printed: read as ${countSaid(ucum)}, the only count its number and range fit`, 0.3);
  } else if (!ucum && !UNITLESS.includes(a.unit)) doubt("no unit printed", 0.3);
  /** Doubts about where the value stands: against such a value nothing is judged. */
  let unsure = pointed !== null;
  // A lab that prints this analyte with decimals printed none: perhaps the point was lost
  // (a unit with a factor below 1, such as /cumm or µmol/L, is printed as a whole number).
  if (a.decimals > 0 && !value.text.includes(".") && factor >= 1 && !(bounded && inside(value.n, low, high)))
    doubt("no decimal point where labs print one", 0.1);
  if (value.suspect && !(bounded && near(value.n, low, high))) {
    doubt("a leading zero: the decimal point may be lost", 0.4, 0.6);
    unsure = true;
  }
  const decimals = (t: string) => t.split(".")[1]?.length ?? 0;
  const rangeDecimals = Math.max(0, ...(printed?.text.match(/\d+(?:\.\d+)?/g) ?? []).map(decimals));
  // A point lost k places from the end hid k decimals: all zeros ("155000.0") only from a lab that
  // prints that many, in its range or for this test in its own unit (decision 0106).
  const prints = Math.max(rangeDecimals, factor >= 1 ? a.decimals : 0);
  const hidden = (f: number) => {
    const k = Math.round(Math.log10(f));
    return k <= prints || value.text.includes(".") || !value.text.replace(/,/g, "").endsWith("0".repeat(k));
  };
  if (bounded && !inside(value.n, low, high)) {
    // Only a range with both bounds can say a value belongs in it with its point moved, and only a
    // value at least twice beyond it: 58 beside 5 - 40 is high, 368 beside 36 - 46 a lost point,
    // 1550000 beside 150000 - 450000 (a count, in whole numbers) high.
    const moved =
      low !== null &&
      high !== null &&
      (value.n > high * 2 || value.n < low / 2) &&
      [10, 100, 1000, 0.1, 0.01].some((f) => inside(value.n / f, low, high) && hidden(f));
    if (moved) {
      doubt("it fits its printed range only with the decimal point moved", 0.4, 0.6);
      unsure = true;
    }
    const scale = Math.max(low ?? 0, high ?? 0);
    if (value.n > 0 && scale > 0 && (value.n > scale * 20 || value.n < (low ?? high ?? 0) / 20)) {
      doubt("the value is far from the printed range", 0.3);
      unsure = true;
    }
  }
  // More decimals than the lab prints in its range or anywhere for this test: a mark after the
  // value read as a digit ("6.8↑" as "6.85")?
  const labPrints = Math.max(rangeDecimals, a.decimals);
  if (printed && decimals(value.text) >= 2 && decimals(value.text) > labPrints) {
    doubt("more decimals than the lab prints for this test", 0.1);
    // …a mark read as a zero ("8.5↓" as "8.50"): OCR's number keeps only the lab's decimals, the
    // same number (decision 0124).
    const [whole, part] = value.text.split(".") as [string, string];
    if (ocr && /^0+$/.test(part.slice(labPrints)))
      value = { ...value, text: labPrints ? `${whole}.${part.slice(0, labPrints)}` : whole };
  }
  // A one-sided range whose bound lost its point: "< 17" beside 1.9 printed with its decimals.
  const oneSided = (low === null) !== (high === null);
  const bound = low ?? high;
  if (
    oneSided &&
    bound !== null &&
    value.text.includes(".") &&
    !/\d\.\d/.test(printed!.text) &&
    bound >= 10 &&
    bound >= value.n * 8
  ) {
    doubt("the printed range may have lost its decimal point", 0.3);
    unsure = true;
  }
  // A range bound no lab would print (every point on the line lost: "130 - 170" for Hb).
  if ([low, high].some((b) => b !== null && b * factor > a.possible[1])) {
    doubt("the printed range is outside what is possible (a misreading?)", 0.3);
    unsure = true;
  } else if (farFromUsual(a, scaled(low, factor), scaled(high, factor))) {
    // "70-210" beside BUN (usual 7 - 21): no lab prints it, whatever OCR said (decision 0106).
    doubt("the printed range is far from any this test is printed with (a misreading?)", 0.3, 0.85);
    unsure = true;
  }
  // A decimal point OCR did not see (decision 0124): "45" beside potassium's "3.5 - 5.1" is 4.5.
  // Put back only where one place alone puts the value by its printed range (or, with none to
  // judge by, among this test's usual values where the number as read is impossible); the row
  // stays in doubt, at most 0.6, and nothing is judged against it.
  const point = ocr ? lostPoint(a, value, factor, low, high, prints) : null;
  if (point) {
    const where = bounded ? "where its printed range puts it" : "where this test's values lie";
    doubt(
      point.text.includes(".")
        ? `its decimal point was not seen: read as ${point.text}, ${where}`
        : `a mark after the value read as a 0: read as ${point.text}, ${where}`,
      0.4,
      0.6,
    );
    value = { ...value, ...point };
    unsure = true;
  }
  const n = value.n * factor;
  if (!possible(a, n)) {
    doubt("outside what is possible for this test (a misreading?)", 0.5, 0.45);
    unsure = true;
  }
  // The value and its printed range in the analyte's unit, judged there (decision 0088) — unless
  // the value or the range is in doubt: the range is kept as printed, and nothing said against it.
  if (unsure && printed) printed = { ...printed, low: null, high: null };
  let measure = printedMeasure(a, value.n, ucum, printed)!;
  let flagSource: LabRow["flagSource"] = flag ? "printed" : null;
  if (printed && bounded && !unsure) {
    const computed = measure.flag;
    if (flag && measure.judgement !== "unknown" && flag !== computed) {
      // The report's own flag says otherwise than value and range as read ("L" beside 25 and
      // "5.1 - 14.1", "H" beside a value within it): one of the three was misread, and which one
      // is unknown. Nothing is said against the report: the range is kept as printed, unjudged.
      doubt("the printed flag disagrees with the printed range", 0.3);
      printed = { ...printed, low: null, high: null };
      measure = printedMeasure(a, value.n, ucum, printed)!;
    } else if (!flag && computed) {
      flag = computed;
      flagSource = "computed";
    }
  }
  return {
    row: {
      loinc: a.loinc,
      analyte: a.name,
      printedName: match.printed,
      value: measure.value,
      unit: measure.unit,
      printedValue: value.text,
      printedUnit: unit?.text ?? null,
      printedUcum: ucum,
      range: printed,
      measure,
      flag,
      flagSource,
      confidence: Math.max(0, Math.min(cap, Math.round(confidence * 100) / 100)),
      doubts,
    },
  };
}

/**
 * The row as read with nothing judged against its printed range: a number the reader doubts
 * after the fact (the OCR unsure of its digits, decision 0126). The range stays as printed; only a
 * flag the report printed is kept. The expert's confirmation judges it (consultation, lab values).
 */
export function unjudged<R extends Omit<LabRow, "lineIndex">>(row: R): R {
  if (row.measure.kind !== "number") return row;
  const computed = row.flagSource === "computed";
  return {
    ...row,
    range: row.range && { ...row.range, low: null, high: null },
    measure: storedMeasure({
      value: row.measure.value,
      unit: row.measure.unit,
      rangeLow: null,
      rangeHigh: null,
    }),
    flag: computed ? null : row.flag,
    flagSource: computed ? null : row.flagSource,
  };
}
