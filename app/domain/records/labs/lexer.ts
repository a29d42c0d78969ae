/**
 * The words after a test name, read as tokens (decisions 0079, 0089): a number, a printed range
 * (in figures or words: "13.0 - 17.0", "< 200", "Up to 40", "Less than 150"), the label of a
 * range's part ("Male :", "F:", "Adults:", "1 - 12 Yrs:", "Desirable:"), a unit, a flag ("H",
 * "↑", "*", "(L)"), a status word ("Normal", "Borderline", "Critical"), a word result ("Non
 * Reactive", "Nil"), a date or time, noise (method and specimen words, punctuation, Hindi words,
 * the stray capitals of a watermark) or an unknown word.
 */
import { microUcum, toUcum, unitAt } from "./units";
import type { Flag, PrintedRange } from "./types";

const NUM = String.raw`(?:\d{1,3}(?:,\d{2})*,\d{3}|\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+`;
const NUM_RE = new RegExp(`^(?:${NUM})$`);
const RANGE_RE = new RegExp(`^(${NUM})\\s*(?:-|–|—|to)\\s*(${NUM})$`, "i");
const COMPARE_RE = new RegExp(
  `^(<=|>=|≤|≥|<|>|upto|up\\s+to|less\\s+than|more\\s+than|greater\\s+than|below|above|lesser\\s+than)\\s*(${NUM})$`,
  "i",
);
const NUM_UNIT_RE = new RegExp(`^(${NUM})([a-zA-Z%µμ/×*^].*)$`);
const NUM_FLAG_RE = new RegExp(`^(${NUM})\\s*[([]?(H|L|HH|LL)[)\\]]?\\*?$`, "i");
const DATE_RE = [
  /^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$/,
  /^\d{4}[/.-]\d{1,2}[/.-]\d{1,2}$/,
  /^\d{1,2}[-/ ]?[a-z]{3,9}[-/ ]?\d{2,4}$/i,
  /^\d{1,2}:\d{2}(:\d{2})?(am|pm)?$/i,
];
const FLAG_RE = /^(h|l|hh|ll|high|low|hi|lo|↑|↓|⇑|⇓)$/i;
/** Words a lab prints beside a value about it: never the value, the unit or the range. */
const STATUS = new Set(
  "normal borderline abnormal critical desirable optimal elevated raised decreased deficient insufficient sufficient panic alert".split(
    " ",
  ),
);
/** Word results (decision 0089): what serology and the urine strip print instead of a number. */
const RESULTS = [
  "non reactive",
  "non-reactive",
  "nonreactive",
  "reactive",
  "not detected",
  "detected",
  "negative",
  "positive",
  "nil",
  "absent",
  "present",
  "trace",
  "normal",
  "+",
  "++",
  "+++",
  "++++",
  "1+",
  "2+",
  "3+",
];

/** Method, specimen and filler words that may sit between a name and its value. */
const NOISE = new Set(
  (
    "serum plasma blood whole edta fluoride urine sample specimen method calculated calc derived " +
    "photometry photometric colorimetric colorimetry impedance electrical flow cytometry cytometric hplc " +
    "god pod god-pod god/pod hexokinase enzymatic jaffe jaffes kinetic ifcc clia eclia cmia elisa cia " +
    "immunoturbidimetry immunoturbidimetric turbidimetric turbidimetry westergren microscopy dipstick " +
    "strip bcg bcp ise indirect direct automated auto analyser analyzer spectrophotometry nephelometry " +
    "by : - = | , ; / result value observed"
  ).split(" "),
);

/** What a range's part applies to: a sex, an age or age band, or a category of a risk table. */
export type LabelKind = "sex" | "age" | "category";
export type Label = {
  kind: LabelKind;
  text: string;
  /** sex: "male" | "female"; age: "adult" | "child" | "newborn"; category: the word. */
  key: string;
  /** An age band's years (a "1 - 12 Yrs:" label). */
  years?: [number | null, number | null];
};

export type Tok =
  | { k: "num"; text: string; n: number; suspect: boolean }
  | { k: "range"; range: PrintedRange; suspect: boolean; text: string; lead0?: boolean }
  | { k: "label"; label: Label; text: string }
  | { k: "unit"; ucum: string; text: string }
  | { k: "flag"; flag: Flag | null; text: string }
  | { k: "status"; text: string }
  | { k: "result"; text: string; length: number }
  | { k: "date" }
  | { k: "noise"; text: string }
  | { k: "word"; text: string; sentence?: true };

export function parseNumber(text: string): { n: number; suspect: boolean } | null {
  if (!NUM_RE.test(text)) return null;
  // "07" for 7 (labs print differential counts so) or for 0.7 (a decimal point lost in the
  // reading): the row decides, against its printed range (decision 0089).
  return { n: Number(text.replace(/,/g, "")), suspect: /^0\d/.test(text) };
}

function rangeOf(text: string): { range: PrintedRange; suspect: boolean; lead0: boolean } | null {
  const r = RANGE_RE.exec(text);
  if (r) {
    const lo = parseNumber(r[1]!)!;
    let hi = parseNumber(r[2]!)!;
    // "4000 - 10.000": a bound backwards as a decimal whose "." groups thousands (as some labs print).
    if (lo.n > hi.n && /^\d{1,3}(\.\d{3})+$/.test(r[2]!) && Number(r[2]!.replace(/\./g, "")) > lo.n)
      hi = { n: Number(r[2]!.replace(/\./g, "")), suspect: false };
    return { range: { text, low: lo.n, high: hi.n }, suspect: lo.n > hi.n, lead0: lo.suspect || hi.suspect };
  }
  const c = COMPARE_RE.exec(text);
  if (c) {
    const v = parseNumber(c[2]!)!;
    const upper = /^(<|≤|up|less|below|lesser)/i.test(c[1]!);
    return {
      range: { text, low: upper ? null : v.n, high: upper ? v.n : null },
      suspect: false,
      lead0: v.suspect,
    };
  }
  return null;
}

const SEX: Record<string, string> = {
  m: "male",
  male: "male",
  males: "male",
  men: "male",
  f: "female",
  female: "female",
  females: "female",
  women: "female",
};
const AGE: Record<string, string> = {
  adult: "adult",
  adults: "adult",
  child: "child",
  children: "child",
  paediatric: "child",
  pediatric: "child",
  infant: "newborn",
  infants: "newborn",
  newborn: "newborn",
  neonate: "newborn",
  neonates: "newborn",
};
const CATEGORY =
  /^(desirable|borderline|borderline high|high|very high|low|optimal|near optimal|above optimal|normal|non diabetic|non-diabetic|prediabetes|pre-diabetes|pre diabetic|prediabetic|diabetes|diabetic|deficiency|deficient|insufficiency|insufficient|sufficiency|sufficient|toxicity|toxic|impaired|follicular|luteal|ovulation|mid cycle|postmenopausal|post menopausal|pregnancy|first trimester|second trimester|third trimester|negative|positive|equivocal|increased risk|risk)$/i;

/** A label of a range's part: "Male :", "F:", "Adults:", "Desirable :", "Near optimal:". */
function labelAt(words: string[], i: number): { label: Label; length: number } | null {
  for (let n = 3; n >= 1; n--) {
    if (i + n > words.length) continue;
    const raw = words.slice(i, i + n).join(" ");
    const colon = /:$/.test(raw) || (words[i + n] ?? "") === ":";
    const text = raw.replace(/\s*:$/, "").replace(/[()]/g, "").trim();
    const low = text.toLowerCase();
    const used = n + ((words[i + n] ?? "") === ":" ? 1 : 0);
    const full = words.slice(i, i + used).join(" ");
    if (SEX[low] && (colon || low.length > 1))
      return { label: { kind: "sex", text: full, key: SEX[low]! }, length: used };
    if (AGE[low]) return { label: { kind: "age", text: full, key: AGE[low]! }, length: used };
    if (colon && CATEGORY.test(text))
      return { label: { kind: "category", text: full, key: low }, length: used };
  }
  return null;
}

/** An age band: "1 - 12 Yrs:", "> 12 Yrs :", "12-18 years" before a range. */
function ageBandAt(words: string[], i: number): { label: Label; length: number } | null {
  for (const n of [3, 2, 1]) {
    if (i + n >= words.length) continue;
    const band = rangeOf(
      words
        .slice(i, i + n)
        .join(" ")
        .replace(/\s+/g, " "),
    );
    const unit = words[i + n]!;
    if (!band || !/^(y|yr|yrs|years?|y\/o)\s*:?$/i.test(unit)) continue;
    const colon = (words[i + n + 1] ?? "") === ":" ? 1 : 0;
    const text = words.slice(i, i + n + 1 + colon).join(" ");
    const { low, high } = band.range;
    return { label: { kind: "age", text, key: "band", years: [low, high] }, length: n + 1 + colon };
  }
  return null;
}

/** Words of a sentence ("Her haemoglobin was 9.8 g/dL"): a name among them is not a row. */
const SENTENCE =
  /^(was|is|are|were|of|the|and|has|had|have|shows?|showed|found|at|on|in|with|from|for|than|if|when|which|that|should|may|indicates?)$/i;

// A speck after a number read as a full stop ("0.1-0.7. mg/dl") is not part of it (decision 0124).
const strip = (w: string) => w.replace(/^[([{]+|[)\]},;*]+$/g, "").replace(/(?<=\d)\.$/, "");
const DEVANAGARI = /[\u0900-\u097F]/;

/** A watermark's stray capitals ("mg/dL T 17 - I 43"): never a flag, a unit or a label. */
const STRAY = (w: string) =>
  /^[A-Z]{1,2}$/.test(w) && !/^(H|L|M|F|HH|LL|HI|LO)$/.test(w) && unitAt([w], 0) === null;

/** A number glued to a unit ("6%", "10mg/dL"): split only as the high bound after a range's "to". */
const BOUND_UNIT_RE = new RegExp(`^(${NUM})([a-zA-Zµμ%/].*)$`);
/** A range run into its unit ("0.7-1.4mg/dl", "<200mg/dL"): the range, then the rest. */
const RANGE_UNIT_RE = new RegExp(`^((?:<=|>=|≤|≥|<|>)${NUM}|(?:${NUM})[-–—](?:${NUM}))([a-zA-Zµμ%/].*)$`);

/**
 * Words OCR ran together: a label and its range ("F:0.6-1.1", "M:0-15F:0-20"), an age band and
 * its years ("1-12Yrs:"), a range and the next label, a range and its unit, a bound and the "to"
 * of its range ("3.5to 5.1", decision 0112).
 */
function unglue(w: string): string[] {
  return (
    w
      .replace(/(\d)((?:yrs?|years?|y)\s*:)/gi, "$1 $2")
      .replace(/(\d)([MF]\s*:)/g, "$1 $2")
      .replace(/:(?=[\d<>≤≥])/g, ": ")
      // OCR's "t0" for "to" after a bound ("2t0 10%"), a zero for the letter o.
      .replace(/(\d)t0(?=\d|$)/gi, "$1to")
      .replace(/(\d)(to)(?=\d|$)/gi, "$1 $2 ")
      .replace(/^(to)(?=\d)/i, "$1 ")
      .split(" ")
      .flatMap((part) => {
        const glued = RANGE_UNIT_RE.exec(part);
        return glued && toUcum(glued[2]!) ? [glued[1]!, glued[2]!] : [part];
      })
      .filter(Boolean)
  );
}

/**
 * The high bound of a range glued to the range's unit: two words. After "to" ("1 to 6%", OCR's
 * "1to6%"), after a dash between it and a number ("35 - 60%"), or with the dash glued to it after a
 * number ("27 -31pg"; decision 0124). A value printed "6.5%" stays as it was.
 */
function boundAndUnit(part: string, k: number, parts: readonly string[]): string[] {
  const prev = k > 0 ? parts[k - 1]! : "";
  const afterNumber = (at: number) => at >= 0 && NUM_RE.test(strip(parts[at]!));
  const dashed = /^[-–—]/.test(part) && afterNumber(k - 1);
  const high = /^to$/i.test(prev) || (/^[-–—]$/.test(prev) && afterNumber(k - 2)) || dashed;
  const bound = high ? BOUND_UNIT_RE.exec(dashed ? part.slice(1) : part) : null;
  if (!bound || !toUcum(bound[2]!)) return [part];
  return dashed ? [part[0]!, bound[1]!, bound[2]!] : [bound[1]!, bound[2]!];
}

/** Tokens of the words that follow a name. */
/**
 * Where the table reader (decision 0104) puts a row's range cell: what follows it, units too, is
 * the range as printed ("150000 - 450000 / cu.mm"). A mark no lab prints.
 */
export const RANGE_CELL = "\u00a6";

export function lex(all: string[]): Tok[] {
  const out: Tok[] = [];
  // A capital that begins a unit spaced out ("U / L", "IU / L") is the unit's, not a stray.
  const spaced = all.flatMap(unglue).flatMap(boundAndUnit);
  const words = spaced.filter((w, k) => !STRAY(w) || (unitAt(spaced, k)?.length ?? 0) > 1);
  let i = 0;
  while (i < words.length) {
    const raw = words[i]!;
    if (raw === RANGE_CELL) {
      out.push({ k: "noise", text: raw });
      i++;
      continue;
    }
    // A remark in brackets over several words ("(2 hrs)", "(Calculated from HbA1c)"): noise, not a range.
    if (/^\(/.test(raw) && !/\)[,.;:]?$/.test(raw)) {
      const close = words.findIndex((w, k) => k > i && k <= i + 6 && /\)[,.;:]?$/.test(w));
      const inside = words.slice(i, close + 1).join(" ");
      // …but a range in brackets ("(0.80 to 2.00)", "(Up to 200)", "(50-170 µg/dL)") is the row's range.
      const inner = inside
        .replace(/^\(|\)[,.;:]?$/g, "")
        .trim()
        .split(/\s+/);
      const range = [3, 2, 1].some((n) => inner.length >= n && rangeOf(inner.slice(0, n).join(" ")));
      if (close > 0 && /[a-z]{2}/i.test(inside) && !/:/.test(inside) && !range) {
        for (let k = i; k <= close; k++) out.push({ k: "noise", text: words[k]! });
        i = close + 1;
        continue;
      }
    }
    const w = strip(raw).replace(/:$/, "") || strip(raw);
    const next = (k: number) => strip(words[i + k] ?? "");
    const band = ageBandAt(words.map(strip), i);
    if (band) {
      out.push({ k: "label", label: band.label, text: band.label.text });
      i += band.length;
      continue;
    }
    // A range over three words ("13.0 - 17.0", "13 to 17", "less than 150") or two ("< 200", "up to 40").
    const three = i + 2 < words.length ? rangeOf(`${w} ${next(1)} ${next(2)}`.replace(/\s+/g, " ")) : null;
    if (
      three &&
      (/^[-–—]$|^to$/i.test(next(1)) || /^(less|more|greater|lesser)$/i.test(w) || /^up$/i.test(w))
    ) {
      out.push({ k: "range", ...three, text: three.range.text });
      i += 3;
      continue;
    }
    const two = i + 1 < words.length ? rangeOf(`${w} ${next(1)}`) : null;
    // "<" and its number, or a dash read against one side ("12.0- 15.5", "2.6 -6.0").
    if (
      two &&
      (/^(<=|>=|≤|≥|<|>|upto|below|above)$/i.test(w) || /[-–—]$/.test(w) || /^[-–—]/.test(next(1)))
    ) {
      out.push({ k: "range", ...two, text: two.range.text });
      i += 2;
      continue;
    }
    const one = rangeOf(w);
    if (one) {
      out.push({ k: "range", ...one, text: one.range.text });
      i++;
      continue;
    }
    const label = labelAt(words.map(strip), i);
    if (label && (words[i + label.length] !== undefined || /:$/.test(raw))) {
      out.push({ k: "label", label: label.label, text: label.label.text });
      i += label.length;
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
    // A flag run into the value before it ("H7.9").
    const flagFirst = /^(H|L)(\d.*)$/.exec(w);
    if (flagFirst && parseNumber(flagFirst[2]!)) {
      out.push({ k: "flag", flag: flagFirst[1] as Flag, text: flagFirst[1]! });
      out.push({ k: "num", text: flagFirst[2]!, ...parseNumber(flagFirst[2]!)! });
      i++;
      continue;
    }
    // "1U/mL": an I read as a 1, not a number and a unit.
    const iu = /^1([uU]\/.+)$/.exec(w);
    if (iu && toUcum(`I${iu[1]}`)) {
      out.push({ k: "unit", ucum: toUcum(`I${iu[1]}`)!, text: w });
      i++;
      continue;
    }
    const withFlag = NUM_FLAG_RE.exec(w);
    if (withFlag) {
      out.push({ k: "num", text: withFlag[1]!, ...parseNumber(withFlag[1]!)! });
      out.push({
        k: "flag",
        flag: withFlag[2]!.toUpperCase().startsWith("H") ? "H" : "L",
        text: withFlag[2]!,
      });
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
    // A unit whose "µ" OCR misread ("pe/dL"): a unit, its code worked out beside its test (row.ts).
    const micro = microUcum(w);
    if (micro && /\//.test(w)) {
      out.push({ k: "unit", ucum: "?", text: w });
      i++;
      continue;
    }
    const result = RESULTS.find((r) => {
      const n = r.split(" ").length;
      return (
        words
          .slice(i, i + n)
          .map(strip)
          .join(" ")
          .toLowerCase()
          .replace(/[()]/g, "") === r
      );
    });
    if (result) {
      const n = result.split(" ").length;
      out.push({
        k: "result",
        text: words
          .slice(i, i + n)
          .map(strip)
          .join(" "),
        length: n,
      });
      i += n;
      continue;
    }
    const flagText = w.replace(/^\(|\)$/g, "").replace(/\*+$/, "");
    if (FLAG_RE.test(flagText) || /^\*+$/.test(w) || /^\*+$/.test(raw)) {
      const f = flagText.toLowerCase();
      const flag: Flag | null = f === "" ? null : f.startsWith("h") || /[↑⇑]/.test(f) ? "H" : "L";
      out.push({ k: "flag", flag, text: raw });
      i++;
      continue;
    }
    if (STATUS.has(w.toLowerCase())) {
      out.push({ k: "status", text: raw });
      i++;
      continue;
    }
    // Noise: method words, punctuation, a bracketed remark, a Hindi word (bilingual names), the
    // single capitals of a watermark across the row ("mg/dL T 17 - I 43").
    if (
      w === "" ||
      NOISE.has(w.toLowerCase()) ||
      /^[*#^:]+$/.test(w) ||
      /^[^\p{L}\p{N}]+$/u.test(w) ||
      /^\(.*\)$/.test(raw) ||
      (DEVANAGARI.test(raw) && !/[a-z0-9]/i.test(raw)) ||
      /^[A-Z]{1,2}$/.test(w)
    ) {
      out.push({ k: "noise", text: raw });
      i++;
      continue;
    }
    out.push(SENTENCE.test(w) ? { k: "word", text: raw, sentence: true } : { k: "word", text: raw });
    i++;
  }
  return out;
}
