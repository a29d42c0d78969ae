import { describe, expect, it } from "vitest";
import {
  CONFIDENT,
  looksLikeLabReport,
  recogniseLabRows,
  unjudged,
  type LabRow,
} from "~/domain/records/labs/index";

/*
 * The row recogniser on text as a PDF's text layer or an OCR pass gives it (decision 0079): each
 * analyte family, the four layouts of the corpus, lines that must not become values, and texts
 * that are not lab reports at all.
 */

const read = (lines: string[]) => recogniseLabRows(lines).rows;
const one = (line: string, section: string[] = []): LabRow | undefined => {
  const rows = read([...section, line]);
  expect(rows.length, line).toBeLessThanOrEqual(1);
  return rows[0];
};
const brief = (r: LabRow | undefined) => r && [r.loinc, r.value, r.unit, r.range?.text ?? null, r.flag];

describe("each analyte family", () => {
  it.each([
    ["Haemoglobin          10.2     g/dL     13.0 - 17.0", ["718-7", 10.2, "g/dL", "13.0 - 17.0", "L"]],
    ["HGB 14.1 gm/dl 13-17", ["718-7", 14.1, "g/dL", "13-17", null]],
    [
      "Total Leucocyte Count  7,800  /cumm  4,000 - 11,000",
      ["6690-2", 7.8, "10*3/uL", "4,000 - 11,000", null],
    ],
    [
      "Platelet Count  1,20,000  /cumm  1,50,000 - 4,50,000",
      ["777-3", 120, "10*3/uL", "1,50,000 - 4,50,000", "L"],
    ],
    ["Platelet Count  1.2  lakhs/cumm  1.5 - 4.5", ["777-3", 120, "10*3/uL", "1.5 - 4.5", "L"]],
    ["WBC 4.5 x10^3/uL 4.0 - 11.0", ["6690-2", 4.5, "10*3/uL", "4.0 - 11.0", null]],
    ["RBC Count 4.52 mill/cumm 4.5 - 5.5", ["789-8", 4.52, "10*6/uL", "4.5 - 5.5", null]],
    ["Neutrophils 62 % 40 - 80", ["770-8", 62, "%", "40 - 80", null]],
    ["Absolute Neutrophil Count 4200 cells/cumm 2000 - 7000", ["751-8", 4.2, "10*3/uL", "2000 - 7000", null]],
    ["ESR 28 mm/1st hr 0 - 20", ["30341-2", 28, "mm/h", "0 - 20", "H"]],
    ["Glucose Fasting (GOD-POD) 98 mg/dL 70-110", ["1558-6", 98, "mg/dL", "70-110", null]],
    ["Fasting Blood Sugar 7.2 mmol/L 3.9 - 6.1", ["1558-6", 129.7152, "mg/dL", "3.9 - 6.1", "H"]],
    ["Post Prandial Blood Sugar 182 mg/dl 70 - 140", ["1521-4", 182, "mg/dL", "70 - 140", "H"]],
    ["Random Blood Sugar 110 mg/dL 70 - 140", ["2345-7", 110, "mg/dL", "70 - 140", null]],
    ["HbA1c 6.8 % 4.0 - 5.6", ["4548-4", 6.8, "%", "4.0 - 5.6", "H"]],
    ["Glycated Haemoglobin 51 mmol/mol < 39", ["59261-8", 51, "mmol/mol", "< 39", "H"]],
    ["Total Cholesterol  210  mg/dL  < 200", ["2093-3", 210, "mg/dL", "< 200", "H"]],
    ["HDL Cholesterol 38 mg/dL > 40", ["2085-9", 38, "mg/dL", "> 40", "L"]],
    ["Triglycerides 1.7 mmol/L < 1.7", ["2571-8", 150.569, "mg/dL", "< 1.7", null]],
    ["SGPT (ALT) 56 U/L 0 - 40", ["1742-6", 56, "U/L", "0 - 40", "H"]],
    ["Alanine Aminotransferase (SGPT)  32  U/L  0 - 40", ["1742-6", 32, "U/L", "0 - 40", null]],
    ["Bilirubin Total 1.1 mg/dL 0.2 - 1.2", ["1975-2", 1.1, "mg/dL", "0.2 - 1.2", null]],
    ["Albumin 4.2 g/dL 3.5 - 5.2", ["1751-7", 4.2, "g/dL", "3.5 - 5.2", null]],
    ["S. Creatinine 1.4 mg/dL 0.7 - 1.3", ["2160-0", 1.4, "mg/dL", "0.7 - 1.3", "H"]],
    ["Serum Creatinine 88 µmol/L 62 - 106", ["2160-0", 0.995456, "mg/dL", "62 - 106", null]],
    ["Blood Urea 32 mg/dL 15 - 45", ["3091-6", 32, "mg/dL", "15 - 45", null]],
    ["Uric Acid 7.9 mg/dL 3.5 - 7.2", ["3084-1", 7.9, "mg/dL", "3.5 - 7.2", "H"]],
    ["Sodium 138 mEq/L 135 - 145", ["2951-2", 138, "mmol/L", "135 - 145", null]],
    ["Potassium 5.6 mmol/L 3.5 - 5.1", ["2823-3", 5.6, "mmol/L", "3.5 - 5.1", "H"]],
    ["TSH 3.2 µIU/mL 0.35 - 5.50", ["3016-3", 3.2, "m[IU]/L", "0.35 - 5.50", null]],
    ["Free T4 1.1 ng/dL 0.8 - 1.8", ["3024-7", 1.1, "ng/dL", "0.8 - 1.8", null]],
    ["Vitamin D (25-OH) 14.2 ng/mL 30 - 100", ["62292-8", 14.2, "ng/mL", "30 - 100", "L"]],
    ["Vitamin B12 180 pg/mL 211 - 911", ["2132-9", 180, "pg/mL", "211 - 911", "L"]],
    ["CRP 12.4 mg/L < 6", ["1988-5", 12.4, "mg/L", "< 6", "H"]],
  ])("%s", (line, expected) => {
    const row = one(line);
    expect(brief(row)).toEqual(expected);
    expect(row!.confidence).toBeGreaterThanOrEqual(CONFIDENT);
  });

  it("reads the urine routine under its heading, where a bare 'Glucose' or 'WBC' is the urine's", () => {
    const rows = read([
      "URINE ROUTINE EXAMINATION",
      "pH            6.0            4.6 - 8.0",
      "Specific Gravity   1.015     1.005 - 1.030",
      "Glucose       Nil            Nil",
      "Pus Cells     2-4   /hpf     0 - 5",
      "RBC           3     /hpf     0 - 2",
    ]);
    expect(rows.map(brief)).toEqual([
      ["5803-2", 6, "[pH]", "4.6 - 8.0", null],
      ["5811-5", 1.015, "1", "1.005 - 1.030", null],
      // A word result, kept as printed (decision 0089): never a number, never judged.
      ["25428-4", NaN, "", "Nil", null],
      ["13945-1", 3, "/[HPF]", "0 - 2", "H"],
    ]);
    expect(rows[2]!.printedValue).toBe("Nil");
  });

  it("reads a urine test outside the urine section only when its name says urine", () => {
    const rows = read([
      "BIOCHEMISTRY",
      "Urine Microalbumin   25   mg/L   < 30",
      "Sugar                98   mg/dL  70 - 140",
      "Specific Gravity     1.015       1.005 - 1.030",
    ]);
    expect(rows.map(brief)).toEqual([["14957-5", 25, "mg/L", "< 30", null]]);
  });

  it("keeps the printed flag, and doubts a row whose flag and range disagree", () => {
    const h = one("Haemoglobin 10.2 L g/dL 13.0 - 17.0")!;
    expect([h.flag, h.flagSource, h.confidence >= CONFIDENT]).toEqual(["L", "printed", true]);
    for (const marked of [
      "Haemoglobin 10.2L g/dL 13.0 - 17.0",
      "Haemoglobin 10.2(L) g/dL 13.0 - 17.0",
      "Haemoglobin 10.2* L g/dL 13.0 - 17.0",
    ])
      expect(brief(one(marked)), marked).toEqual(["718-7", 10.2, "g/dL", "13.0 - 17.0", "L"]);
    const bad = one("Haemoglobin 10.2 H g/dL 13.0 - 17.0")!;
    expect(bad.confidence).toBeLessThan(CONFIDENT);
  });

  it("never judges against the report's own flag: a flag that disagrees leaves the range unjudged", () => {
    // The flag says the other way, or says high or low beside a value the range has within it:
    // one of value, range and flag was misread, which one is unknown.
    for (const line of [
      "Haemoglobin 10.2 H g/dL 13.0 - 17.0",
      "T4 total 25 L µg/dL 5.1 - 14.1",
      "Haemoglobin 14.2 H g/dL 13.0 - 17.0",
      "Haemoglobin 14.2 L g/dL 13.0 - 17.0",
    ]) {
      const r = one(line)!;
      expect([r.measure.judgement, r.flag, r.flagSource, r.range?.text], line).toEqual([
        "unknown",
        line.includes(" H ") ? "H" : "L",
        "printed",
        line.replace(/^.*dL /, ""),
      ]);
      expect(r.doubts, line).toContain("the printed flag disagrees with the printed range");
    }
    // A number doubted after the fact (the OCR unsure of its digits) is not judged either: the
    // range stays as printed, only a flag the report printed is kept.
    const computed = unjudged(one("Haemoglobin 10.2 g/dL 13.0 - 17.0")!);
    expect([computed.measure.judgement, computed.flag, computed.flagSource, computed.range?.text]).toEqual([
      "unknown",
      null,
      null,
      "13.0 - 17.0",
    ]);
    const printed = unjudged(one("Haemoglobin 10.2 L g/dL 13.0 - 17.0")!);
    expect([printed.measure.judgement, printed.flag, printed.flagSource]).toEqual([
      "unknown",
      "L",
      "printed",
    ]);
    // A flag that agrees is judged as ever.
    for (const [line, said] of [
      ["Haemoglobin 10.2 L g/dL 13.0 - 17.0", "below"],
      ["T4 total 25 H µg/dL 5.1 - 14.1", "above"],
    ])
      expect(one(line)!.measure.judgement, line).toBe(said);
  });
});

describe("the four layouts", () => {
  it("one table per page", () => {
    const rows = read([
      "CITY DIAGNOSTICS — DEPARTMENT OF BIOCHEMISTRY           Page 1 of 2",
      "Patient: Asha Devi    Age/Sex: 42 Y / F    Ref. By: Dr. R. Mehta",
      "Collected: 12/03/2024 08:30    Reported: 12/03/2024 14:10",
      "Test Name                 Result     Units      Bio. Ref. Interval",
      "LIPID PROFILE",
      "Total Cholesterol         212        mg/dL      < 200",
      "Triglycerides             180        mg/dL      < 150",
      "HDL Cholesterol           41         mg/dL      > 40",
      "LDL Cholesterol           135        mg/dL      < 100",
      "VLDL Cholesterol          36         mg/dL      5 - 40",
      "Page 2 of 2",
    ]);
    expect(rows.map((r) => [r.loinc, r.value, r.lineIndex])).toEqual([
      ["2093-3", 212, 5],
      ["2571-8", 180, 6],
      ["2085-9", 41, 7],
      ["13457-7", 135, 8],
      ["13458-5", 36, 9],
    ]);
  });

  it("two columns side by side", () => {
    const rows = read([
      "Haemoglobin   9.8  g/dL  12.0 - 15.5        SGPT (ALT)   32  U/L   0 - 35",
      "PCV           31   %     36 - 46            SGOT (AST)   28  U/L   0 - 35",
      "MCV           72   fL    80 - 100           Alkaline Phosphatase  96  U/L  30 - 120",
    ]);
    expect(rows.map((r) => [r.loinc, r.value, r.flag])).toEqual([
      ["718-7", 9.8, "L"],
      ["1742-6", 32, null],
      ["4544-3", 31, "L"],
      ["1920-8", 28, null],
      ["787-2", 72, "L"],
      ["6768-6", 96, null],
    ]);
  });

  it("a flag in its own column (before or after the unit)", () => {
    const rows = read([
      "Investigation        Observed Value   Flag   Unit     Reference Range",
      "Glucose Fasting      126              H      mg/dL    70 - 100",
      "HbA1c                6.9              High   %        < 5.7",
      "Vitamin D            18.5             Low    ng/mL    30 - 100",
      "TSH                  2.10                    uIU/mL   0.27 - 4.20",
    ]);
    expect(rows.map((r) => [r.loinc, r.value, r.flag, r.flagSource])).toEqual([
      ["1558-6", 126, "H", "printed"],
      ["4548-4", 6.9, "H", "printed"],
      ["62292-8", 18.5, "L", "printed"],
      ["3016-3", 2.1, null, null],
    ]);
  });

  it("a Hindi-English bilingual header and names", () => {
    const rows = read([
      "जाँच / Test           परिणाम / Result    इकाई / Unit    संदर्भ सीमा / Reference Range",
      "रक्त शर्करा (खाली पेट) / Glucose Fasting    104    mg/dL    70 - 100",
      "हीमोग्लोबिन / Haemoglobin    11.4    g/dL    12.0 - 15.5",
      "क्रिएटिनिन / S. Creatinine    0.8    mg/dL    0.6 - 1.1",
    ]);
    expect(rows.map((r) => [r.loinc, r.value, r.flag])).toEqual([
      ["1558-6", 104, "H"],
      ["718-7", 11.4, "L"],
      ["2160-0", 0.8, null],
    ]);
  });
});

describe("lines that must not become values", () => {
  it.each([
    ["a date after the name", "Glucose Fasting collected on 12/03/2024"],
    ["a time", "Haemoglobin 10:30"],
    ["a range where the value should be", "Haemoglobin 13.0 - 17.0 g/dL"],
    ["a phone number", "Ph: 9876543210"],
    ["a sentence", "HbA1c is recommended every 3 months"],
    ["a number followed by a word", "TSH repeat after 6 weeks"],
    ["a unit that does not fit", "Haemoglobin 10.2 mg/dL 13.0 - 17.0"],
    ["two numbers for one value", "Haemoglobin 10.2 11.5 g/dL 13.0 - 17.0"],
    ["a page number", "Page 2 of 3"],
    ["a word result for a test that prints a number", "Haemoglobin Nil"],
  ])("%s", (_why, line) => {
    expect(read([line])).toEqual([]);
  });

  // Decision 0089: doubt is the value's own. A number that cannot be the result, or fits its printed
  // range only with its point moved, is kept for the expert to correct — never vouched for.
  it.each([
    ["a dropped decimal point", "Haemoglobin 102 g/dL 13.0 - 17.0"],
    ["a leading zero for a lost point", "Creatinine 07 mg/dL 0.7 - 1.3"],
    ["a point moved in a photo (36.8 read as 368)", "Haematocrit 368 % 36 - 46"],
  ])("keeps %s, in doubt", (_why, line) => {
    const r = one(line)!;
    expect(r.confidence).toBeLessThan(0.6);
    expect(r.doubts.join()).toMatch(/point|possible/);
  });

  it("reads leading zeros as labs print differential counts, without doubt", () => {
    const rows = read([
      "Eosinophils   03   %   01 - 06",
      "Basophils   00   %   00 - 02",
      "Monocytes   07   %   02 - 10",
    ]);
    expect(rows.map((r) => [r.printedValue, r.value, r.range?.text, r.confidence])).toEqual([
      ["03", 3, "01 - 06", 0.97],
      ["00", 0, "00 - 02", 0.97],
      ["07", 7, "02 - 10", 0.97],
    ]);
  });

  it("keeps a value whose printed range lost its decimal points, but without the range or confidence", () => {
    const r = one("Creatinine 0.9 mg/dL 07-13")!;
    expect([r.value, r.range, r.flag]).toEqual([0.9, null, null]);
    expect(r.confidence).toBeLessThan(CONFIDENT);
  });

  // Decision 0122: a part of a range whose bounds OCR lost leaves its label with nothing after it.
  it.each([
    ["a label straight before the next part's", "Creatinine 0.61 mg/dL Male: Female: 0.55-1.02", "male"],
    ["a label at the range's end", "GGT 36 U/L F : <38 U/L M:", "female"],
  ])("keeps a value whose range lost a part (%s), but without the range or confidence", (_why, line, sex) => {
    const [r] = recogniseLabRows([line], { sex: sex as "male" | "female", age: 40 }).rows;
    expect([r!.range, r!.flag]).toEqual([null, null]);
    expect(r!.confidence).toBeLessThan(CONFIDENT);
    expect(r!.doubts.join()).toMatch(/did not read cleanly/);
  });

  it("still reads a range whose parts each have their bounds, the part that applies chosen", () => {
    const [r] = recogniseLabRows(["Creatinine 0.61 mg/dL Male: 0.70-1.30 Female: 0.55-1.02"], {
      sex: "female",
      age: 40,
    }).rows;
    expect([r!.range?.text, r!.range?.applies, r!.confidence >= CONFIDENT]).toEqual([
      "Male: 0.70-1.30 Female: 0.55-1.02",
      "Female: 0.55-1.02",
      true,
    ]);
  });

  it("never vouches for a value without its unit", () => {
    const r = one("Haemoglobin 10.2 13.0 - 17.0");
    expect(r && r.confidence).toBeLessThan(CONFIDENT);
  });
});

describe("is this a lab report at all", () => {
  it("says yes to a lab report", () => {
    expect(
      looksLikeLabReport(["Test Result Unit Reference Range", "Haemoglobin 10.2 g/dL 13.0 - 17.0"]).isLab,
    ).toBe(true);
  });

  it.each([
    [
      "an X-ray report",
      [
        "X-RAY CHEST PA VIEW",
        "Findings: The lung fields are clear.",
        "Cardiac size is normal.",
        "Impression: No active lung lesion.",
      ],
    ],
    [
      "a letter that mentions a value",
      [
        "Dear Dr. Rao,",
        "Her haemoglobin was 9.8 g/dL last month and she feels tired.",
        "Sincerely, Dr. Mehta",
      ],
    ],
    [
      "an ECG",
      ["ECG REPORT", "Heart rate 78 bpm, PR interval 160 ms, QRS 90 ms", "Impression: normal sinus rhythm"],
    ],
    ["an empty page", [""]],
  ])("says no to %s", (_what, lines) => {
    expect(looksLikeLabReport(lines).isLab).toBe(false);
  });
});
