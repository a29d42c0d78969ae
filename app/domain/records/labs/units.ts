/**
 * Printed units → UCUM (decision 0079). Labs print the same unit many ways ("gm/dl", "g%",
 * "µIU/ml", "x10^3/µL", "lakhs/cumm"); the key is the printed text lower-cased with spaces,
 * "x"/"×" before a power of ten and "µ"/"μ"/"mc" folded. A count per volume is read by its
 * grammar (multiplier × per-volume; decision 0106), everything else by the table.
 */

const TABLE: Record<string, string[]> = {
  "g/dL": [
    "g/dl",
    "gm/dl",
    "gms/dl",
    "gram/dl",
    "g%",
    "gm%",
    "gms%",
    "gm/100ml",
    "g/100ml",
    "g/di",
    "gm/di",
    "grams/dl",
  ],
  "g/L": ["g/l", "gm/l", "gms/l"],
  // "mg/di", "g/di": a small L printed or read as an I.
  "mg/dL": ["mg/dl", "mg%", "mgs/dl", "mg/100ml", "mg/di", "mg/dl.", "mgm/dl", "mgm%"],
  "mg/L": ["mg/l"],
  "mmol/L": ["mmol/l", "mmol/ltr", "mm/l"],
  "mmol/mol": ["mmol/mol"],
  // "yumol/l": a "µ" read as "yu" by OCR.
  "umol/L": ["umol/l", "micromol/l", "micromole/l", "yumol/l"],
  "meq/L": ["meq/l", "meq/ltr"],
  // "U/I": the misprint of U/L some lab software carries on every enzyme row.
  "U/L": ["u/l", "units/l", "unit/l", "u/i", "u/ltr", "units/ltr", "v/l"],
  "[IU]/L": ["iu/l", "iu/i", "iu/ltr"],
  "%": ["%", "percent", "%age"],
  fL: ["fl", "femtolitre", "femtoliter", "cu.micron", "cumicron", "u3"],
  pg: ["pg", "picogram", "picograms"],
  "pg/mL": ["pg/ml"],
  "ng/mL": ["ng/ml"],
  "ug/mL": ["ug/ml", "ugm/ml"],
  "ng/dL": ["ng/dl"],
  "ng/L": ["ng/l"],
  "m[IU]/mL": ["miu/ml", "mlu/ml", "miu/mi"],
  min: ["min", "mins", "minutes", "minute"],
  "/100{WBCs}": ["/100wbc", "/100wbcs", "/100leucocytes", "/100leukocytes", "per100wbc", "/100wbc's"],
  "mg/(24.h)": ["mg/24hrs", "mg/24hr", "mg/24h", "mg/day", "mg/24hours", "mg/24hour"],
  "g/(24.h)": ["g/24hrs", "g/24hr", "g/24h", "g/day", "gm/24hrs", "gm/day"],
  // "pg/dl": a "µ" read as "p" by OCR (no lab prints picograms per decilitre).
  "ug/dL": ["ug/dl", "ugm/dl", "pg/dl", "yg/dl", "yug/dl"],
  "ug/L": ["ug/l"],
  "nmol/L": ["nmol/l"],
  "pmol/L": ["pmol/l"],
  "m[IU]/L": ["miu/l", "mu/l", "mlu/l"],
  // "ulU/mL": Tesseract reads the capital I as a small l.
  "u[IU]/mL": ["uiu/ml", "uu/ml", "ulu/ml", "piu/ml", "plu/ml", "yiu/ml"],
  "[IU]/mL": ["iu/ml"],
  "U/mL": ["u/ml", "units/ml"],
  "mm/h": [
    "mm/hr",
    "mm/h",
    "mm/1sthr",
    "mm/1sthour",
    "mmin1sthr",
    "mm/1hr",
    "mm/hour",
    "mm/1st",
    "mmfall/hr",
  ],
  // Counts per volume are read by their grammar (countUcum below); these few spellings are kept
  // for nearUcum, which finds a garbled word ("10°3/uL_—s") among the table's spellings.
  "/uL": ["/cumm", "cells/cumm", "/ul", "/cu.mm", "cumm"],
  "10*3/uL": ["10^3/ul", "10^3/cumm", "thou/cumm"],
  "10*9/L": ["10^9/l"],
  "10*6/uL": ["10^6/ul", "mill/cumm", "million/cumm"],
  "10*12/L": ["10^12/l", "t/l"],
  "10*5/uL": ["lakhs/cumm", "lakh/cumm"],
  "L/L": ["l/l"],
  "mL/min/{1.73_m2}": [
    "ml/min/1.73m2",
    "ml/min/1.73m^2",
    "ml/min/1.73sqm",
    "ml/min/1.73sq.m",
    "ml/min/1.73",
    "ml/min/1.73m²",
  ],
  "/[HPF]": ["/hpf", "cells/hpf", "/h.p.f", "/h.p.f.", "perhpf", "hpf"],
  s: ["sec", "secs", "seconds", "second", "s"],
  "mg/g": ["mg/g", "mg/gm", "mg/gcreat", "mg/gcreatinine", "mg/gmcreatinine"],
  "ug/mg": ["ug/mg"],
  "mg/mmol": ["mg/mmol"],
  "{INR}": ["inr"],
  "[pH]": [],
  "1": ["ratio"],
};

const LOOKUP = new Map<string, string>();
for (const [ucum, printed] of Object.entries(TABLE)) {
  for (const p of printed) LOOKUP.set(p, ucum);
}

/** The key a printed unit is looked up by. */
export function unitKey(printed: string): string {
  return (
    printed
      .replace(/³/g, "^3")
      .replace(/⁶/g, "^6")
      .replace(/⁹/g, "^9")
      .replace(/¹²/g, "^12")
      .normalize("NFKC")
      .toLowerCase()
      .replace(/[µμ]/g, "u")
      .replace(/mcg|mcu/g, (m) => "u" + m.slice(2))
      .replace(/\s+/g, "")
      // A small L printed in a font where it is a bar ("U/|"), or a table's rule read after the unit.
      .replace(/\/\|$/, "/l")
      .replace(/\|/g, "")
      .replace(/^[x×*]\s*(?=10)/, "")
      .replace(/10\s*[x×]\s*(?=\d)/, "10^")
      .replace(/\*\*/g, "^")
      // OCR's readings of a superscript's caret: "10°6/uL", "10%3/uL".
      .replace(/^10[°%](?=\d)/, "10^")
      .replace(/_+$/, "")
      .replace(/^\(|\)$/g, "")
      // "million/cu.mm." — a unit that ends its sentence.
      .replace(/(?<=[a-z])\.$/, "")
  );
}

/*
 * A count per volume (decision 0106): a multiplier and a volume, in any spelling and spacing —
 * "thou/mm3", "lak/ cumm", "Lakhs / cu mm", "x10^3 / cmm", "10^3 cells/µL", "cells/mcL" — read
 * as the multiplier × per-volume instead of a list of every spelling. A litre takes only 10^9 or
 * 10^12 (a count per litre); a bare volume only the cubic millimetre ("cumm"; a bare "ul" may be
 * U/L); a one-letter multiplier ("k", "m", "t") only before its "/".
 */
const MULTIPLIER: [RegExp, number][] = [
  [/^(?:cells?)?$/, 1],
  [/^(?:thou|thousands?|k|10\^3|10e3|10\*3)$/, 1e3],
  [/^(?:lakhs?|lacs?|lak|10\^5|10e5|10\*5)$/, 1e5],
  [/^(?:mil|mill|millions?|m|10\^6|10e6|10\*6)$/, 1e6],
  [/^(?:10\^9|10e9|10\*9)$/, 1e9],
  [/^(?:t|10\^12|10e12|10\*12)$/, 1e12],
];
const PER_UL: Record<number, string> = { 1: "/uL", 1e3: "10*3/uL", 1e5: "10*5/uL", 1e6: "10*6/uL" };
const PER_L: Record<number, string> = { 1e9: "10*9/L", 1e12: "10*12/L" };
const COUNT = /^(.*?)(\/|per)?(cumm|cu\.mm|c\.mm|cmm|mm3|mm\^3|ul|mcl|microlit(?:re|er)|l|lit(?:re|er))$/;

/** The UCUM code of a count per volume (a key as unitKey makes it), or null when it is not one. */
function countUcum(key: string): string | null {
  const m = COUNT.exec(key);
  if (!m) return null;
  const [, before, per, volume] = m as unknown as [string, string, string | undefined, string];
  const word = before.replace(/cells?$/, "");
  const factor = MULTIPLIER.find(([re]) => re.test(word))?.[1];
  if (factor === undefined) return null;
  if (word.length === 1 && !per) return null;
  if (/^l|^lit/.test(volume)) return PER_L[factor] ?? null;
  if (!per && !before && !/^c|^mm/.test(volume)) return null;
  return PER_UL[factor] ?? null;
}

/** The UCUM code for a printed unit, or null when it is not a unit we know. */
export function toUcum(printed: string): string | null {
  const key = unitKey(printed);
  return LOOKUP.get(key) ?? countUcum(key);
}

/** Edit distance of two short strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i]![j] = Math.min(
        d[i - 1]![j]! + 1,
        d[i]![j - 1]! + 1,
        d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
  return d[a.length]![b.length]!;
}

/**
 * A word OCR garbled that can only be one of `allowed` (the units the test beside it is printed
 * in): within one letter of a spelling ("g/dt" for g/dL), two for a longer one ("mnv/hr"), or a
 * spelling followed by a table's rule or smudge ("10°3/uL_—s"); a word of four letters or more
 * whose stroke was lost ("gmdl", "mgdi"), within one letter of a spelling without its stroke (two
 * for a word of five or more: "gnvdi"). The nearest spelling decides ("gmv/dl" is gm/dl, one letter
 * off, not gms/l, two; decision 0124). Null when it is none, or more than one unit at the nearest
 * distance.
 */
export function nearUcum(printed: string, allowed: readonly string[]): string | null {
  const key = unitKey(printed);
  const stroked = key.includes("/");
  if (!stroked && (key.length < 4 || !/^[a-z%]+$/.test(key))) return null;
  let best = Infinity;
  const hits = new Set<string>();
  for (const [spelling, ucum] of LOOKUP) {
    if (!allowed.includes(ucum) || !spelling.includes("/")) continue;
    const target = stroked ? spelling : spelling.replace("/", "");
    const smudged = stroked && key.startsWith(spelling) && /^[^a-z0-9]/.test(key.slice(spelling.length));
    const d = smudged ? 0 : distance(key, target);
    const within = stroked
      ? spelling.length >= 5
        ? 2
        : 1
      : target.length >= 4
        ? key.length >= 5
          ? 2
          : 1
        : 0;
    if (d > within) continue;
    if (d < best) {
      best = d;
      hits.clear();
    }
    if (d === best) hits.add(ucum);
  }
  return hits.size === 1 ? [...hits][0]! : null;
}

/**
 * The unit a printed unit would be had OCR read its "µ" right: "pmol/L", "yumol/L", "pg/mL" as
 * µmol/L, µg/mL (Tesseract reads µ as p, y or yu, and g after it as e). Only for a unit that does not
 * fit the test it is printed beside: "pg/mL" is B12's own unit.
 */
export function microUcum(printed: string): string | null {
  const key = unitKey(printed)
    .replace(/^(yu|y|p|j)(?=[a-z])/, "u")
    .replace(/^ue\//, "ug/");
  return key.startsWith("u") ? (LOOKUP.get(key) ?? null) : null;
}

/**
 * The unit a printed unit would be had OCR seen its "µ" at all (decision 0124): "g/dL", "mol/L",
 * "IU/mL" as µg/dL, µmol/L, µIU/mL. Only for a unit that does not fit the test it is printed
 * beside (g/dL is albumin's own), and a guess the expert checks.
 */
export function unseenMicroUcum(printed: string): string | null {
  const key = unitKey(printed);
  return /^(g|mol|iu)\//.test(key) ? (LOOKUP.get(`u${key}`) ?? null) : null;
}

/** Longest run of 1..4 whitespace-separated words at `words[from]` that reads as a unit. */
export function unitAt(words: string[], from: number): { ucum: string; length: number; text: string } | null {
  for (let n = Math.min(4, words.length - from); n >= 1; n--) {
    const text = words.slice(from, from + n).join(" ");
    const ucum = toUcum(text);
    if (ucum) return { ucum, length: n, text };
  }
  return null;
}

const SHOWN: Record<string, string> = {
  "10*3/uL": "×10³/µL",
  "10*6/uL": "×10⁶/µL",
  "10*9/L": "×10⁹/L",
  "/uL": "/µL",
  "u[IU]/mL": "µIU/mL",
  "m[IU]/L": "mIU/L",
  "m[IU]/mL": "mIU/mL",
  "/100{WBCs}": "/100 WBC",
  "mg/(24.h)": "mg/24 h",
  "g/(24.h)": "g/24 h",
  "[IU]/L": "IU/L",
  "[IU]/mL": "IU/mL",
  "ug/dL": "µg/dL",
  "ug/L": "µg/L",
  "umol/L": "µmol/L",
  "meq/L": "mEq/L",
  "mm/h": "mm/hr",
  "mL/min/{1.73_m2}": "mL/min/1.73m²",
  "/[HPF]": "/HPF",
  "[pH]": "",
  "{INR}": "",
  "1": "",
};

/** A UCUM unit as people read it ("10*3/uL" → "×10³/µL"; a unitless "1" → ""). */
export function displayUnit(ucum: string): string {
  return SHOWN[ucum] ?? ucum;
}

/**
 * A "µ" OCR read as "p", "y" or "yu" put back where no lab prints the unit as read (decision 0112):
 * "yg/dL", "pg/dL" (picograms per decilitre) and "pIU/mL" are µg/dL and µIU/mL, as the
 * catalogue of units already reads them; the range and unit then read as printed. "pg/mL", a
 * real unit, is left as it is. OCR text only: a text layer's letters are the lab's own.
 */
export function microAsPrinted(text: string): string {
  return text.replace(/(^|[\s([‘'"“*])(?:yu|y|p)(?=(?:g\/d[l1]|[il1]u\/m[l1])(?![a-z]))/gi, "$1µ");
}

/**
 * What OCR read as other letters put back (decision 0124), OCR text only: a text layer's letters are
 * the lab's own and are never changed.
 * - An L read as "i", "1", "b", "|" (a small l) or as its foot, a dash (a capital L), where it
 *   ends a unit after its stroke ("ng/di", "ug / di", "mg/d1", "mg/d-", "ulU / mi" for dl, dL and
 *   ml: no unit ends so); a dash inside it or a stroke after it ("ng/d-L", "pg/dLl").
 * - The capital I of IU read as a small l ("ulU/mL", "mlU/L", "µlU/mL").
 * - Femtolitres read "fi", "f1" or "fil"; a g read as a 9 where a number's unit begins ("14-16 9%").
 * - An m read as "rn", "nv", "mv" or "mi" in gm/dl ("gnv/dl", "gmi/dl").
 * - A µ read as "p", "pa", "pi", "y" or "yu" and its g as "e" before "/dL" ("pe/dL", "pig/dL"; no lab
 *   prints picograms per decilitre), then microAsPrinted.
 * - A zero read as "@", "®" or "©" where a number begins (Courier's dotted zero: "@-200", "®.93"),
 *   or as two different ones ("®©.93"); a zero read as a capital O glued to a range's "to" ("Oto 41").
 * - A count's stroke read as a quote or an f ("cells‘cumm", "lakhsfcumm").
 * - A decimal point read as a comma ("0.70-1,30"): a comma groups three digits (or, in lakhs, two
 *   before more groups: "1,50,000"), never one or two at a number's end.
 */
export function ocrAsPrinted(text: string): string {
  return microAsPrinted(
    text
      .replace(/(\/\s?[dm])[-–](?=[lL](?![A-Za-z]))/g, "$1")
      .replace(/(\/\s?[dm][lL])[lI1|](?![A-Za-z0-9])/g, "$1")
      .replace(
        /(\/\s?)(?:([dm])[i1b|]|(d|m|mc|u|µ|D|M)[-–_]|([DM])[I1|])(?![A-Za-z0-9])/g,
        (_, stroke: string, small?: string, foot?: string, capital?: string) =>
          small ? `${stroke}${small}l` : `${stroke}${foot ?? capital}L`,
      )
      .replace(/(^|[^A-Za-z])([uµm])lU(?=\s?\/)/g, "$1$2IU")
      .replace(/(?<=\d\s*)f(?:i|1|il)(?![A-Za-z0-9])/g, "fl")
      .replace(/(?<=\d\s+)9(?=m?%|ms?\s?\/\s?d[lL])/g, "g")
      .replace(/(?<![A-Za-z])g(?:rn|nv|mv|mi)(?=\s?\/\s?d[lL])/g, "gm")
      .replace(/(^|[\s([])(?:yu|y|pa|pi|p)[ge](?=\s?\/\s?d[lL](?![A-Za-z]))/g, "$1µg")
      .replace(/(^|[\s(:<>≤≥-])(?:®©|©®|@®|®@|@©|©@|[@®©])(?=[-–.]?\d|[-–]|\s?to\b)/g, "$10")
      .replace(/(^|[\s(:<>≤≥-])O\s?to(?=\s+\d)/g, "$10 to")
      .replace(/(?<=\b(?:cells|lakhs?|mill|million|thou))[‘’'f](?=(?:cumm|cu\.?\s?mm|[uµ]l)\b)/gi, "/")
      .replace(/(?<=\d),(?=\d{1,2}(?![\d,]))/g, "."),
  );
}
