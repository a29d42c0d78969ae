import { CATALOGUE, localName } from "~/domain/records/labs";
import type { StepAnalyte } from "./NextStepsFields";

/**
 * The lab catalogue as the next steps' test picker offers it (decision 0114): each analyte's LOINC
 * (what is sent), its English name and the expert's own language's, in alphabetical order.
 */
export function stepAnalytes(locale: string): StepAnalyte[] {
  const seen = new Set<string>();
  return CATALOGUE.filter((a) => !seen.has(a.loinc) && seen.add(a.loinc))
    .map((a) => ({
      loinc: a.loinc,
      name: a.name,
      local: locale === "en" ? null : localName(a.loinc, locale),
    }))
    .sort((a, b) => a.name.localeCompare(b.name, "en"));
}
