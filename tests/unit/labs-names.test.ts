import { describe, expect, it } from "vitest";
import {
  analyteByLoinc,
  analyteName,
  CATALOGUE,
  displayUnit,
  namedLoincs,
  toUcum,
} from "~/domain/records/labs";

/** The patient's names for tests and the units people read (decision 0084). */
describe("lab names and units as people read them", () => {
  it("every translated name is of an analyte in the catalogue, in all three languages alike", () => {
    const hi = namedLoincs("hi");
    expect(hi.length).toBeGreaterThanOrEqual(30);
    for (const locale of ["bn", "ta"]) expect(namedLoincs(locale).sort()).toEqual([...hi].sort());
    for (const loinc of hi) expect(analyteByLoinc(loinc), loinc).toBeDefined();
  });

  it("says her name for the test, then the English one her report prints", () => {
    expect(analyteName("718-7", "Haemoglobin", "hi")).toBe("हीमोग्लोबिन (Haemoglobin)");
    expect(analyteName("718-7", "Haemoglobin", "en")).toBe("Haemoglobin");
    expect(analyteName("2857-1", "PSA total", "ta")).toBe("PSA total");
  });

  it("every unit of the catalogue shown to people reads back as the same UCUM unit", () => {
    for (const a of CATALOGUE)
      for (const ucum of [a.unit, ...a.alt.map((u) => u.ucum)]) {
        const shown = displayUnit(ucum);
        if (shown === "") continue; // unitless: a ratio, pH, INR
        expect(shown === ucum || toUcum(shown) === ucum, `${a.name}: ${ucum} shown as ${shown}`).toBe(true);
      }
    expect(displayUnit("10*3/uL")).toBe("×10³/µL");
  });
});
