/**
 * The row recogniser (decision 0079): the text lines of a lab report (a PDF's text layer or an OCR
 * pass, one string per printed line) → the rows it can vouch for. It prefers dropping a row to
 * guessing: a value must be a plain number right after the name, its unit must fit the analyte,
 * the number must be physically possible, and the reference range is only ever the printed one.
 */
import { factorFor, LONGEST_ALIAS_WORDS, NAME_INDEX, normaliseName } from "./catalogue";
import { lex, type Tok } from "./lexer";
import { printedMeasure } from "./measure";
import type { Analyte, Flag, LabRow, Recognised, RejectedRow, Specimen } from "./types";

type Word = { text: string; start: number; gapBefore: number; after: string };
type NameMatch = { from: number; to: number; printed: string; analytes: readonly Analyte[] };

function wordsOf(line: string): Word[] {
  const out: Word[] = [];
  let last = 0;
  for (const m of line.matchAll(/\S+/g)) {
    out.push({
      text: m[0],
      start: m.index,
      gapBefore: out.length === 0 ? Infinity : m.index - last,
      after: out.at(-1)?.text ?? "",
    });
    last = m.index + m[0].length;
  }
  return out;
}

/** Every catalogue name on a line, earliest and longest first, not overlapping. */
function namesOn(words: Word[]): NameMatch[] {
  const found: NameMatch[] = [];
  let i = 0;
  while (i < words.length) {
    let match: NameMatch | null = null;
    for (let n = Math.min(LONGEST_ALIAS_WORDS + 2, words.length - i); n >= 1 && !match; n--) {
      const printed = words
        .slice(i, i + n)
        .map((w) => w.text)
        .join(" ");
      const key = normaliseName(printed);
      const analytes = key && NAME_INDEX.get(key);
      if (!analytes) continue;
      // A name must begin at a word with a letter, and end where its last word ends in a letter,
      // a digit or a closing mark (so "Hb" never matches inside "Hb:10.2").
      if (!/^[([]?[\p{L}]/u.test(words[i]!.text)) continue;
      if (/\d$/.test(printed.replace(/[).:*\]]+$/, "")) && !/[a-z]\d+[a-z]?$/i.test(key)) continue;
      // Short names ("K", "Na", "PT", "Hb") only where a column starts: at the line's start or after
      // a wide gap or a "/" (bilingual names), never inside a sentence ("Ph: 98..." is a telephone, not a pH).
      if (key.replace(/ /g, "").length <= 3 && words[i]!.gapBefore < 2 && !/[/|]$/.test(words[i]!.after))
        continue;
      match = { from: i, to: i + n, printed: printed.replace(/[:*]+$/, ""), analytes };
    }
    const prev = found.at(-1);
    if (match && prev && prev.to === match.from && /^[([]/.test(words[match.from]!.text)) {
      // "Alanine Aminotransferase (SGPT)": the abbreviation in brackets is the same name.
      const both = new Set(match.analytes.map((a) => a.loinc));
      prev.analytes = prev.analytes.filter((a) => both.has(a.loinc));
      prev.to = match.to;
      prev.printed = `${prev.printed} ${match.printed}`;
      i = match.to;
    } else if (match) {
      found.push(match);
      i = match.to;
    } else i++;
  }
  return found;
}

const SECTION_URINE = /\burine\b|\bmicroscopic\b|\bphysical examination\b/i;
const SECTION_BLOOD =
  /\b(haematology|hematology|biochemistry|blood|serum|plasma|lipid|liver|kidney|renal|thyroid|complete|haemogram|hemogram|glucose|electrolytes)\b/i;

type Read = { row: Omit<LabRow, "lineIndex"> } | { reject: string };

/** Names a row's specimen itself, so it may stand outside its section ("Urine Microalbumin"). */
const NAMES_SPECIMEN: Record<Specimen, RegExp> = {
  urine: /urin|micro|\bacr\b/i,
  blood: /serum|plasma|blood|^s\.?r?\.? /i,
};

function pick(match: NameMatch, section: Specimen, ucum: string | null, n: number): Analyte[] {
  // The section decides between blood and urine; a row of the other specimen counts only when its
  // printed name says so (a bare "Sugar" under BIOCHEMISTRY is not read as the urine's).
  const pool = match.analytes.filter(
    (a) => a.specimen === section || NAMES_SPECIMEN[a.specimen].test(match.printed),
  );
  if (ucum) return pool.filter((a) => factorFor(a, ucum) !== null);
  const unitless = pool.filter((a) => ["1", "[pH]", "{INR}"].includes(a.unit));
  if (unitless.length > 0) return unitless;
  return pool.filter((a) => n >= a.possible[0] && n <= a.possible[1]);
}

/** One name's row: the tokens between it and the next name on the line. */
function readRow(match: NameMatch, toks: Tok[], section: Specimen): Read {
  const doubts: string[] = [];
  let confidence = 0.97;
  const doubt = (why: string, cost: number) => {
    doubts.push(why);
    confidence -= cost;
  };
  let i = 0;
  let unitBefore: Extract<Tok, { k: "unit" }> | null = null;
  let flag: Flag | null = null;
  let words = 0;
  for (; i < toks.length && toks[i]!.k !== "num"; i++) {
    const t = toks[i]!;
    if (t.k === "unit") unitBefore ??= t;
    else if (t.k === "flag") flag = t.flag;
    else if (t.k === "range") return { reject: "a range where the value should be" };
    else if (t.k === "date") return { reject: "a date where the value should be" };
    else if (t.k === "word") words++;
  }
  if (i >= toks.length) return { reject: "no value" };
  if (words > 2) return { reject: "words between the name and the value" };
  if (words > 0) doubt("words between the name and the value", 0.1);
  const value = toks[i] as Extract<Tok, { k: "num" }>;
  if (value.suspect) return { reject: "a number with a leading zero (a lost decimal point?)" };
  let unit: Extract<Tok, { k: "unit" }> | null = null;
  let range: Extract<Tok, { k: "range" }> | null = null;
  let first = true;
  for (let j = i + 1; j < toks.length; j++) {
    const t = toks[j]!;
    if (t.k === "noise") continue;
    if (t.k === "flag") {
      flag ??= t.flag;
      continue;
    }
    if (first && (t.k === "word" || t.k === "date"))
      return { reject: "the value is followed by a word, not a unit" };
    if (first && t.k === "num") return { reject: "two numbers where one value should be" };
    first = false;
    if (t.k === "unit") unit ??= t;
    else if (t.k === "range") range ??= t;
    else if (t.k === "num" && !(unit && range)) doubt("another number on the row", 0.2);
  }
  unit ??= unitBefore;
  const ucum = unit?.ucum ?? null;
  const candidates = pick(match, section, ucum, value.n);
  if (candidates.length === 0)
    return {
      reject: ucum ? `unit ${unit!.text} does not fit` : "no unit, and the name alone does not decide",
    };
  if (candidates.length > 1) return { reject: "the name and unit fit more than one analyte" };
  const a = candidates[0]!;
  // A lab that prints this analyte with decimals printed none: perhaps the point was lost
  // (A unit with a factor below 1, such as /cumm or µmol/L, is printed as a whole number.)
  if (a.decimals > 0 && !value.text.includes(".") && (!ucum || factorFor(a, ucum)! >= 1))
    doubt("no decimal point where labs print one", 0.1);
  if (!ucum && a.unit !== "1" && a.unit !== "[pH]" && a.unit !== "{INR}") doubt("no unit printed", 0.3);
  let printedRange = range?.range ?? null;
  if (range?.suspect) {
    doubt("the printed range did not read cleanly", 0.3);
    printedRange = null;
  } else if (!printedRange) doubt("no printed range to check the value against", 0.1);
  // The value and its printed range in the analyte's unit, judged there (decision 0088).
  const measure = printedMeasure(a, value.n, ucum, printedRange)!;
  if (measure.value < a.possible[0] || measure.value > a.possible[1])
    return { reject: "not a possible value (a misreading?)" };
  let flagSource: LabRow["flagSource"] = flag ? "printed" : null;
  if (printedRange) {
    const { low, high } = printedRange;
    const computed = measure.flag;
    const scale = Math.max(low ?? 0, high ?? 0);
    if (value.n > 0 && scale > 0 && (value.n > scale * 20 || value.n < (low ?? high ?? 0) / 20))
      doubt("the value is far from the printed range", 0.3);
    if (flag && computed && flag !== computed)
      doubt("the printed flag disagrees with the printed range", 0.3);
    if (!flag && computed) {
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
      range: printedRange,
      measure,
      flag,
      flagSource,
      confidence: Math.max(0, Math.round(confidence * 100) / 100),
      doubts,
    },
  };
}

/** The rows of a lab report's lines. Lines without a catalogue name are passed over in silence. */
export function recogniseLabRows(lines: readonly string[]): Recognised {
  const rows: LabRow[] = [];
  const rejected: RejectedRow[] = [];
  let section: Specimen = "blood";
  lines.forEach((line, lineIndex) => {
    const words = wordsOf(line);
    const names = namesOn(words);
    if (names.length === 0) {
      if (SECTION_URINE.test(line)) section = "urine";
      else if (SECTION_BLOOD.test(line)) section = "blood";
      return;
    }
    if (!/\d/.test(line)) return; // a heading ("BLOOD SUGAR") or a word result ("Glucose Nil")
    names.forEach((match, n) => {
      const end = names[n + 1]?.from ?? words.length;
      const toks = lex(words.slice(match.to, end).map((w) => w.text));
      const read = readRow(match, toks, section);
      if ("row" in read) rows.push({ ...read.row, lineIndex });
      else rejected.push({ lineIndex, printedName: match.printed, reason: read.reject });
    });
  });
  // One number read with a lost decimal point ("07") means the pass lost them anywhere on the
  // page (eng+hin OCR does): nothing on it is vouched for.
  const lost =
    rejected.some((r) => r.reason.startsWith("a number with a leading zero")) ||
    rows.some((r) => r.doubts.includes("the printed range did not read cleanly"));
  if (lost)
    for (const row of rows) {
      row.doubts.push("decimal points were lost elsewhere on the page");
      row.confidence = Math.min(row.confidence, 0.6);
    }
  return { rows, rejected };
}
