import { describe, expect, it } from "vitest";
import { cleanPage } from "~/domain/records/lab-pixels";
import { looksLikeLabReport, microAsPrinted, recogniseLabRows } from "~/domain/records/labs";
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
