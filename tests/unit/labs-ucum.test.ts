import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { CATALOGUE, MOLAR_MASS, molarFactor, toUcum } from "~/domain/records/labs/index";

/*
 * The catalogue's units and factors against NLM's UCUM library (@lhncbc/ucum-lhc, a devDependency;
 * decision 0088). The app converts with the catalogue's own table, which this library checks: every
 * unit a value is stored or printed in is valid UCUM, and every factor — molar ones through the
 * analyte's molar mass — is UCUM's, save the lab conventions UCUM cannot say, listed with why.
 * The library is not used at run time: it knows none of the count units Indian labs print (/cumm,
 * lakhs/cumm, mill/cumm) nor "gm%" (the last test says which), and the table is faster and smaller.
 */

type Converted = { status: "succeeded" | "failed" | "error"; toVal: number | null; msg: string[] };
type Validated = { status: "valid" | "invalid" | "error"; ucumCode: string | null; msg: string[] };
type UcumUtils = {
  validateUnitString(unit: string, suggest?: boolean): Validated;
  convertUnitTo(
    from: string,
    value: number,
    to: string,
    options?: { molecularWeight?: number; charge?: number },
  ): Converted;
};
const ucum = (
  createRequire(import.meta.url)("@lhncbc/ucum-lhc") as { UcumLhcUtils: { getInstance(): UcumUtils } }
).UcumLhcUtils.getInstance();

/** Lab conventions UCUM does not state: `from → to` of an analyte, with the factor labs use. */
const CONVENTIONS: Record<string, { factor: number; why: string }> = {
  "[IU]/L → U/L": {
    factor: 1,
    why: "enzyme activity printed as IU/L or U/L alike; [IU] is arbitrary in UCUM",
  },
  "U/mL → [IU]/mL": { factor: 1, why: "anti-TPO printed as U/mL or IU/mL alike" },
  "% → g/dL": { factor: 1, why: "MCHC printed as '%', meaning g/dL" },
  "[IU]/L → m[IU]/mL": { factor: 1, why: "LH and FSH printed as mIU/mL or IU/L alike" },
  "u[IU]/mL → m[IU]/L": {
    factor: 1,
    why: "equal by their prefixes, but ucum-lhc converts no arbitrary unit, even to itself",
  },
};

/** Univalent ions: one equivalent is one mole (the catalogue's meq/L). */
const CHARGE: Record<string, number> = {
  "2951-2": 1,
  "2823-3": 1,
  "2075-0": 1,
  "1963-8": 1,
  // Total CO2 (as HCO3⁻) and the anion gap, in mEq/L of univalent ions (decision 0089).
  "2028-9": 1,
  "1863-0": 1,
};

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

describe("the catalogue's units against UCUM (ucum-lhc)", () => {
  it("stores and converts only valid UCUM codes", () => {
    // A word result (decision 0089) has no unit.
    const codes = new Set(
      CATALOGUE.filter((a) => a.scale !== "ord").flatMap((a) => [a.unit, ...a.alt.map((u) => u.ucum)]),
    );
    const invalid = [...codes].filter((c) => {
      const v = ucum.validateUnitString(c);
      return v.status !== "valid" || v.ucumCode !== c;
    });
    expect(invalid).toEqual([]);
  });

  it("converts with UCUM's factors: molar units through the analyte's molar mass, equivalents through its charge", () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const a of CATALOGUE)
      for (const alt of a.alt) {
        const pair = `${alt.ucum} → ${a.unit}`;
        const convention = CONVENTIONS[pair];
        const got = ucum.convertUnitTo(alt.ucum, 1, a.unit, {
          ...(a.molarMass ? { molecularWeight: a.molarMass } : {}),
          ...(CHARGE[a.loinc] ? { charge: CHARGE[a.loinc], molecularWeight: 1 } : {}),
        });
        if (convention) {
          // UCUM still cannot say it (if it ever can, this list shrinks), and we use the lab's factor.
          if (got.status === "succeeded")
            wrong.push(`${a.name} ${pair}: UCUM now converts it (${got.toVal})`);
          if (alt.factor !== convention.factor)
            wrong.push(`${a.name} ${pair}: ${alt.factor}, not ${convention.factor}`);
          continue;
        }
        checked++;
        if (got.status !== "succeeded" || !close(got.toVal!, alt.factor))
          wrong.push(`${a.name} ${pair}: ours ${alt.factor}, UCUM ${got.toVal} ${got.msg.join(" ")}`);
      }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(60);
  });

  it("states each molar mass once and derives every molar factor from it", () => {
    const molar = CATALOGUE.filter((a) => a.alt.some((u) => /mol\b|mol\//.test(u.ucum)));
    expect(molar.length).toBeGreaterThanOrEqual(30);
    for (const a of molar) {
      expect(Object.values(MOLAR_MASS), a.name).toContain(a.molarMass);
      for (const u of a.alt.filter((x) => x.ucum.includes("mol") && x.ucum !== "meq/L"))
        expect(u.factor, `${a.name} ${u.ucum}`).toBe(molarFactor(u.ucum, a.unit, a.molarMass!));
    }
    // The figures labs quote: glucose 18.016, creatinine 88.4, T3 nmol/L × 65.1.
    expect(molarFactor("mmol/L", "mg/dL", MOLAR_MASS.glucose)).toBe(18.016);
    expect(1 / molarFactor("umol/L", "mg/dL", MOLAR_MASS.creatinine)).toBeCloseTo(88.4, 1);
    expect(molarFactor("nmol/L", "ng/dL", MOLAR_MASS.t3)).toBeCloseTo(65.1, 1);
    expect(molarFactor("mg/mmol", "mg/g", MOLAR_MASS.creatinine)).toBeCloseTo(8.84, 2);
  });

  it("knows none of the units Indian labs print, so the catalogue's table reads them into UCUM first", () => {
    for (const printed of ["/cumm", "cells/cumm", "lakhs/cumm", "mill/cumm", "gm%", "gm/dl", "x10^3/uL"])
      expect(ucum.validateUnitString(printed).status, printed).toBe("invalid");
    // "g%" and "mg%" it does read as labs mean them (gram percent: g/dL), as the table does.
    expect(ucum.convertUnitTo("g%", 13.5, "g/dL").toVal).toBe(13.5);
    expect(ucum.convertUnitTo("mg%", 98, "mg/dL").toVal).toBe(98);
    // The table's reading, then UCUM's conversion: 2.1 lakhs/cumm is 210 ×10³/µL; 7,800 /cumm is 7.8.
    const via = (printed: string, n: number, to: string) =>
      ucum.convertUnitTo(toUcum(printed)!, n, to).toVal!;
    expect(via("lakhs/cumm", 2.1, "10*3/uL")).toBeCloseTo(210, 9);
    expect(via("/cumm", 7800, "10*3/uL")).toBeCloseTo(7.8, 9);
    expect(via("mill/cumm", 4.5, "10*12/L")).toBeCloseTo(4.5, 9);
    expect(toUcum("gm%")).toBe("g/dL");
    expect(toUcum("g%")).toBe("g/dL");
  });
});
