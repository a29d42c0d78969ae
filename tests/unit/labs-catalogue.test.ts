import { describe, expect, it } from "vitest";
import { CATALOGUE, factorFor, normaliseName, toUcum } from "~/domain/records/labs/index";
import { LOINC_NAMES } from "~/domain/records/labs/loinc-names";

/*
 * The analyte catalogue as data (decision 0079): enough analytes in every family, well-formed
 * LOINC codes (with their check digit), UCUM units the unit table knows, and no alias that would
 * name two analytes the unit and specimen cannot tell apart.
 */

/** LOINC's check digit: mod 10 over the code's digits (LOINC Users' Guide, appendix). */
function loincCheckDigitOk(code: string): boolean {
  const m = /^(\d{1,7})-(\d)$/.exec(code);
  if (!m) return false;
  const digits = m[1]!.split("").map(Number);
  let sum = 0;
  digits.reverse().forEach((d, i) => {
    const v = i % 2 === 0 ? d * 2 : d;
    sum += v > 9 ? v - 9 : v;
  });
  return (10 - (sum % 10)) % 10 === Number(m[2]);
}

describe("the analyte catalogue", () => {
  it("has at least 150 analytes, each code once, in every family the reader must cover", () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CATALOGUE.map((a) => a.loinc)).size).toBe(CATALOGUE.length);
    const families = new Set(CATALOGUE.map((a) => a.family));
    for (const f of [
      "blood-count",
      "glucose",
      "lipids",
      "liver",
      "kidney",
      "electrolytes",
      "thyroid",
      "vitamins-iron",
      "inflammation",
      "urine",
    ])
      expect(families, f).toContain(f);
  });

  it("has LOINC codes whose check digit is right", () => {
    const bad = CATALOGUE.filter((a) => !loincCheckDigitOk(a.loinc)).map((a) => `${a.name} ${a.loinc}`);
    expect(bad).toEqual([]);
  });

  // Decision 0089: the FHIR display is LOINC's own name, and every code was confirmed against a
  // LOINC source (loinc-names.ts says which); a code added without one fails here.
  it("has LOINC's own name for every code, confirmed against a LOINC source", () => {
    const missing = CATALOGUE.filter((a) => !LOINC_NAMES[a.loinc]?.[0]).map((a) => `${a.name} ${a.loinc}`);
    expect(missing).toEqual([]);
    expect(Object.keys(LOINC_NAMES).filter((c) => !CATALOGUE.some((a) => a.loinc === c))).toEqual([]);
    const named = (code: string) => LOINC_NAMES[code]![0];
    expect(named("1521-4")).toBe("Glucose [Mass/volume] in Serum or Plasma --2 hours post meal");
    expect(named("2350-7")).toBe("Glucose [Mass/volume] in Urine");
    expect(named("6690-2")).toBe("Leukocytes [#/volume] in Blood by Automated count");
  });

  it("covers what Indian labs send: absolute counts, both RDWs, P-LCR, GGT, HBsAg measured, the ratios", () => {
    const codes = new Set(CATALOGUE.map((a) => a.loinc));
    const want = {
      absolute: ["751-8", "731-0", "742-7", "711-2", "704-7"],
      rdw: ["788-0", "21000-5"],
      plcr: ["48386-7"],
      ggt: ["2324-2"],
      hbsagQuantitative: ["63557-3"],
      // TC/HDL, LDL/HDL, TG/HDL, urea/creatinine, BUN/creatinine, A/G.
      ratios: ["9830-1", "11054-4", "44733-4", "56997-0", "3097-3", "1759-0"],
    };
    for (const [what, list] of Object.entries(want))
      for (const code of list) expect(codes.has(code), `${what} ${code}`).toBe(true);
  });

  it("normalises to units the unit table knows, and converts the units labs differ in", () => {
    for (const a of CATALOGUE) {
      // A word result (decision 0089) has no possible numbers and no unit.
      if (a.scale === "ord") {
        expect([a.unit, a.alt.length]).toEqual(["", 0]);
        continue;
      }
      expect(a.possible[0]).toBeLessThan(a.possible[1]);
      for (const u of a.alt) expect(u.factor, `${a.name} ${u.ucum}`).toBeGreaterThan(0);
    }
    const by = (loinc: string) => CATALOGUE.find((a) => a.loinc === loinc)!;
    expect(factorFor(by("1558-6"), toUcum("mmol/l")!)! * 5.5).toBeCloseTo(99.1, 1); // glucose
    expect(factorFor(by("2160-0"), toUcum("µmol/L")!)! * 88.4).toBeCloseTo(1, 3); // creatinine, 113.12 g/mol
    expect(factorFor(by("2093-3"), toUcum("mmol/L")!)! * 5.17).toBeCloseTo(199.9, 0); // cholesterol
    expect(factorFor(by("2571-8"), toUcum("mmol/L")!)! * 1.7).toBeCloseTo(150.6, 0); // triglycerides
    expect(factorFor(by("62292-8"), toUcum("nmol/L")!)! * 75).toBeCloseTo(30.05, 1); // vitamin D
    expect(factorFor(by("777-3"), toUcum("lakhs/cumm")!)! * 1.5).toBe(150); // platelets
    expect(factorFor(by("718-7"), toUcum("mg/dL")!)).toBeNull(); // a unit that does not fit
  });

  // Decision 0106: every number has its usual adult interval, inside what is possible, in its own
  // unit, so the reader can tell a misread range or count multiplier from a finding.
  it("gives every numeric analyte its usual reference interval, inside what is possible", () => {
    const bad: string[] = [];
    for (const a of CATALOGUE) {
      if (a.scale === "ord") {
        if (a.usual) bad.push(`${a.name}: a word result with a usual interval`);
        continue;
      }
      const u = a.usual;
      if (!u) bad.push(`${a.name}: none`);
      else if (!(u[0] < u[1]) || u[0] < a.possible[0] || u[1] > a.possible[1])
        bad.push(`${a.name}: [${u.join(", ")}] within [${a.possible.join(", ")}]`);
    }
    expect(bad).toEqual([]);
    const by = (loinc: string) => CATALOGUE.find((a) => a.loinc === loinc)!;
    expect(by("718-7").usual).toEqual([12, 17]); // haemoglobin, g/dL
    expect(by("777-3").usual).toEqual([150, 450]); // platelets, 10*3/uL
    expect(by("1742-6").usual).toEqual([5, 45]); // ALT, U/L
    expect(by("3094-0").usual).toEqual([7, 21]); // BUN, mg/dL
  });

  it("reads the ways labs print units", () => {
    expect(toUcum("gm/dl")).toBe("g/dL");
    expect(toUcum("g%")).toBe("g/dL");
    expect(toUcum("x10^3/µL")).toBe("10*3/uL");
    expect(toUcum("10³/µL")).toBe("10*3/uL");
    expect(toUcum("mill/cumm")).toBe("10*6/uL");
    expect(toUcum("µIU/mL")).toBe("u[IU]/mL");
    expect(toUcum("mm/1st hr")).toBe("mm/h");
    expect(toUcum("mL/min/1.73 m2")).toBe("mL/min/{1.73_m2}");
    expect(toUcum("weeks")).toBeNull();
  });

  // Decision 0106: a count per volume read as multiplier × per-volume, in any spelling and spacing
  // (the unit table keeps only a few count spellings, for nearUcum).
  it.each([
    ["thou/mm3", "10*3/uL"],
    ["Thousand / cu.mm", "10*3/uL"],
    ["x10^3 / cmm", "10*3/uL"],
    ["10³ cells/mm³", "10*3/uL"],
    ["K/cumm", "10*3/uL"],
    ["10e3/mcL", "10*3/uL"],
    ["lak/ cumm", "10*5/uL"],
    ["Lakhs / cu mm", "10*5/uL"],
    ["Lacs/c.mm", "10*5/uL"],
    ["lakh/ mcL", "10*5/uL"],
    ["Millions / cu.mm.", "10*6/uL"],
    ["mil/mm³", "10*6/uL"],
    ["Million cells/µL", "10*6/uL"],
    ["x10^6 / cmm", "10*6/uL"],
    ["cells / c.mm", "/uL"],
    ["cells per cumm", "/uL"],
    ["/ mm3", "/uL"],
    ["Cells/ Cu.mm", "/uL"],
    ["C.mm", "/uL"],
    ["x 10^9 cells / L", "10*9/L"],
    ["10*12 / litre", "10*12/L"],
  ])("reads the count unit %s as %s", (printed, ucum) => {
    expect(toUcum(printed)).toBe(ucum);
  });

  it.each([
    // A litre only for 10^9 or 10^12; a bare microlitre may be U/L; a letter is not a multiplier alone.
    "10^3/L",
    "million/L",
    "mL",
    "UL",
    "M cumm",
    "lakhs",
    "mm/hr",
    "U/L",
    "mmol/L",
  ])("reads %s as no count unit", (printed) => {
    expect(["10*3/uL", "10*5/uL", "10*6/uL", "/uL", "10*9/L", "10*12/L"]).not.toContain(toUcum(printed));
  });

  it("knows the names Indian labs print, including OCR's confusions", () => {
    const names = new Map<string, Set<string>>();
    for (const a of CATALOGUE)
      for (const alias of a.aliases) {
        const k = normaliseName(alias);
        names.set(k, (names.get(k) ?? new Set()).add(a.loinc));
      }
    const named = (printed: string) => [...(names.get(normaliseName(printed)) ?? [])];
    for (const hb of ["Hb", "Haemoglobin", "HGB", "Hemoglobin"]) expect(named(hb)).toEqual(["718-7"]);
    expect(named("S. Creatinine")).toEqual(["2160-0"]);
    expect(named("SGPT")).toEqual(["1742-6"]);
    for (const a1c of ["HbA1c", "Glycated Haemoglobin", "HbAtc"]) expect(named(a1c)).toContain("4548-4");
    // A name shared by two analytes must be told apart by unit (or by specimen, for urine).
    for (const [k, loincs] of names) {
      if (loincs.size < 2) continue;
      const as = CATALOGUE.filter((a) => loincs.has(a.loinc));
      const units = as.map((a) => `${a.specimen}:${a.unit}`);
      const fits = (u: string) =>
        as.filter((a) => factorFor(a, u) !== null && a.specimen === as[0]!.specimen).length;
      for (const a of as) expect(fits(a.unit), `${k} (${units.join(", ")})`).toBeLessThanOrEqual(1);
    }
  });
});
