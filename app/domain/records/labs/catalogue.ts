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

const squash = (key: string) => key.replace(/ /g, "");

/** Aliases with their spaces taken out: "RDWSD", "G.G.T.P" and "RDW SD", "GGTP" are one name. */
const SQUASHED: ReadonlyMap<string, readonly Analyte[]> = (() => {
  const index = new Map<string, Analyte[]>();
  for (const [key, list] of NAME_INDEX) {
    const k = squash(key);
    if (k.length < 4) continue;
    const had = index.get(k) ?? [];
    index.set(k, [...had, ...list.filter((a) => !had.includes(a))]);
  }
  return index;
})();

/** One-word aliases of seven letters or more, each letter in turn blanked: a name one letter off. */
const ONE_OFF: ReadonlyMap<string, readonly Analyte[]> = (() => {
  const index = new Map<string, Analyte[]>();
  for (const [key, list] of NAME_INDEX) {
    if (key.includes(" ") || key.length < 7 || /\d/.test(key)) continue;
    for (let i = 0; i < key.length; i++) {
      const k = `${key.slice(0, i)}?${key.slice(i + 1)}`;
      const had = index.get(k) ?? [];
      index.set(k, [...had, ...list.filter((a) => !had.includes(a))]);
    }
  }
  return index;
})();

/** A specimen word labs print before a name ("S. Chloride", "Sr. Urea", "Serum …"). */
const SPECIMEN_WORD = /^(s|sr|serum|p|plasma)\s+(?=\S{3})/;

export type NameLookup = { analytes: readonly Analyte[]; guessed?: string };

/**
 * The analytes a normalised printed name may mean, or null. As printed first; then in general
 * forms labs print names in: without spaces or dots between its letters ("RDWSD", "G.G.T.P"), after
 * a specimen word ("S. CHLORIDES"), in the plural ("Chlorides"); last, a word one letter off
 * exactly one catalogue name ("Globumin"), which is a guess the row says it made.
 */
export function lookupName(key: string): NameLookup | null {
  const exact = NAME_INDEX.get(key);
  if (exact) return { analytes: exact };
  const bare = key.replace(SPECIMEN_WORD, "");
  for (const k of [bare, bare.replace(/(?<=[a-z]{4})s$/, ""), key]) {
    const found = NAME_INDEX.get(k) ?? SQUASHED.get(squash(k));
    if (found) return { analytes: found };
  }
  if (bare.includes(" ") || bare.length < 7 || /\d/.test(bare)) return null;
  const near = new Set<Analyte>();
  for (let i = 0; i < bare.length; i++)
    for (const a of ONE_OFF.get(`${bare.slice(0, i)}?${bare.slice(i + 1)}`) ?? []) near.add(a);
  const names = new Set([...near].map((a) => a.name));
  if (names.size !== 1) return null;
  const analytes = [...near];
  return { analytes, guessed: `its name read as ${analytes[0]!.name} (one letter differs)` };
}

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
