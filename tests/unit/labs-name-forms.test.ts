import { describe, expect, it } from "vitest";
import { CONFIDENT, recogniseLabRows, type LabRow } from "~/domain/records/labs/index";

/*
 * Names in the general forms labs print them, beyond the catalogue's own spelling: letters run
 * together or dotted ("RDWSD", "G.G.T.P"), after a specimen word ("S.CHLORIDES"), in the plural, and
 * one letter off a single catalogue name of seven letters or more ("Globumin"), only ever a guess. A name that means
 * two tests ("RDW") is decided by its unit, or without one by the value's usual interval; a range
 * whose "." groups thousands ("4000 - 10.000") is read as the lab meant it. Fed as a table's lines.
 */
const HEAD = "Test Name                 Result     Units        Bio. Ref. Interval";
const only = (line: string): LabRow => {
  const rows = recogniseLabRows([HEAD, line]).rows;
  expect(rows.length, line).toBe(1);
  return rows[0]!;
};

describe("a name in another general form is the catalogue's", () => {
  it.each([
    ["RDWSD                     50         fl           37 - 54", "RDW-SD", 50],
    ["RDWCV                     15         %            11 - 16", "RDW-CV", 15],
    ["RDW-SD                    44.1       fL           39 - 46", "RDW-SD", 44.1],
    ["G.G.T.P                   28         IU/L         25 - 43", "GGT", 28],
    ["S.CHLORIDES               101        mEq/L        98 - 107", "Chloride", 101],
    ["Sr. Creatinines           0.9        mg/dL        0.6 - 1.2", "Creatinine", 0.9],
  ])("%s", (line, name, value) => {
    const r = only(line);
    expect([r.analyte, r.value]).toEqual([name, value]);
    expect(r.confidence).toBeGreaterThanOrEqual(CONFIDENT);
  });

  it.each([
    ["Mean Corpuscular Hb (MCH)     32.4     pg       27 - 32", "MCH", 32.4],
    // OCR read the l of "Glutamyl" as "!": the abbreviation in brackets still names it.
    ["Gamma Glutamy! Transferase (GGT)  32  U/L       Upto 38", "GGT", 32],
  ])(
    "reads a name by its abbreviation in brackets where the words before it are no catalogue name: %s",
    (line, name, value) => {
      const r = only(line);
      expect([r.analyte, r.value]).toEqual([name, value]);
    },
  );

  it("reads no test from an abbreviation in brackets inside a sentence", () => {
    expect(recogniseLabRows([HEAD, "Sample for glucose (FBS) was taken at 8 am"]).rows).toEqual([]);
  });

  it("reads a name one letter off one catalogue name, never as confident", () => {
    const r = only("Globumin                  3.20       gm/dl        2 - 3.5");
    expect([r.analyte, r.value]).toEqual(["Globulin", 3.2]);
    expect(r.confidence).toBeLessThan(CONFIDENT);
    expect(r.doubts).toContain("its name read as Globulin (one letter differs)");
  });

  it("never guesses a short word: six letters one off a name stay unread", () => {
    expect(recogniseLabRows([HEAD, "Sodiun     140    mmol/L    135 - 145"]).rows).toEqual([]);
  });
});

describe("RDW: the unit decides, or without one the value", () => {
  it.each([
    ["RDW                       16         fl           9 - 17", "RDW-SD"],
    ["RDW                       13.8       %            11.5 - 14.5", "RDW-CV"],
  ])("%s", (line, name) => {
    expect(only(line).analyte).toBe(name);
  });

  it("reads a bare RDW by the interval its value sits by, and says so", () => {
    const cv = only("RDW                       16.5                    11.5 - 14.5");
    expect(cv.analyte).toBe("RDW-CV");
    expect(cv.doubts.join()).toMatch(/no unit printed: read as RDW-CV, whose usual values it sits by/);
    expect(only("RDW                       44.0                    39 - 46").analyte).toBe("RDW-SD");
  });
});

describe("a range's thousands grouped with a dot", () => {
  it("reads 4000 - 10.000 as 4,000 to 10,000, and 4.5 - 11.0 as decimals", () => {
    const wbc = only("Total WBC Count           8000       /cu.mm       4000 - 10.000");
    expect([wbc.range?.low, wbc.range?.high]).toEqual([4000, 10000]);
    expect(wbc.flag).toBeNull();
    const dec = only("Total WBC Count           8.0        10^3/uL      4.5 - 11.0");
    expect([dec.range?.low, dec.range?.high]).toEqual([4.5, 11]);
  });
});

describe("a range in round brackets is the row's range, a remark in them is not", () => {
  it.each([
    ["TSH                       3.07       µIU/mL       (0.27 to 4.20)", 0.27, 4.2],
    ["Serum Cholesterol         137        mg/dL        (Up to 200)", null, 200],
    ["Neutrophils               62         %            (less than 80)", null, 80],
    ["Serum Iron                185                     (50-170 µg/dL)        High", 50, 170],
    ["HDL Cholesterol           58                      (>50 mg/dl)           Normal", 50, null],
  ])("%s", (line, low, high) => {
    const r = only(line);
    expect([r.range?.low, r.range?.high]).toEqual([low, high]);
    expect(r.confidence).toBeGreaterThanOrEqual(CONFIDENT);
  });

  it("passes over a remark in brackets before the range", () => {
    const r = only("HbA1c                     5.9        %   (Calculated from HbA1c)   4.0 - 5.6");
    expect([r.value, r.range?.text]).toEqual([5.9, "4.0 - 5.6"]);
  });
});
