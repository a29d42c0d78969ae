/**
 * The one conversion (decision 0088): `n` in a unit whose factor to the analyte's unit is `factor`.
 * Twelve significant digits take the float noise off (2.1 × 100 = 210.00000000000003 → 210) and
 * keep every digit a lab prints; it never reverses an order, so a value on its printed range's edge
 * stays on it. Its own module: the measure and the range grammar both use it.
 */
export function convert(n: number, factor: number): number {
  return factor === 1 ? n : Number((n * factor).toPrecision(12));
}
