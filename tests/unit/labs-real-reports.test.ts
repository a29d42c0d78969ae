import { describe, expect, it } from "vitest";
import {
  CONFIDENT,
  looksLikeLabReport,
  recogniseLabRows,
  sampleDate,
  type LabRow,
  type Patient,
} from "~/domain/records/labs/index";

/*
 * What real Indian lab reports print, line by line (decision 0089): words and flags between value
 * and range, the unit spellings labs use, ratios, ranges in words and in parts kept whole with the
 * part for the patient's recorded sex and age, a range's parts on the lines below, a value on the
 * line below its name, watermark capitals and Hindi words in rows, notes whose numbers are not
 * results, word results, doubt that is each value's own, and the sample's date in the header.
 */

const woman: Patient = { sex: "female", age: 41 };
const man: Patient = { sex: "male", age: 58 };
const rowsOf = (lines: string[], who?: Patient) => recogniseLabRows(lines, who).rows;
const brief = (r: LabRow) => [r.analyte, r.printedValue, r.printedUnit, r.range?.text ?? null];

describe("words and flags beside the value", () => {
  it.each([
    ["Haemoglobin   13.5   Normal   g/dL   13.0 - 17.0", ["Haemoglobin", "13.5", "g/dL", "13.0 - 17.0"]],
    [
      "Total Cholesterol   212   Borderline   mg/dL   Desirable: < 200",
      ["Total cholesterol", "212", "mg/dL", "Desirable: < 200"],
    ],
    ["Potassium   6.8 *   Critical   mEq/L   3.5 - 5.1", ["Potassium", "6.8", "mEq/L", "3.5 - 5.1"]],
    ["Fasting Blood Sugar   H 126   mg/dL   70 - 100", ["Glucose fasting", "126", "mg/dL", "70 - 100"]],
    ["Sodium   132 ↓   mEq/L   136 - 145", ["Sodium", "132", "mEq/L", "136 - 145"]],
    ["S.G.P.T.   58 (H)   IU/L   [5 - 40]", ["ALT (SGPT)", "58", "IU/L", "5 - 40"]],
  ])("%s", (line, want) => {
    const [r] = rowsOf([line]);
    expect(brief(r!)).toEqual(want);
    expect(r!.confidence).toBeGreaterThanOrEqual(CONFIDENT);
  });
});

describe("units as Indian labs print them", () => {
  it.each([
    ["RBC Count   4.12   million/cu.mm.   3.8 - 4.8", "10*6/uL"],
    ["Platelet Count   2.1   lak/ cumm   1.5 - 4.1", "10*5/uL"],
    ["Platelet Count   1,85,000   cells/mcL   1,50,000 - 4,10,000", "/uL"],
    ["TLC   9,200   /cu.mm   4,000 - 11,000", "/uL"],
    ["Total Leucocyte Count   7800   cumm   4000 - 11000", "/uL"],
    ["Glucose Fasting   98   mg / dl   70 - 110", "mg/dL"],
    ["SGOT   38   U/I   Up to 40", "U/L"],
    ["Total Protein   6.9   gm%   6.0 - 8.0", "g/dL"],
  ])("%s", (line, ucum) => {
    const [r] = rowsOf([line]);
    expect(r?.printedUcum).toBe(ucum);
    expect(r!.confidence).toBeGreaterThanOrEqual(CONFIDENT);
  });

  it("never reads a spaced 'mg / dl' as magnesium", () => {
    expect(rowsOf(["Triglycerides   142   mg / dl   0 - 150"]).map((r) => r.analyte)).toEqual([
      "Triglycerides",
    ]);
  });
});

describe("ratios as analytes of their own", () => {
  it.each([
    ["Total Cholesterol / HDL   3.27   < 4.5", "Total cholesterol/HDL ratio"],
    ["Cholesterol / HDL   3.88   0.0 - 5.0", "Total cholesterol/HDL ratio"],
    ["LDL / HDL   2.28   0.0 - 3.5", "LDL/HDL ratio"],
    ["TG / HDL Ratio   4.00   < 3.0", "Triglycerides/HDL ratio"],
    ["Urea / Creatinine Ratio   31.5   20 - 35", "Urea/creatinine ratio"],
    ["BUN / Creatinine Ratio   14.7   10 - 20", "BUN/creatinine ratio"],
    ["A/G Ratio   1.48   1.0 - 2.0", "Albumin/globulin ratio"],
  ])("%s", (line, analyte) => {
    expect(rowsOf([line]).map((r) => r.analyte)).toEqual([analyte]);
  });

  it("drops a ratio it does not know rather than give the second test's value", () => {
    expect(rowsOf(["HDL / Apo A1   0.31   0.2 - 0.5"])).toEqual([]);
  });
});

describe("ranges kept as printed", () => {
  it.each([
    ["Up to 41", null, 41],
    ["Upto 130", null, 130],
    ["Less than 150", null, 150],
    ["More than 40", 40, null],
    ["< 200", null, 200],
    ["> 90", 90, null],
    ["Desirable: < 200", null, 200],
  ])("%s", (range, low, high) => {
    const [r] = rowsOf([`Triglycerides   148   mg/dL   ${range}`]);
    expect([r!.range?.text, r!.range?.low, r!.range?.high]).toEqual([range, low, high]);
  });

  it("keeps a range for men and women whole, and judges against her part", () => {
    const line = "Haemoglobin   12.6   g/dL   M: 13.0 - 17.0 F: 12.0 - 15.5";
    const [forHer] = rowsOf([line], woman);
    expect(forHer!.range).toMatchObject({
      text: "M: 13.0 - 17.0 F: 12.0 - 15.5",
      low: 12,
      high: 15.5,
      applies: "F: 12.0 - 15.5",
    });
    expect(forHer!.measure.judgement).toBe("within");
    const [forHim] = rowsOf([line], man);
    expect([forHim!.range?.applies, forHim!.measure.judgement]).toEqual(["M: 13.0 - 17.0", "below"]);
  });

  it("chooses no part, and judges nothing, when her sex is not recorded — and says so", () => {
    const [r] = rowsOf(["Creatinine   0.9   mg/dL   M: 0.7 - 1.3 F: 0.6 - 1.1"], { sex: null, age: null });
    expect([r!.range?.text, r!.range?.applies, r!.measure.judgement]).toEqual([
      "M: 0.7 - 1.3 F: 0.6 - 1.1",
      null,
      "unknown",
    ]);
    expect(r!.doubts.join()).toMatch(/could not be chosen/);
    expect(r!.confidence).toBeGreaterThanOrEqual(CONFIDENT);
  });

  it("joins a range's parts printed on the lines below", () => {
    const rows = rowsOf(
      [
        "Serum Creatinine   1.42 H   mg/dL   Male : 0.70 - 1.30",
        "Female : 0.55 - 1.02",
        "Serum Uric Acid   6.8   mg/dL   Male : 3.5 - 7.2",
        "Female : 2.6 - 6.0",
      ],
      man,
    );
    expect(rows.map((r) => [r.range?.text, r.measure.judgement])).toEqual([
      ["Male : 0.70 - 1.30 Female : 0.55 - 1.02", "above"],
      ["Male : 3.5 - 7.2 Female : 2.6 - 6.0", "within"],
    ]);
  });

  it("chooses by age: adults and children, and age bands", () => {
    const child: Patient = { sex: "male", age: 9 };
    const rows = rowsOf(
      [
        "Alkaline Phosphatase   312   U/L   Adults: 40 - 129",
        "Children: 100 - 400",
        "Phosphorus   5.1   mg/dL   1 - 12 Yrs: 4.0 - 7.0",
        "> 12 Yrs: 2.5 - 4.5",
      ],
      child,
    );
    expect(rows.map((r) => [r.range?.applies, r.measure.judgement])).toEqual([
      ["Children: 100 - 400", "within"],
      ["1 - 12 Yrs: 4.0 - 7.0", "within"],
    ]);
    // On a band's edge (a year of birth may be a year out), no band is chosen.
    const [edge] = rowsOf(["Phosphorus   5.1   mg/dL   1 - 12 Yrs: 4.0 - 7.0 > 12 Yrs: 2.5 - 4.5"], {
      sex: "male",
      age: 12,
    });
    expect(edge!.range?.applies).toBeNull();
  });

  it("judges a risk table against its reference part", () => {
    const [r] = rowsOf(
      [
        "Vitamin D (25-OH)   24.1   ng/mL   Deficiency: < 20",
        "Insufficiency: 20 - 30",
        "Sufficiency: 30 - 100",
      ],
      woman,
    );
    expect([r!.range?.applies, r!.measure.judgement]).toEqual(["Sufficiency: 30 - 100", "below"]);
  });
});

describe("the page around the rows", () => {
  it("reads a value printed on the line below its name", () => {
    const rows = rowsOf([
      "Glycosylated Haemoglobin (HbA1c), by HPLC",
      "5.9 H   %   4.0 - 5.6",
      "Mean Plasma Glucose (Calculated from HbA1c)",
      "123   mg/dL",
    ]);
    expect(rows.map((r) => [r.analyte, r.printedValue, r.lineIndex])).toEqual([
      ["HbA1c", "5.9", 1],
      ["Estimated average glucose", "123", 3],
    ]);
  });

  it("passes over a watermark's capitals and Hindi words inside rows", () => {
    const rows = rowsOf([
      "Blood Urea   32.1   mg/dL T 17 - I 43",
      "Uric Acid   D I A 7.9 H   mg/dL   3.5 - 7.2",
      "हीमोग्लोबिन / Haemoglobin   11.2 L   gm/dl   12.0 - 15.0",
      "Haemoglobin / हीमोग्लोबिन   11.2 L   gm/dl   12.0 - 15.0",
    ]);
    expect(rows.map((r) => [r.printedValue, r.range?.text, r.confidence >= CONFIDENT])).toEqual([
      ["32.1", "17 - 43", true],
      ["7.9", "3.5 - 7.2", true],
      ["11.2", "12.0 - 15.0", true],
      ["11.2", "12.0 - 15.0", true],
    ]);
  });

  it("takes no result from a note or an interpretation table", () => {
    const { rows } = recogniseLabRows([
      "HbA1c   6.1   %   4.0 - 5.6",
      "Interpretation (as per ADA guidelines):",
      "HbA1c 5.7 - 6.4 % indicates increased risk; 6.5 % or more indicates diabetes.",
      "Fasting Blood Sugar     Normal  70 - 100     Impaired  100 - 125",
      "Note: Post Prandial Blood Sugar above 200 mg/dL on two occasions suggests diabetes.",
      "* HbA1c 5.8 % repeated on request",
    ]);
    expect(rows.map((r) => [r.analyte, r.printedValue])).toEqual([["HbA1c", "6.1"]]);
  });

  it("keeps word results as printed, never as numbers", () => {
    const rows = rowsOf([
      "SEROLOGY",
      "HBsAg   Non Reactive   Non Reactive",
      "HIV I & II Antibodies   Non Reactive   Non Reactive",
      "VDRL   Negative   Negative",
      "HBsAg Quantitative   0.02   IU/mL   < 0.05",
    ]);
    expect(rows.map((r) => [r.analyte, r.printedValue, r.range?.text, r.word ?? false])).toEqual([
      ["HBsAg", "Non Reactive", "Non Reactive", true],
      ["HIV 1 & 2 antibodies", "Non Reactive", "Non Reactive", true],
      ["VDRL", "Negative", "Negative", true],
      ["HBsAg quantitative", "0.02", "< 0.05", false],
    ]);
    // Each the same as its printed reference: within it, as text, never a number (decision 0098).
    expect(rows.slice(0, 3).map((r) => [r.measure.kind, r.measure.judgement])).toEqual([
      ["text", "within"],
      ["text", "within"],
      ["text", "within"],
    ]);
  });
});

describe("doubt is each value's own", () => {
  it("does not doubt the other values of a page for one doubtful number", () => {
    const rows = rowsOf([
      "Creatinine   07   mg/dL   0.7 - 1.3",
      "Eosinophils   03   %   01 - 06",
      "Haemoglobin   13.5   g/dL   13.0 - 17.0",
    ]);
    expect(rows.map((r) => r.confidence >= CONFIDENT)).toEqual([false, true, true]);
  });
});

describe("is this a lab report", () => {
  it("says yes as soon as one row reads as a result", () => {
    expect(looksLikeLabReport(["Sanjeevani Hospital", "Haemoglobin   11.2   g/dL   12.0 - 15.0"]).isLab).toBe(
      true,
    );
    expect(looksLikeLabReport(["HBsAg   Non Reactive   Non Reactive"]).isLab).toBe(true);
    expect(
      looksLikeLabReport([
        "जाँच / Test    परिणाम / Result    इकाई / Unit    संदर्भ सीमा / Bio. Ref. Interval",
        "हीमोग्लोबिन / Haemoglobin   11.2 L   gm/dl   12.0 - 15.0",
      ]).isLab,
    ).toBe(true);
  });
});

describe("the sample's date", () => {
  it.each([
    [["Collected On : 12/03/2025 08:42 AM", "Reported On : 13/03/2025 04:15 PM"], "2025-03-12"],
    [
      ["Registered : 11-Mar-2025", "Sample Collected : 12-Mar-2025 09:10", "Report Date : 13-Mar-2025"],
      "2025-03-12",
    ],
    [["Date of Collection : 12.03.2025"], "2025-03-12"],
    [["Sample Date : 2025-03-12"], "2025-03-12"],
    [["Received On : 12 Mar 2025 10:05", "Reported On : 13 Mar 2025 18:30"], "2025-03-12"],
    [["Report Date : Mar 12, 2025"], "2025-03-12"],
    [
      ["Age / Sex : 54 Y / F   DOB : 14/05/1971", "Coll. Date : 12/03/2025", "Printed On : 02/01/2026"],
      "2025-03-12",
    ],
    [["Reported : 03/25/2025"], "2025-03-25"],
    [["Haemoglobin 13.5 g/dL 13.0 - 17.0"], null],
  ])("%j", (lines, want) => {
    expect(sampleDate(lines)).toBe(want);
  });
});
