import { describe, expect, it } from "vitest";
import { CATALOGUE, CONFIDENT, convert, recogniseLabRows, type Analyte } from "~/domain/records/labs/index";

/*
 * A corpus made in code with its truth known (decision 0079): every analyte of the catalogue,
 * printed under each alias, in the printed or an alternative unit, in the four layouts (one table,
 * two columns side by side, a flag column, a Hindi-English header). Its figures are a floor: on
 * clean text ≥ 98 % of values exact and none wrong; on text that lost its decimal points (as
 * Tesseract's eng+hin pass does) no wrong value is ever marked confident.
 */

let seed = 54;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** Indian digit grouping for whole numbers of 4+ digits: 150000 → "1,50,000". */
function indian(n: number): string {
  const s = String(n);
  if (s.length <= 3) return s;
  const head = s.slice(0, -3).replace(/\B(?=(\d{2})+$)/g, ",");
  return `${head},${s.slice(-3)}`;
}

const PRINTED_UNIT: Record<string, string[]> = {
  "g/dL": ["g/dL", "gm/dl", "g%"],
  "mg/dL": ["mg/dL", "mg/dl"],
  "10*3/uL": ["x10^3/uL", "10^3/µL", "thou/cumm"],
  "10*6/uL": ["mill/cumm", "10^6/µL"],
  "/uL": ["/cumm", "cells/cumm"],
  "10*5/uL": ["lakhs/cumm"],
  "u[IU]/mL": ["µIU/mL", "uIU/ml"],
  "m[IU]/L": ["mIU/L"],
  "umol/L": ["µmol/L", "umol/l"],
  "mmol/L": ["mmol/L"],
  "meq/L": ["mEq/L"],
  "mm/h": ["mm/hr", "mm/1st hr"],
  "mL/min/{1.73_m2}": ["mL/min/1.73m2"],
  "/[HPF]": ["/hpf"],
  "[IU]/L": ["IU/L"],
  "[IU]/mL": ["IU/mL"],
  "m[IU]/mL": ["mIU/mL", "mIU/ml"],
  "/100{WBCs}": ["/100 WBC"],
  "mg/(24.h)": ["mg/24 hrs", "mg/day"],
  "g/(24.h)": ["g/24 hrs"],
  "{INR}": [""],
  "[pH]": [""],
  "1": [""],
};
const printedUnit = (ucum: string) => pick(PRINTED_UNIT[ucum] ?? [ucum]);

type Truth = { line: number; loinc: string; printed: string; value: number };
type Case = { analyte: Analyte; name: string; ucum: string; printed: string; value: number; cells: string[] };

function makeCase(a: Analyte, name: string): Case {
  const alt = a.alt.length > 0 && rand() < 0.35 ? pick(a.alt) : { ucum: a.unit, factor: 1 };
  const [p0] = a.possible;
  // Ranges about the analyte's usual interval, as labs print them (one far from it is doubted as a
  // misreading, decision 0106), and values about the range, never below what is possible.
  const [u0, u1] = a.usual!;
  const lowRef = Math.max(p0, u0 + (u1 - u0) * (rand() * 0.2 - 0.1));
  const highRef = u1 + (u1 - u0) * (rand() * 0.2 - 0.1);
  const inUnit = (v: number) => v / alt.factor;
  const big = alt.ucum === "/uL";
  // Enough decimals for two significant figures of the smaller bound (0.02 ×10³/µL is 0.0002 lakhs).
  const least = inUnit(lowRef > 0 ? lowRef : highRef);
  const decimals = big
    ? 0
    : Math.max(a.decimals, alt.factor === 1 ? a.decimals : 2, 1 - Math.floor(Math.log10(least)));
  const fmt = (v: number) => (big ? indian(Math.round(v / 100) * 100) : v.toFixed(decimals));
  const printed = fmt(inUnit(Math.max(p0, lowRef + (highRef - lowRef) * (rand() * 1.6 - 0.3))));
  // In the analyte's unit by the one conversion (decision 0088).
  const value = convert(Number(printed.replace(/,/g, "")), alt.factor);
  const range =
    rand() < 0.2 ? `< ${fmt(inUnit(highRef))}` : `${fmt(inUnit(lowRef))} - ${fmt(inUnit(highRef))}`;
  return {
    analyte: a,
    name,
    ucum: alt.ucum,
    printed,
    value,
    cells: [name, printed, printedUnit(alt.ucum), range],
  };
}

/** H or L as a lab prints it beside a value outside its range ("a - b" or "< b"), else nothing. */
function printedFlag(printed: string, range: string): string {
  const [v, ...bounds] = [printed, ...range.split(/\s+-\s+|<\s*/).filter(Boolean)].map((x) =>
    Number(x.replace(/,/g, "")),
  );
  const [low, high] = bounds.length === 2 ? bounds : [null, bounds[0]!];
  return high !== null && v! > high ? "H" : low !== null && v! < low ? "L" : "";
}

const pad = (s: string, n: number) => s + " ".repeat(Math.max(2, n - s.length));
const row = (cells: string[]) => pad(cells[0]!, 34) + pad(cells[1]!, 12) + pad(cells[2]!, 14) + cells[3];

type Report = { lines: string[]; truth: Truth[] };

function layout(kind: number, cases: Case[], urine: boolean): Report {
  const lines: string[] = [];
  const truth: Truth[] = [];
  const add = (c: Case) =>
    truth.push({ line: lines.length, loinc: c.analyte.loinc, printed: c.printed, value: c.value });
  const heading = urine ? "URINE ROUTINE EXAMINATION" : "BIOCHEMISTRY";
  lines.push(
    "SUNRISE PATH LABS, Pune    Ph: 020-24567890    NABL accredited",
    `Patient: Meena K   Age: 54 Y   Collected: 04/02/2025 09:15`,
  );
  if (kind === 3)
    lines.push(
      "जाँच / Test    परिणाम / Result    इकाई / Unit    संदर्भ सीमा / Reference Range",
      `मूत्र / ${heading}`,
    );
  else lines.push("Test Name    Result    Unit    Biological Reference Interval", heading);
  if (kind === 1) {
    for (let i = 0; i < cases.length; i += 2) {
      const [l, r] = [cases[i]!, cases[i + 1]];
      add(l);
      if (r) add(r);
      lines.push(pad(row(l.cells), 80) + (r ? row(r.cells) : ""));
    }
  } else {
    for (const c of cases) {
      add(c);
      const cells = [...c.cells];
      // A lab flags what its own range puts outside it (a flag against the range is never judged).
      if (kind === 2) cells[1] = pad(cells[1]!, 10) + printedFlag(c.printed, c.cells[3]!);
      if (kind === 3) cells[0] = `जाँच / ${cells[0]}`;
      lines.push(
        kind === 2
          ? row([cells[0]!, cells[1]!, cells[2]!, cells[3]!]).replace(/ (H|L) /, " $1 ")
          : row(cells),
      );
    }
  }
  lines.push("*** End of Report ***", "Page 1 of 1");
  return { lines, truth };
}

function corpus(): Report[] {
  const reports: Report[] = [];
  for (let round = 0; round < 3; round++)
    for (const specimen of ["blood", "urine"] as const) {
      // Numbers only: word results are measured on the layouts of tests/helpers/lab-corpus.ts.
      const cases = CATALOGUE.filter((a) => a.specimen === specimen && a.scale !== "ord").flatMap((a) =>
        a.aliases.filter((n) => rand() < 0.5 || n === a.aliases[0]).map((n) => makeCase(a, n)),
      );
      for (let i = 0; i < cases.length; i += 12)
        reports.push(layout((i / 12 + round) % 4, cases.slice(i, i + 12), specimen === "urine"));
    }
  return reports;
}

function score(reports: Report[]) {
  let values = 0,
    exact = 0,
    wrong = 0,
    wrongConfident = 0,
    confident = 0;
  const misses: string[] = [];
  for (const r of reports) {
    const { rows } = recogniseLabRows(r.lines);
    values += r.truth.length;
    for (const got of rows) {
      const t = r.truth.find(
        (x) => x.line === got.lineIndex && x.loinc === got.loinc && x.printed === got.printedValue,
      );
      if (t && Math.abs(t.value - got.value) <= 1e-9 * Math.max(1, t.value)) {
        exact++;
        if (got.confidence >= CONFIDENT) confident++;
      } else {
        wrong++;
        if (got.confidence >= CONFIDENT) {
          wrongConfident++;
          misses.unshift(`WRONG AND CONFIDENT: ${r.lines[got.lineIndex]} → ${got.loinc} ${got.value}`);
        }
        misses.push(`wrong: ${r.lines[got.lineIndex]} → ${got.loinc} ${got.value}`);
      }
    }
    for (const t of r.truth)
      if (!rows.some((g) => g.lineIndex === t.line && g.loinc === t.loinc))
        misses.push(`missed: ${r.lines[t.line]} (${t.loinc})`);
  }
  return { values, exact, wrong, wrongConfident, confident, misses };
}

describe("the generated corpus", () => {
  const reports = corpus();

  it("reads ≥ 98 % of values exactly on clean text, none wrong", () => {
    const s = score(reports);
    const rate = s.exact / s.values;
    console.log(
      `labs corpus (clean text): ${reports.length} reports, ${s.values} values, ${s.exact} exact (${(rate * 100).toFixed(1)} %), ${s.confident} of them confident, ${s.wrong} wrong`,
    );
    if (rate < 0.98 || s.wrong > 0) console.log(s.misses.slice(0, 30).join("\n"));
    expect(s.values).toBeGreaterThan(300);
    expect(rate).toBeGreaterThanOrEqual(0.98);
    expect(s.wrong).toBe(0);
    // Clean text with printed units and ranges is mostly vouched for (the rest lacks a range).
    expect(s.confident / s.values).toBeGreaterThanOrEqual(0.9);
  });

  it("never marks a wrong value confident when the reading lost its decimal points", () => {
    const lost = reports.map((r) => ({ ...r, lines: r.lines.map((l) => l.replace(/(\d)\.(\d)/g, "$1$2")) }));
    const s = score(lost);
    console.log(
      `labs corpus (decimal points lost): ${s.values} values, ${s.exact} exact, ${s.wrong} wrong, ${s.wrongConfident} wrong and confident`,
    );
    if (s.wrongConfident > 0) console.log(s.misses.slice(0, 10).join("\n"));
    expect(s.wrongConfident).toBe(0);
  });
});
