/**
 * How the catalogue states an analyte (decision 0079): its names, unit, possible values, usual
 * reference interval (decision 0106) and the other units labs print it in; a molar unit is given with the substance's molar mass and its
 * factor derived from it (decision 0088).
 */
import { molarFactor } from "./molar";
import type { AltUnit, Analyte, Family, Specimen } from "./types";

/** A molar unit labs print: its factor is derived from the substance's molar mass (g/mol; decision 0088). */
export type MolarUnit = { ucum: string; molarMass: number };

export function analyte(
  loinc: string,
  name: string,
  family: Family,
  unit: string,
  possible: [number, number],
  usual: [number, number] | null,
  decimals: number,
  aliases: string[],
  alt: (AltUnit | MolarUnit)[] = [],
  specimen: Specimen = "blood",
): Analyte {
  const molarMass = alt.find((u): u is MolarUnit => "molarMass" in u)?.molarMass;
  return {
    loinc,
    name,
    family,
    unit,
    possible,
    ...(usual ? { usual } : {}),
    decimals,
    aliases: [name, ...aliases],
    alt: alt.map((u) =>
      "molarMass" in u ? { ucum: u.ucum, factor: molarFactor(u.ucum, unit, u.molarMass) } : u,
    ),
    ...(molarMass ? { molarMass } : {}),
    specimen,
  };
}
