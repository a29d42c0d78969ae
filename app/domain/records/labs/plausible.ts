/**
 * Plausibility from the catalogue (decision 0106): where a value and its printed range belong,
 * said by the analyte's possible span and its usual reference interval, both in its own unit.
 * Never a judgement (only the printed range judges a value): it says when a reading cannot be
 * right — a range far from any this test is printed with, a count read with the wrong multiplier
 * (per cumm printed as lakhs) — so the row is doubted, or read with the one multiplier that fits.
 */
import { factorFor } from "./catalogue";
import type { Analyte } from "./types";

/** How many cells per microlitre one of each count unit is. */
const PER_UL: Record<string, number> = {
  "/uL": 1,
  "10*3/uL": 1e3,
  "10*9/L": 1e3,
  "10*5/uL": 1e5,
  "10*6/uL": 1e6,
  "10*12/L": 1e6,
};

/** How a count read in each unit is said in a doubt. */
const SAID: Record<string, string> = {
  "/uL": "per cumm",
  "10*3/uL": "thousands per cumm",
  "10*9/L": "thousands per cumm",
  "10*5/uL": "lakhs per cumm",
  "10*6/uL": "millions per cumm",
  "10*12/L": "millions per cumm",
};

export const isCount = (ucum: string | null): boolean => ucum !== null && ucum in PER_UL;

/** A count unit as the doubt says it ("per cumm", "lakhs per cumm"). */
export const countSaid = (ucum: string): string => SAID[ucum] ?? ucum;

/** One way to read a printed number: its unit and the factor to the analyte's unit. */
export type Reading = { ucum: string; factor: number };

/**
 * The ways a number may be read for this analyte: for a count, one per multiplier it is printed
 * with (its own unit first; ×10⁹/L is ×10³/µL again); for any other analyte, its own unit alone.
 */
export function readingsOf(a: Analyte): Reading[] {
  if (!isCount(a.unit)) return [{ ucum: a.unit, factor: 1 }];
  const by = new Map<number, Reading>();
  for (const ucum of [a.unit, ...a.alt.map((u) => u.ucum)].filter(isCount))
    if (!by.has(PER_UL[ucum]!)) by.set(PER_UL[ucum]!, { ucum, factor: factorFor(a, ucum)! });
  return [...by.values()];
}

/** Within the analyte's possible span (its unit). */
export const possible = (a: Analyte, n: number): boolean => n >= a.possible[0] && n <= a.possible[1];

/** How far a printed range may stand from the usual interval before it is a misreading. */
const AWAY = 5;

/**
 * A printed range (its bounds in the analyte's unit) more than five times away from the
 * analyte's usual interval: a bound above five times its top, or a top below a fifth of its
 * bottom — a range read with its points lost ("70-210" for "7.0 - 21.0" beside BUN) or in
 * another unit. A bound of 0 is never too low: labs print "0 - 40" where the usual is 5 - 40.
 */
export function farFromUsual(a: Analyte, low: number | null, high: number | null): boolean {
  if (!a.usual || (low === null && high === null)) return false;
  const [bottom, top] = a.usual;
  if ([low, high].some((b) => b !== null && b > top * AWAY)) return true;
  return bottom > 0 && (high ?? low)! < bottom / AWAY;
}

/**
 * Within an order of magnitude of a range (a tenth of its bottom to ten times its top): where a
 * value read with the right multiplier stands beside its range, high or low as it may be. Count
 * multipliers differ a hundredfold at least (thousands, lakhs), so only one reading can be.
 */
export function sameOrder(n: number, low: number | null, high: number | null): boolean {
  return (low === null || low <= 0 || n >= low / 10) && (high === null || n <= high * 10);
}
