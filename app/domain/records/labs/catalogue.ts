/**
 * The analyte catalogue (decision 0079) and the name index the reader looks names up in.
 * LOINC codes © Regenstrief Institute (see NOTICE).
 */
import { BLOOD_COUNT, GLUCOSE } from "./catalogue-blood";
import { ELECTROLYTES, KIDNEY, LIVER, THYROID } from "./catalogue-chemistry";
import { MORE } from "./catalogue-extra";
import { LIPIDS } from "./catalogue-lipids";
import { INFLAMMATION, OTHER, URINE, VITAMINS_IRON } from "./catalogue-more";
import { SPECIAL } from "./catalogue-special";
import type { Analyte } from "./types";
import { toUcum } from "./units";

export const CATALOGUE: readonly Analyte[] = [
  ...BLOOD_COUNT,
  ...GLUCOSE,
  ...LIPIDS,
  ...LIVER,
  ...KIDNEY,
  ...ELECTROLYTES,
  ...THYROID,
  ...VITAMINS_IRON,
  ...INFLAMMATION,
  ...URINE,
  ...OTHER,
  ...MORE,
  ...SPECIAL,
];

const BY_LOINC = new Map(CATALOGUE.map((a) => [a.loinc, a]));

export function analyteByLoinc(loinc: string): Analyte | undefined {
  return BY_LOINC.get(loinc);
}

/** A name as matched: lower case, letters and digits only, single spaces ("S. Creatinine" → "s creatinine"). */
export function normaliseName(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, " ")
    .trim();
}

/** Normalised alias → the analytes it may name (several when the unit or specimen decides). */
export const NAME_INDEX: ReadonlyMap<string, readonly Analyte[]> = (() => {
  const index = new Map<string, Analyte[]>();
  for (const a of CATALOGUE) {
    for (const alias of a.aliases) {
      const key = normaliseName(alias);
      const list = index.get(key) ?? [];
      if (!list.includes(a)) list.push(a);
      index.set(key, list);
    }
  }
  return index;
})();

/** The longest alias, in words. */
export const LONGEST_ALIAS_WORDS = Math.max(...[...NAME_INDEX.keys()].map((k) => k.split(" ").length));

/** The factor that turns a value printed in `ucum` into the analyte's unit, or null: unit does not fit. */
export function factorFor(a: Analyte, ucum: string): number | null {
  if (ucum === a.unit) return 1;
  return a.alt.find((u) => u.ucum === ucum)?.factor ?? null;
}

/**
 * The UCUM code of a unit as someone typed or a lab printed it for this analyte: UCUM itself
 * ("10*3/uL") or a lab's spelling ("lakhs/cumm", "×10³/µL", "gm%"); null when it is neither a
 * unit we know nor one this analyte is reported in.
 */
export function ucumFor(a: Analyte, printed: string): string | null {
  const ucum = factorFor(a, printed) !== null ? printed : toUcum(printed);
  return ucum !== null && factorFor(a, ucum) !== null ? ucum : null;
}
