import { describe, expect, it } from "vitest";
import { CONFIDENT, recogniseLabRows, type LabRow } from "~/domain/records/labs/index";

/*
 * Plausibility from the catalogue (decision 0106): each analyte's possible span and usual reference
 * interval say where a value and its printed range belong. A count printed with the wrong
 * multiplier, or none, is read with the one that puts both where they belong, in doubt; a printed
 * range far from the usual one, or an impossible value, is never vouched for nor judged; a whole
 * count beside a range of whole counts is no lost decimal point. Fed as a PDF's text layer or an OCR
 * pass gives it, in several layouts.
 */

const rowsOf = (lines: string[]) => recogniseLabRows(lines).rows;
const only = (lines: string[]): LabRow => {
  const rows = rowsOf(lines);
  expect(rows.length, lines.join(" / ")).toBe(1);
  return rows[0]!;
};
const HEAD = "Test Name                 Result     Units        Bio. Ref. Interval";

describe("a count printed with the wrong multiplier is read with the one that fits, in doubt", () => {
  it.each([
    // Per cumm printed as lakhs, in a table, after a colon, in brackets, with Indian grouping.
    ["Platelet Count          400000     lak/ cumm    150000 - 450000", 400, null, "/uL"],
    ["Platelet Count : 2,50,000  Lakhs / cu mm  [1,50,000 - 4,50,000]", 250, null, "/uL"],
    ["PLT   95000   lakhs/cumm   150000 - 410000", 95, "L", "/uL"],
    // Per cumm printed as thousands, thousands printed per cumm, millions printed per cumm.
    ["TLC              8200     thou/mm3     4000 - 11000", 8.2, null, "/uL"],
    ["Total WBC Count  13.6     cells/cumm   4.0 - 11.0", 13.6, "H", "10*3/uL"],
    ["Absolute Neutrophil Count   5100   x10^3 / cmm   2000 - 7000", 5.1, null, "/uL"],
    ["Total RBC Count  4.62   cells/cu.mm   4.50 - 5.50", 4.62, null, "10*6/uL"],
  ])("%s", (line, value, flag, readAs) => {
    const r = only([HEAD, line]);
    // The value and its range are judged together, in the multiplier that fits both.
    expect([r.value, r.printedUcum, r.flag]).toEqual([value, readAs, flag]);
    expect(r.confidence).toBeLessThan(CONFIDENT);
    expect(r.doubts.join()).toMatch(/the printed unit does not fit the number: read as/);
  });

  it("reads 400000 lak/ cumm as 400 ×10³/µL, never forty million", () => {
    const r = only([HEAD, "Platelet Count          400000     lak/ cumm    150000 - 450000 /lak cu.mm"]);
    expect([r.value, r.unit, r.flag]).toEqual([400, "10*3/uL", null]);
    expect(r.doubts).toContain("the printed unit does not fit the number: read as per cumm");
    expect(r.confidence).toBeLessThan(CONFIDENT);
  });

  it("reads the same wrong multiplier in two columns, each row on its own", () => {
    const rows = rowsOf([
      "Platelet Count   310000   lakhs/cumm   150000 - 450000        Haemoglobin   13.2   g/dL   12.0 - 15.5",
      "TLC              6.4      /cumm        4.0 - 11.0             PCV           39     %      36 - 46",
    ]);
    expect(rows.map((r) => [r.analyte, r.value, r.confidence < CONFIDENT])).toEqual([
      ["Platelet count", 310, true],
      ["Haemoglobin", 13.2, false],
      ["White blood cell count", 6.4, true],
      ["Haematocrit", 39, false],
    ]);
  });

  it("keeps the printed multiplier when it fits, or when no other fits both value and range", () => {
    const fits = only([HEAD, "Platelet Count   2.1   lak/ cumm   1.5 - 4.1"]);
    expect([fits.value, fits.printedUcum, fits.confidence >= CONFIDENT]).toEqual([210, "10*5/uL", true]);
    // Lakhs beside a range per cumm: no one multiplier puts both where they belong — doubted, unjudged.
    const neither = only([HEAD, "Platelet Count   2.5   lakhs/cumm   150 - 450"]);
    expect(neither.printedUcum).toBe("10*5/uL");
    expect([neither.flag, neither.measure.judgement]).toEqual([null, "unknown"]);
    expect(neither.confidence).toBeLessThan(CONFIDENT);
    // A count of millions per cumm beside a range in millions: impossible, never converted to a finding.
    const rbc = only([HEAD, "RBC Count   4500000   mill/cumm   4.5 - 5.5"]);
    expect([rbc.flag, rbc.measure.judgement]).toEqual([null, "unknown"]);
    expect(rbc.confidence).toBeLessThan(CONFIDENT);
  });
});

describe("a count printed without its unit is read with the one multiplier that fits, in doubt", () => {
  it.each([
    ["Platelet Count       250000      150000 - 450000", 250, "/uL"],
    ["Platelets            2.5         1.5 - 4.5", 250, "10*5/uL"],
    ["Total WBC Count      7800        4000 - 11000", 7.8, "/uL"],
    ["Neutrophils Absolute 4200        2000 - 7000", 4.2, "/uL"],
    ["Eosinophils Absolute 350         40 - 440", 0.35, "/uL"],
    ["RBC Count            4600000     4500000 - 5500000", 4.6, "/uL"],
  ])("%s", (line, value, readAs) => {
    const r = only(["HAEMATOLOGY", line]);
    expect([r.value, r.printedUnit, r.printedUcum]).toEqual([value, null, readAs]);
    expect(r.doubts.join()).toMatch(/^no unit printed: read as .*, the only count its number and range fit/);
    expect(r.confidence).toBeLessThan(CONFIDENT);
  });

  it("reads a count in the analyte's own unit as before, and leaves undecided what two readings fit", () => {
    const own = only(["Platelet Count   250   150 - 450"]);
    expect([own.value, own.printedUcum, own.doubts]).toEqual([250, null, ["no unit printed"]]);
    // "Neutrophils 62" may be a percentage or 62 ×10³/µL: the name and number do not decide.
    expect(rowsOf(["Neutrophils   62   40 - 80"])).toEqual([]);
  });
});

describe("a printed range far from the test's usual one is doubted, whatever OCR said", () => {
  it.each([
    // A photo's "17.2" and "7.0 - 21.0" with their points lost: 172 inside 70 - 210.
    ["Blood Urea Nitrogen   172   mg/dL   70-210"],
    ["BUN : 172 mg/dl (70 - 210)"],
    ["S. Creatinine   11   mg/dL   6 - 13"],
    ["TSH   32   µIU/mL   4 - 45"],
    ["SGPT (ALT)   350   U/L   50 - 400"],
    // Glucose printed in mmol/L with the unit mg/dL: 12 would be "high" against 7 - 11.
    ["Fasting Blood Sugar   12   mg/dL   7 - 11"],
    ["Sodium   14.0   mEq/L   13.5 - 14.5"],
  ])("%s", (line) => {
    const r = only(["BIOCHEMISTRY", line]);
    expect(r.confidence).toBeLessThan(CONFIDENT);
    expect([r.flag, r.measure.judgement]).toEqual([null, "unknown"]);
    expect(r.doubts.join()).toMatch(/far from any this test is printed with|outside what is possible/);
  });

  it("vouches for ranges labs do print, however they differ from the usual one", () => {
    const rows = rowsOf([
      "BIOCHEMISTRY",
      "Blood Urea Nitrogen   17.2   mg/dL   7.0 - 21.0",
      "Alkaline Phosphatase   245   U/L   80 - 306",
      "Anti TPO   4.1   IU/mL   < 5.6",
      "SGOT   32   U/L   0 - 37",
      "Triglycerides   172   mg/dL   25 - 200",
      "HDL Cholesterol   38   mg/dL   > 40",
    ]);
    expect(rows.map((r) => [r.analyte, r.confidence >= CONFIDENT, r.flag])).toEqual([
      ["Urea nitrogen (BUN)", true, null],
      ["Alkaline phosphatase", true, null],
      ["Anti-TPO antibodies", true, null],
      ["AST (SGOT)", true, null],
      ["Triglycerides", true, null],
      ["HDL cholesterol", true, "L"],
    ]);
  });
});

describe("a lost decimal point cannot make a whole count ending in zero", () => {
  it.each([
    ["Platelet Count   1550000   / cu.mm   150000 - 450000", 1550],
    ["Platelet Count : 15,50,000 cells/cumm [1,50,000 - 4,50,000]", 1550],
    ["Total Leucocyte Count   1,10,000   /cumm   4,000 - 11,000", 110],
    ["Eosinophils Absolute   4000   cells/cumm   40 - 440", 4],
  ])("%s is high", (line, value) => {
    const r = only([HEAD, line]);
    expect([r.value, r.flag, r.measure.judgement]).toEqual([value, "H", "above"]);
    expect(r.confidence).toBeGreaterThanOrEqual(CONFIDENT);
  });

  it.each([
    // The point lost from a value labs print with decimals: 36.8, 13.0, 85.0, 4.50.
    ["Haematocrit   368   %   36 - 46"],
    ["Haemoglobin   130   g/dL   13.0 - 17.0"],
    ["MCV   850   fL   80 - 100"],
    ["RBC Count   450   mill/cumm   4.50 - 5.50"],
  ])("%s stays doubted", (line) => {
    const r = only([HEAD, line]);
    expect(r.confidence).toBeLessThan(CONFIDENT);
    expect(r.flag).toBeNull();
    expect(r.doubts.join()).toMatch(/decimal point|possible/);
  });
});
