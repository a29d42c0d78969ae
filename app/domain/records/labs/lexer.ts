/**
 * The words after a test name, read as tokens: a number, a printed range, a unit, a flag, a date
 * or time, noise (method and specimen words, punctuation) or an unknown word (decision 0079).
 */
import { unitAt } from "./units";
import type { Flag, PrintedRange } from "./types";

const NUM = String.raw`(?:\d{1,3}(?:,\d{2})*,\d{3}|\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`;
const NUM_RE = new RegExp(`^${NUM}$`);
const RANGE_RE = new RegExp(`^(${NUM})\\s*(?:-|–|—|to)\\s*(${NUM})$`, "i");
const COMPARE_RE = new RegExp(`^(<=|>=|≤|≥|<|>|upto|up\\s+to)\\s*(${NUM})$`, "i");
const NUM_UNIT_RE = new RegExp(`^(${NUM})([a-zA-Z%µμ/×*^].*)$`);
const NUM_FLAG_RE = new RegExp(`^(${NUM})\\s*[([]?(H|L)[)\\]]?$`, "i");
const DATE_RE = [
  /^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$/,
  /^\d{4}[/.-]\d{1,2}[/.-]\d{1,2}$/,
  /^\d{1,2}[-/ ]?[a-z]{3,9}[-/ ]?\d{2,4}$/i,
  /^\d{1,2}:\d{2}(:\d{2})?(am|pm)?$/i,
];
const FLAG_RE = /^(h|l|high|low|hi|lo|↑|↓)$/i;

/** Method, specimen and filler words that may sit between a name and its value. */
const NOISE = new Set(
  (
    "serum plasma blood whole edta fluoride urine sample specimen method calculated calc derived " +
    "photometry photometric colorimetric colorimetry impedance electrical flow cytometry cytometric hplc " +
    "god pod god-pod god/pod hexokinase enzymatic jaffe jaffes kinetic ifcc clia eclia cmia elisa cia " +
    "immunoturbidimetry immunoturbidimetric turbidimetric turbidimetry westergren microscopy dipstick " +
    "strip bcg bcp ise indirect direct automated auto analyser analyzer spectrophotometry nephelometry " +
    "by : - = | , ; result value observed"
  ).split(" "),
);

export type Tok =
  | { k: "num"; text: string; n: number; suspect: boolean }
  | { k: "range"; range: PrintedRange; suspect: boolean }
  | { k: "unit"; ucum: string; text: string }
  | { k: "flag"; flag: Flag; text: string }
  | { k: "date" }
  | { k: "noise" }
  | { k: "word"; text: string };

export function parseNumber(text: string): { n: number; suspect: boolean } | null {
  if (!NUM_RE.test(text)) return null;
  // "07" for "0.7": a decimal point lost in the reading (Tesseract with eng+hin does this).
  return { n: Number(text.replace(/,/g, "")), suspect: /^0\d/.test(text) };
}

function rangeOf(text: string): { range: PrintedRange; suspect: boolean } | null {
  const r = RANGE_RE.exec(text);
  if (r) {
    const lo = parseNumber(r[1]!)!;
    const hi = parseNumber(r[2]!)!;
    return { range: { text, low: lo.n, high: hi.n }, suspect: lo.suspect || hi.suspect || lo.n > hi.n };
  }
  const c = COMPARE_RE.exec(text);
  if (c) {
    const v = parseNumber(c[2]!)!;
    const upper = /^(<|≤|up)/i.test(c[1]!);
    return { range: { text, low: upper ? null : v.n, high: upper ? v.n : null }, suspect: v.suspect };
  }
  return null;
}

const strip = (w: string) => w.replace(/^[([{]+|[)\]},;:*]+$/g, "");

/** Tokens of the words that follow a name. */
export function lex(words: string[]): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < words.length) {
    const raw = words[i]!;
    const w = strip(raw);
    // A range over three words ("13.0 - 17.0", "13 to 17") or two ("< 200", "up to 40").
    const three =
      i + 2 < words.length
        ? rangeOf(`${w} ${strip(words[i + 1]!)} ${strip(words[i + 2]!)}`.replace(/\s+/g, " "))
        : null;
    if (three && /^[-–—]$|^to$/i.test(strip(words[i + 1]!))) {
      out.push({ k: "range", ...three });
      i += 3;
      continue;
    }
    const two = i + 1 < words.length ? rangeOf(`${w} ${strip(words[i + 1]!)}`) : null;
    // "<" and its number, or a dash read against one side ("12.0- 15.5", "2.6 -6.0").
    if (two && (/^(<=|>=|≤|≥|<|>|upto|up)$/i.test(w) || /[-–—]$/.test(w) || /^[-–—]/.test(words[i + 1]!))) {
      out.push({ k: "range", ...two });
      i += 2;
      continue;
    }
    if (/^up$/i.test(w) && /^to$/i.test(strip(words[i + 1] ?? "")) && i + 2 < words.length) {
      const up = rangeOf(`upto ${strip(words[i + 2]!)}`);
      if (up) {
        out.push({ k: "range", ...up });
        i += 3;
        continue;
      }
    }
    const one = rangeOf(w);
    if (one) {
      out.push({ k: "range", ...one });
      i++;
      continue;
    }
    if (DATE_RE.some((re) => re.test(w))) {
      out.push({ k: "date" });
      i++;
      continue;
    }
    const num = parseNumber(w);
    if (num) {
      out.push({ k: "num", text: w, ...num });
      i++;
      continue;
    }
    const withFlag = NUM_FLAG_RE.exec(w);
    if (withFlag) {
      out.push({ k: "num", text: withFlag[1]!, ...parseNumber(withFlag[1]!)! });
      out.push({ k: "flag", flag: withFlag[2]!.toUpperCase() as Flag, text: withFlag[2]! });
      i++;
      continue;
    }
    const withUnit = NUM_UNIT_RE.exec(w);
    if (withUnit) {
      const unit = unitAt([withUnit[2]!, ...words.slice(i + 1)], 0);
      if (unit) {
        out.push({ k: "num", text: withUnit[1]!, ...parseNumber(withUnit[1]!)! });
        out.push({ k: "unit", ucum: unit.ucum, text: unit.text });
        i += unit.length;
        continue;
      }
    }
    const unit = unitAt([w, ...words.slice(i + 1).map(strip)], 0);
    if (unit) {
      out.push({ k: "unit", ucum: unit.ucum, text: unit.text });
      i += unit.length;
      continue;
    }
    const flagText = w.replace(/\*/g, "");
    if (FLAG_RE.test(flagText)) {
      const f = flagText.toLowerCase();
      out.push({ k: "flag", flag: f.startsWith("h") || f === "↑" ? "H" : "L", text: raw });
      i++;
      continue;
    }
    if (w === "" || NOISE.has(w.toLowerCase()) || /^[*#^]+$/.test(w) || /^\(.*\)$/.test(raw)) {
      out.push({ k: "noise" });
      i++;
      continue;
    }
    out.push({ k: "word", text: raw });
    i++;
  }
  return out;
}
