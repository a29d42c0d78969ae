import { describe, expect, it } from "vitest";
import { cleanPage } from "~/domain/records/lab-pixels";
import {
  CONFIDENT,
  looksLikeLabReport,
  microAsPrinted,
  recogniseLabRows,
  ocrAsPrinted,
} from "~/domain/records/labs";
import { RANGE_CELL } from "~/domain/records/labs/lexer";

/**
 * A scanned or photographed page made ready for Tesseract (decisions 0082, 0112): what is lighter
 * than printed ink — a watermark drawn across the table, the paper's grain — comes out as paper.
 */
describe("a page cleaned for OCR", () => {
  /** 600 × 400 px of grainy paper (235–250) with rows of black strokes and a light grey mark. */
  function page() {
    const w = 600;
    const h = 400;
    const px = new Uint8Array(w * h);
    let seed = 7;
    const grain = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 16) % 16;
    };
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        // Text: 6-px strokes on rows 20 px tall, every 40 px; a watermark: a grey band across them.
        const stroke = y % 40 >= 10 && y % 40 < 30 && x % 12 < 6 && x > 40 && x < 560;
        const mark = Math.abs(x - y - 100) < 30;
        px[y * w + x] = stroke ? 20 : mark ? 200 : 235 + grain();
      }
    return { px, w, h };
  }

  it("turns a light watermark and the paper's grain to white and keeps the ink black", () => {
    const { px, w, h } = page();
    const out = cleanPage(px, w, h);
    expect(out.angle).toBe(0);
    const at = (x: number, y: number) => out.px[y * out.w + x]!;
    // The mark, between the rows of text (row 35 of a 40-px period), and clear paper.
    expect(at(235, 135)).toBe(255);
    expect(at(300, 195)).toBe(255);
    expect(at(20, 300)).toBe(255);
    // A stroke's middle stays ink.
    expect(at(123, 180)).toBeLessThan(60);
  });
});

describe("a row as OCR reads it", () => {
  const HEAD = "Test Name                 Result     Units        Bio. Ref. Interval";
  it.each([
    ["Potassium (K+)      4.1     mEq/L      3.5to 5.1", "3.5 to 5.1"],
    ["Potassium (K+)      4.1     mEq/L      3.5 to5.1", "3.5 to 5.1"],
    ["Potassium (K+)      4.1     mEq/L      3.5to5.1", "3.5 to 5.1"],
  ])("keeps a range whose 'to' OCR ran into a bound: %s", (line, range) => {
    const [row] = recogniseLabRows([HEAD, line]).rows;
    expect([row?.printedValue, row?.range?.text, row?.range?.low, row?.range?.high]).toEqual([
      "4.1",
      range,
      3.5,
      5.1,
    ]);
  });
});

describe("a range's high bound glued to its unit, and OCR's 't0' for 'to' (decision 0122)", () => {
  // Rows as the table reader hands them on: the range cell marked where it begins (RANGE_CELL).
  it.each([
    ["Eosinophils", "4", "1to6%", "1 to 6 %", 1, 6],
    ["Eosinophils", "4", "1 to 6%", "1 to 6 %", 1, 6],
    ["Monocytes", "6", "2t0 10%", "2 to 10 %", 2, 10],
    ["Creatinine", "0.9 mg/dL", "0.7to1.3mg/dL", "0.7 to 1.3 mg/dL", 0.7, 1.3],
  ])("reads %s %s %s", (name, value, printed, range, low, high) => {
    const [row] = recogniseLabRows([`${name}   ${value}   ${RANGE_CELL} ${printed}`]).rows;
    expect([row?.range?.text, row?.range?.low, row?.range?.high]).toEqual([range, low, high]);
  });

  it("leaves a value glued to its unit as it was, with no 'to' before it", () => {
    const [row] = recogniseLabRows([`HbA1c   6.5%   ${RANGE_CELL} 4.0 - 5.6`]).rows;
    expect([row?.printedValue, row?.range?.text]).toEqual(["6.5", "4.0 - 5.6"]);
  });
});

describe("a µ OCR read as another letter", () => {
  it.each([
    ["TIBC   420   250-450 yg/dL", "TIBC   420   250-450 µg/dL"],
    ["Iron   185   50-170 pg/dL", "Iron   185   50-170 µg/dL"],
    ["TSH   3.13   0.27-4.20 pIU/mL", "TSH   3.13   0.27-4.20 µIU/mL"],
    ["TSH   3.13   (0.27-4.20 plU/mL)", "TSH   3.13   (0.27-4.20 µlU/mL)"],
    // Units a lab does print are left as read.
    ["Vitamin B12   775   211 - 911 pg/mL", "Vitamin B12   775   211 - 911 pg/mL"],
    ["MCH   28.6   pg   27 - 32", "MCH   28.6   pg   27 - 32"],
    ["Free T4   14.2   pmol/L", "Free T4   14.2   pmol/L"],
  ])("%s", (read, printed) => {
    expect(microAsPrinted(read)).toBe(printed);
  });

  it("reads the unit printed in the range as printed", () => {
    const head = "Test Name                 Result     Bio. Ref. Interval";
    const [row] = recogniseLabRows([head, microAsPrinted("Iron      185      50-170 pg/dL")]).rows;
    expect([row?.printedValue, row?.range?.text, row?.printedUnit]).toEqual(["185", "50-170", "µg/dL"]);
  });
});

describe("a lab report whose rows OCR garbled", () => {
  it("is still a lab report when three tests' rows are there but none could be read", () => {
    // A two-column photo in small type: every unit cell read as a word.
    const lines = [
      "TEST DESCRIPTION METHOD   OBSERVED VALUE UNITS   NORMAL RANGE STATUS",
      "Total T3   187 Normal   ngimt   ¦ 0.80 - 2.00      Haematocrit   39.7 Normal   *   ¦ Femate: 36 - 46",
      "Free T4   158 Normal   ng.   ¦ 0.93 - 1.70",
      "MCH   328 Normal   eo   ¦ 27-32",
      "ESR   7 Normal   mah   ¦ Female: 0 - 20 Male: 0-15",
    ];
    expect(looksLikeLabReport(lines).isLab).toBe(true);
  });

  it("is not a lab report when it reads as a letter", () => {
    const lines = [
      "Dear Dr. Rao,",
      "Total T3   187 Normal   ngimt   ¦ 0.80 - 2.00      Haematocrit   39.7 Normal   *   ¦ Femate: 36 - 46",
      "Free T4   158 Normal   ng.   ¦ 0.93 - 1.70",
      "MCH   328 Normal   eo   ¦ 27-32",
    ];
    expect(looksLikeLabReport(lines).isLab).toBe(false);
  });
});

/**
 * Letters of a unit or a name OCR read as others, and cells OCR ran together or could not read
 * (decision 0124): forms seen on photographed and scanned pages of real reports.
 */
describe("a unit's letters OCR read as others", () => {
  it.each([
    ["T3   85.4   ng/di   70 - 200 ng / di", "T3   85.4   ng/dl   70 - 200 ng / dl"],
    ["Urea   24   mg/d1   15 - 45 mg/DI", "Urea   24   mg/dl   15 - 45 mg/DL"],
    ["TSH   5.4   ulU / ml   0.2 - 6.0 ulU / mi", "TSH   5.4   uIU / ml   0.2 - 6.0 uIU / ml"],
    ["LH   4.1   mlU/ml   1.7 - 8.6", "LH   4.1   mIU/ml   1.7 - 8.6"],
    ["MCV   82.17   fl   80 - 99 fi", "MCV   82.17   fl   80 - 99 fl"],
    ["MPV   12   fil   9 - 13 f1", "MPV   12   fl   9 - 13 fl"],
    ["Free T4   1.46   0.93 to 1.70   ng/d-L", "Free T4   1.46   0.93 to 1.70   ng/dL"],
    ["T4   6.3   5.1-14.1 pg/dLl", "T4   6.3   5.1-14.1 µg/dL"],
    ["TIBC   464   250-450 pig/dL", "TIBC   464   250-450 µg/dL"],
    ["Iron   76   65 - 175 pe/dL", "Iron   76   65 - 175 µg/dL"],
    ["Albumin   5.6   3.5-5.2 gmi/dl", "Albumin   5.6   3.5-5.2 gm/dl"],
    ["WBC   8000   cells‘cumm   4000 - 11000", "WBC   8000   cells/cumm   4000 - 11000"],
    [
      "Haemoglobin   15.5   g%   male : 14-16 9% Female : 12 - 14 g%",
      "Haemoglobin   15.5   g%   male : 14-16 g% Female : 12 - 14 g%",
    ],
    // What a lab does print stays as read.
    ["Iron   91   ug/dl   60 - 170 ug/dl", "Iron   91   ug/dl   60 - 170 ug/dl"],
    ["Differential   see film   fibrin strands", "Differential   see film   fibrin strands"],
    ["Neutrophils   59   %   40 - 75 %", "Neutrophils   59   %   40 - 75 %"],
    ["Glucose 90 mg/dl (fasting) / minimum", "Glucose 90 mg/dl (fasting) / minimum"],
  ])("%s", (read, printed) => {
    expect(ocrAsPrinted(read)).toBe(printed);
  });
});

describe("rows OCR garbled in ways a reader can still read", () => {
  const head = "TEST   RESULT   UNITS   NORMAL VALUES";
  const row = (line: string) => recogniseLabRows([head, ocrAsPrinted(line)]).rows[0];

  it.each([
    // A unit put back, then read as printed.
    ["T3 [ Tri - iodothyronine }   85.4   ng/di   ¦ 70 - 200 ng / di", "85.4", "70 - 200 ng / dl"],
    // The high bound glued to the range's unit after a dash, or with the dash glued to it.
    ["PCV   37.8   %   ¦ 35 - 60%", "37.8", "35 - 60 %"],
    ["MCH   33.70   pg   ¦ 27 -31pg", "33.70", "27 - 31 pg"],
    // A speck read as a full stop after the range.
    ["Bilirubin Indirect   0.90   mg / dl   ¦ 0.1-0.7. mg/dl", "0.90", "0.1-0.7 mg/dl"],
    // An O read as a zero in an abbreviation.
    ["S.G.0.T.   48.6   U/L   ¦ Up to 46 U/L", "48.6", "Up to 46 U/L"],
  ])("%s", (line, value, range) => {
    const r = row(line.replace("¦", RANGE_CELL));
    expect([r?.printedValue, r?.range?.text]).toEqual([value, range]);
  });

  it("reads a unit one letter off or without its stroke as the nearest unit the test is printed in", () => {
    // "gme/dl" is one letter from gm/dl (protein's g/dL) and three from mg/dl: the nearest decides.
    const protein = row(`Total Proteins   6.8   gme/dl   ${RANGE_CELL} 6.2 - 8.0 gm/dl`);
    expect([protein?.printedValue, protein?.unit]).toEqual(["6.8", "g/dL"]);
    expect(protein?.doubts).toContain("its unit read through a smudge");
    const globulin = row(`Globulin   3.20   gmdl   ${RANGE_CELL} 2 - 3.5 gm/dl`);
    expect([globulin?.printedValue, globulin?.unit]).toEqual(["3.20", "g/dL"]);
  });

  it("takes the range's unit for a unit cell that did not read, in doubt", () => {
    const r = row(`MCH   33.70   pa   ${RANGE_CELL} 27 - 31 pg`);
    expect([r?.printedValue, r?.unit, r?.range?.text]).toEqual(["33.70", "pg", "27 - 31 pg"]);
    expect(r!.confidence).toBeLessThan(CONFIDENT);
    expect(r?.doubts).toContain("its unit did not read: the range's unit is taken");
  });

  it("does not take a range's unit the test is not printed in, nor a word that is no unit cell", () => {
    expect(row(`Haemoglobin   13.5   Absolute   ${RANGE_CELL} 40 - 70 %`)).toBeUndefined();
    expect(row(`Haemoglobin   13.5   tested twice   ${RANGE_CELL} 13 - 17 g/dl`)).toBeUndefined();
  });
});

describe("a decimal point OCR did not see (decision 0124)", () => {
  const head = "TEST   RESULT   UNITS   NORMAL VALUES";
  const read = (line: string, ocr = true) =>
    recogniseLabRows([head, ocrAsPrinted(line.replace("¦", RANGE_CELL))], undefined, { ocr }).rows[0];

  it.each([
    // A value no body holds, put back where one place of the point alone puts it by its range…
    ["Potassium   45   mEq/L   ¦ 3.5 - 5.1", "4.5", "3.5 - 5.1"],
    ["Calcium   99   mg/dL   ¦ 8.6 - 10.3", "9.9", "8.6 - 10.3"],
    // …or, with no part of the range to go by, among the test's usual values.
    ["Uric Acid   58   mg/dL   ¦ M: 3.5 - 7.2 F: 2.6 - 6.0", "5.8", "M: 3.5 - 7.2 F: 2.6 - 6.0"],
    // A range whose bounds lost their points beside the test's usual interval.
    ["Phosphorus   3.1   mg/dL   ¦ 25-45", "3.1", "2.5-4.5"],
    ["HbA1c   3.8   %   ¦ 40-56 %", "3.8", "4.0-5.6 %"],
    ["MCHC   32.3   g/dL   ¦ 315-345", "32.3", "31.5-34.5"],
    // A decimal point read as a comma; a Courier zero read as "@".
    ["Serum Creatinine   0.61   mg/dl   ¦ 0.55-1,02", "0.61", "0.55-1.02"],
    ["Cholesterol Total   189   mg/dL   ¦ @-200", "189", "0-200"],
    // The same zero read as two marks, or as a capital O glued to the range's "to".
    ["Free T4   1.46   ng/dL   ¦ ®©.93 to 1.70", "1.46", "0.93 to 1.70"],
    ["ALT   29   U/L   ¦ Oto 41", "29", "0 to 41"],
  ])("%s", (line, value, range) => {
    const r = read(line);
    expect([r?.printedValue, r?.range?.text]).toEqual([value, range]);
  });

  it("drops zeros OCR made of a mark after the value, where the lab prints fewer decimals", () => {
    // "531↑" read as "5310", "8.5↓" as "8.50": the same number as printed, still in doubt.
    const tibc = read("TIBC   5310   ug/dL   ¦ 250 - 450")!;
    expect([tibc.printedValue, tibc.measure.judgement]).toEqual(["531", "unknown"]);
    expect(tibc.doubts.join("; ")).toMatch(/a mark after the value read as a 0/);
    const bun = read("BUN   5.40   mg/dL   ¦ 8.0 - 20.0")!;
    expect([bun.printedValue, bun.value]).toEqual(["5.4", 5.4]);
    expect(bun.confidence).toBeLessThan(CONFIDENT);
    // A text layer's "5.40" is what the lab printed.
    expect(read("BUN   5.40   mg/dL   ¦ 8.0 - 20.0", false)?.printedValue).toBe("5.40");
  });

  it("keeps the row in doubt and judges nothing against it", () => {
    for (const line of ["Potassium   45   mEq/L   ¦ 3.5 - 5.1", "Phosphorus   3.1   mg/dL   ¦ 25-45"]) {
      const r = read(line)!;
      expect(r.confidence).toBeLessThanOrEqual(0.6);
      expect(r.measure.judgement).toBe("unknown");
      expect(r.doubts.join("; ")).toMatch(/decimal points? (was|were) not seen/);
    }
  });

  it("leaves a possible value, a text layer's number and an unclear place as they were", () => {
    // 130 beside urea's 17 - 43 is high (a body can hold it), not 13.0.
    expect(read("Urea   130   mg/dl   ¦ 17 - 43")?.printedValue).toBe("130");
    // A text layer prints what the lab typed: its numbers are never changed.
    expect(read("Potassium   45   mEq/L   ¦ 3.5 - 5.1", false)?.printedValue).toBe("45");
    expect(read("Phosphorus   3.1   mg/dL   ¦ 25-45", false)?.range?.text).toBe("25-45");
    // A range printed in parts is not rewritten.
    expect(read("Creatinine   0.9   mg/dl   ¦ M: 7-13 F: 6-11")?.range?.text).toBe("M: 7-13 F: 6-11");
  });

  it("doubts a range whose first part names nobody and a later part a sex (a label OCR lost)", () => {
    const r = read("Uric acid   5.6   mg/dL   ¦ 2.6-6.0 M: 3.5-7.2")!;
    expect([r.printedValue, r.range, r.measure.judgement]).toEqual(["5.6", null, "unknown"]);
    expect(r.doubts).toContain("the printed range did not read cleanly");
  });

  it("reads T3 and T4 whose T OCR read as a one, and a µ it did not see", () => {
    expect(read("Free 14   1.46   ng/dL   ¦ 0.93 to 1.70")?.analyte).toBe("Free T4");
    const tibc = read("Total Iron Binding Capacity (TIBC)   422   g/dL   ¦ (250-450)");
    expect([tibc?.printedValue, tibc?.unit]).toEqual(["422", "ug/dL"]);
    expect(tibc?.doubts).toContain("its unit read as µ (no µ was seen)");
    expect(tibc!.confidence).toBeLessThan(CONFIDENT);
  });
});

describe("a range's 'to' OCR read as a 0 (decision 0127)", () => {
  const head = "TEST   RESULT   UNITS   NORMAL VALUES";
  // Two rows whose ranges read with their "to": the page prints its ranges so.
  const page = ["Bilirubin Total   1.03   ¦ 0.2 to 1.2 mg/dl", "Alk. Phosphatase   98   ¦ 40 to 129 IU/L"];
  const read = (line: string, { ocr = true, lines = page } = {}) =>
    recogniseLabRows(
      [head, ...lines, line].map((l) => l.replace("¦", RANGE_CELL)),
      undefined,
      { ocr },
    ).rows.find((r) => !/bilirubin|phosph/i.test(r.analyte));

  it.each([
    ["Eosinophils   2   ¦ 106%", "1 to 6 %"],
    ["Monocytes   9   ¦ 20 10%", "2 to 10 %"],
    ["Basophils   1   ¦ 002%", "0 to 2 %"],
    ["Lymphocytes   33   ¦ 200 40%", "20 to 40 %"],
  ])("%s", (line, range) => {
    const r = read(line)!;
    expect([r.printedValue, r.range?.text, r.measure.judgement]).toEqual([
      line.split(/\s+/)[1],
      range,
      "unknown",
    ]);
    expect(r.confidence).toBeLessThanOrEqual(0.6);
    expect(r.doubts.join("; ")).toMatch(/the range's "to" read as a 0/);
  });

  it("only on an OCR page of 'to' ranges, only where the row did not read, and only where one place fits", () => {
    // A text layer prints what the lab typed; a page of dashes has no "to" to lose.
    expect(read("Eosinophils   2   ¦ 106%", { ocr: false })).toBeUndefined();
    expect(
      read("Eosinophils   2   ¦ 106%", { lines: ["Bilirubin Total   1.03   ¦ 0.2 - 1.2 mg/dl"] }),
    ).toBeUndefined();
    // A row that reads is left as it is.
    expect(read("Eosinophils   2   %   ¦ 1 to 6")?.doubts).toEqual([]);
    // "1006" could be "1 to 06" or "10 to 6"… neither is a range a lab prints for eosinophils beside 2.
    expect(read("Eosinophils   2   ¦ 10106%")).toBeUndefined();
  });
});
