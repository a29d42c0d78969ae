/**
 * The row recogniser (decisions 0079, 0089): the text lines of a lab report (a PDF's text layer or
 * an OCR pass, one string per printed line) → the rows it can vouch for. It prefers dropping a row
 * to guessing: a value must be a plain number right after the name, its unit must fit the analyte,
 * and the reference range is only ever the printed one. Around the row (row.ts) it reads what real
 * reports print: two columns (a line cut at each name), a value printed on the line below its
 * name, a range whose parts continue on the lines below, ratios of two tests, sections (blood or
 * urine), and notes and interpretation tables, whose numbers are never results.
 */
import { LONGEST_ALIAS_WORDS, lookupName, normaliseName } from "./catalogue";
import { lex, type Tok } from "./lexer";
import type { Patient } from "./ranges";
import { readRow, unjudged, type NameMatch, type Read } from "./row";
import { CONFIDENT, type LabRow, type Recognised, type RejectedRow, type Specimen } from "./types";
import { unitAt } from "./units";

type Word = { text: string; start: number; gapBefore: number; after: string };

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

const COLUMN_GAP = 2;

/** Every catalogue name on a line, earliest and longest first, not overlapping. */
function namesOn(words: Word[]): NameMatch[] {
  const found: NameMatch[] = [];
  let i = 0;
  while (i < words.length) {
    let match: NameMatch | null = null;
    const columnStart = words[i]!.gapBefore >= COLUMN_GAP || /[/|]$/.test(words[i]!.after);
    for (let n = Math.min(LONGEST_ALIAS_WORDS + 2, words.length - i); n >= 1 && !match; n--) {
      const run = words.slice(i, i + n);
      // A name ends on a word: "Total Leucocyte Count /" leaves its "/" to what follows it.
      if (n > 1 && !/[\p{L}\p{N}]/u.test(run[n - 1]!.text)) continue;
      const printed = run.map((w) => w.text).join(" ");
      // A capital I read as a bar ("Troponin |").
      const key = normaliseName(printed.replace(/(^|\s)\|(?=\s|$)/g, "$1I"));
      // OCR reads a capital I as a small l ("lonised Calcium"): the name with I, if it is one; and
      // an O as a zero between letters of an abbreviation ("S.G.0.T.", decision 0124)…
      const found =
        key &&
        (lookupName(key) ??
          lookupName(key.replace(/\bl(?=[a-z])/g, "i").replace(/\b[il1]+\b/g, (m) => "i".repeat(m.length))) ??
          (/(?<=[a-z] ?)0(?= ?[a-z]|$)/.test(key)
            ? lookupName(key.replace(/(?<=[a-z] ?)0(?= ?[a-z]|$)/g, "o"))
            : null) ??
          // …and the T of T3 and T4 as a one ("Free 14").
          (/(?<=[a-z] )1(?=[34]$)/.test(key) ? lookupName(key.replace(/(?<=[a-z] )1(?=[34]$)/, "t")) : null));
      if (!found) continue;
      const { analytes, guessed } = found;
      // A name begins with a letter (or, where a column starts, a number: "25 Hydroxy Vitamin D"),
      // and no word after its first is a decimal number (so "Hb:10.2" or "Hb 10.2" is never a name).
      if (!/^[([]?[\p{L}]/u.test(run[0]!.text) && !(columnStart && /^\d/.test(key))) continue;
      if (run.slice(1).some((w) => /^\d+[.,]\d+/.test(w.text))) continue;
      // Short names ("K", "Na", "PT", "Hb") only where a column starts: at the line's start or after
      // a wide gap or a "/" (bilingual names), never inside a sentence ("Ph: 98..." is a telephone, not a pH).
      // An abbreviation in brackets after a name ("Mean Corpuscular Hb (MCH)") names its test even
      // where the words before it do not (decision 0112): brackets set it apart as a column does.
      const bracketed = n === 1 && /^\([^()\s]+\)$/.test(run[0]!.text);
      if (key.replace(/ /g, "").length <= 3 && !columnStart && !bracketed) continue;
      // A unit is not a name: "mg / dl" is not magnesium.
      const unit = unitAt(
        words.map((w) => w.text),
        i,
      );
      if (unit && unit.length >= n && /\//.test(unit.text)) continue;
      match = {
        from: i,
        to: i + n,
        printed: printed.replace(/[:*]+$/, ""),
        analytes,
        ...(guessed && { guessed }),
      };
    }
    const prev = found.at(-1);
    if (match && prev && prev.to === match.from && /^[([]/.test(words[match.from]!.text)) {
      // "Alanine Aminotransferase (SGPT)": the abbreviation in brackets is the same name.
      const both = new Set(match.analytes.map((a) => a.loinc));
      const same = prev.analytes.filter((a) => both.has(a.loinc));
      if (same.length > 0) prev.analytes = same;
      prev.to = match.to;
      prev.printed = `${prev.printed} ${match.printed}`;
      i = match.to;
    } else if (match) {
      found.push(match);
      i = match.to;
    } else if (/^\(/.test(words[i]!.text) && !/\)$/.test(words[i]!.text)) {
      // A remark in brackets ("(Calculated from HbA1c)") names no test of its own.
      const close = words.findIndex((w, k) => k > i && /\)[,.;:]?$/.test(w.text));
      i = close < 0 ? i + 1 : close + 1;
    } else i++;
  }
  return found;
}

/** The catalogue names printed in a piece of text (the table reader asks whether a cell names a test). */
export function namesInLine(text: string): NameMatch[] {
  return namesOn(wordsOf(text));
}

const SECTION_URINE = /\burine\b|\bmicroscopic\b|\bphysical examination\b/i;
const SECTION_BLOOD =
  /\b(haematology|hematology|biochemistry|blood|serum|plasma|lipid|liver|kidney|renal|thyroid|complete|haemogram|hemogram|glucose|electrolytes|serology|immunology|hormones?|cardiac|coagulation)\b/i;
/** A note, a comment or an interpretation table: its numbers are not results (decision 0089). */
const NOTE_START =
  /^\s*(\*|#|note\b|notes\b|nb\b|comments?\b|remarks?\b|interpretation\b|clinical (significance|notes?)\b|as per\b|disclaimer\b|reference\s*:|method\s*:|advice\b|suggested\b|kindly\b|please\b|test done\b|sample\s*type\b|specimen\s*:)/i;
const TABLE_HEAD =
  /\b(test\s*name|investigation|parameter|test\b.*\bresult|result\b.*\bunits?)\b|^\s*(test|tests)\s*$/i;
const PAGE_MARK = /\bpage\s*\d+\s*(of|\/)\s*\d+\b|end of report|continued/i;

/** A line that holds only the next parts of a range ("Female : 12.0 - 15.5"). */
function continuation(toks: Tok[]): boolean {
  const kinds = toks.filter((t) => t.k !== "noise").map((t) => t.k);
  return kinds.length >= 2 && kinds[0] === "label" && kinds.every((k) => k === "label" || k === "range");
}

/** The first token of a line below a name that holds its value (the name was printed above it). */
function startsWithValue(toks: Tok[]): boolean {
  const t = toks.find((x) => x.k !== "noise" && x.k !== "flag");
  return t?.k === "num" || t?.k === "result";
}

/** A page whose ranges are printed "a to b" (two lines at least): OCR may give its "to" as a 0. */
const TO_RANGE = /\d\s+to\s+\d/i;

/**
 * The words after a name with one "to" put back where OCR read it as a 0 (decision 0127): the
 * "t" lost and the "o" read as a zero, glued to a bound ("1 to 6 %" as "106%", "0 to 2" as "002")
 * or with its own bound before it ("2 to 10" as "20 10"). Every place a 0 could have been the
 * word; the value (the first word) is never split.
 */
function toReadAsZero(words: string[]): string[][] {
  const out: string[][] = [];
  for (let j = 1; j < words.length; j++) {
    const w = words[j]!;
    const glued = /^(\d[\d.]*)(%?)$/.exec(w);
    if (glued)
      for (let k = 1; k < glued[1]!.length - 1; k++)
        if (glued[1]![k] === "0" && /\d/.test(glued[1]![k - 1]!) && /\d/.test(glued[1]![k + 1]!))
          out.push([
            ...words.slice(0, j),
            glued[1]!.slice(0, k),
            "to",
            glued[1]!.slice(k + 1) + glued[2],
            ...words.slice(j + 1),
          ]);
    if (/^\d+0$/.test(w) && w.length > 1 && /^\d/.test(words[j + 1] ?? ""))
      out.push([...words.slice(0, j), w.slice(0, -1), "to", ...words.slice(j + 1)]);
  }
  return out;
}

/**
 * A row OCR left unread on a page of "a to b" ranges, read again with its "to" put back: taken
 * only when exactly one place gives a row the reader would vouch for (both bounds, nothing else in
 * doubt), and then held in doubt, its range unjudged until the expert confirms it.
 */
function withToPutBack(
  match: NameMatch,
  words: string[],
  section: Specimen,
  patient: Patient | undefined,
): Read | null {
  const readings = toReadAsZero(words)
    .map((variant) => readRow(match, lex(variant), section, patient, true))
    .flatMap((r) =>
      "row" in r && r.row.range?.low != null && r.row.range.high != null && r.row.confidence >= CONFIDENT
        ? [r.row]
        : [],
    );
  if (readings.length !== 1) return null;
  const row = readings[0]!;
  return {
    row: {
      ...unjudged(row),
      confidence: 0.6,
      doubts: [...row.doubts, `the range's "to" read as a 0: read as ${row.range!.text}`],
    },
  };
}

/**
 * The rows of a lab report's lines. Lines without a catalogue name are passed over in silence.
 * `ocr`: the lines were read by OCR, not from a text layer (a lost decimal point may be put back).
 */
export function recogniseLabRows(
  lines: readonly string[],
  patient?: Patient,
  { ocr = false }: { ocr?: boolean } = {},
): Recognised {
  const rows: LabRow[] = [];
  const rejected: RejectedRow[] = [];
  let section: Specimen = "blood";
  let inNote = false;
  const used = new Set<number>();
  const words = lines.map(wordsOf);
  const names = words.map(namesOn);
  const toPage = ocr && lines.filter((l) => TO_RANGE.test(l)).length >= 2;
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    if (used.has(lineIndex)) continue;
    const line = lines[lineIndex]!;
    const found = names[lineIndex]!;
    // A note runs until the next table head, page mark or title (a short line without numbers).
    if (TABLE_HEAD.test(line) || PAGE_MARK.test(line) || (!/\d/.test(line) && words[lineIndex]!.length <= 5))
      inNote = false;
    if (NOTE_START.test(line)) inNote = true;
    if (found.length === 0) {
      if (SECTION_URINE.test(line)) [section, inNote] = ["urine", false];
      else if (SECTION_BLOOD.test(line) && !/\d/.test(line)) [section, inNote] = ["blood", false];
      continue;
    }
    const reject = (printedName: string, reason: string) => rejected.push({ lineIndex, printedName, reason });
    if (inNote) {
      for (const m of found) reject(m.printed, "in a note or interpretation table, not a result");
      continue;
    }
    // A title that names a test ("GLUCOSE", "URINE ROUTINE") sets the section, and has no value.
    if (found.length === 1 && SECTION_URINE.test(line) && !/\d/.test(line)) section = "urine";
    const toksOf = found.map((m, n) =>
      lex(words[lineIndex]!.slice(m.to, found[n + 1]?.from ?? words[lineIndex]!.length).map((w) => w.text)),
    );
    // The lines below that continue the last row's range ("Female : 12.0 - 15.5").
    let next = lineIndex + 1;
    while (next < lines.length && names[next]!.length === 0) {
      const more = lex(words[next]!.map((w) => w.text));
      if (!continuation(more) || !toksOf.at(-1)!.some((t) => t.k === "label")) break;
      toksOf.at(-1)!.push(...more);
      used.add(next);
      next++;
    }
    found.forEach((match, n) => {
      const between = words[lineIndex]!.slice(found[n - 1]?.to ?? 0, match.from).map((w) => w.text);
      if (n > 0 && between.length === 1 && /^[/÷]$/.test(between[0]!) && toksOf[n - 1]!.length === 0) {
        // "Total Cholesterol / HDL 3.27" with no name for the ratio: not HDL's value.
        return reject(match.printed, "a ratio of two tests the catalogue does not name");
      }
      let read: Read = readRow(match, toksOf[n]!, section, patient, ocr);
      let at = lineIndex;
      // A value printed on the line below its name: the name's line holds no value of its own.
      if (
        "reject" in read &&
        found.length === 1 &&
        lineIndex + 1 < lines.length &&
        names[lineIndex + 1]!.length === 0 &&
        !used.has(lineIndex + 1)
      ) {
        const below = lex(words[lineIndex + 1]!.map((w) => w.text));
        // …and the lines under it that continue its range ("Female: Upto 38"; decision 0124).
        const continued: number[] = [];
        for (let k = lineIndex + 2; k < lines.length && names[k]!.length === 0 && !used.has(k); k++) {
          const more = lex(words[k]!.map((w) => w.text));
          if (!continuation(more) || !below.some((t) => t.k === "label")) break;
          below.push(...more);
          continued.push(k);
        }
        if (startsWithValue(below)) {
          const again = readRow(match, below, section, patient, ocr);
          if ("row" in again) {
            read = again;
            at = lineIndex + 1;
            for (const k of [at, ...continued]) used.add(k);
          }
        }
      }
      if ("reject" in read && toPage) {
        const text = words[lineIndex]!.slice(match.to, found[n + 1]?.from ?? words[lineIndex]!.length);
        read =
          withToPutBack(
            match,
            text.map((w) => w.text),
            section,
            patient,
          ) ?? read;
      }
      if ("row" in read) rows.push({ ...read.row, lineIndex: at });
      else reject(match.printed, read.reject);
    });
  }
  return { rows, rejected };
}
