import { describe, expect, it } from "vitest";
import { scoreDoc, seededDoc, type Score } from "../helpers/lab-score";
import { layoutsFor, runSeed, seededLayout } from "../helpers/lab-seeded";

/*
 * The reader on text PDFs of layouts drawn from a seed (decision 0107): a fresh seed every run
 * (LAB_SEED=<seed> draws the same corpus again), printed, and named in every failure. What holds
 * for any seed: no number other than the one printed is given as confident, no judgement goes
 * against the printed range, and at least FLOOR of the printed values are read exactly (value and
 * range as printed). The floor sits about ten points under the worst seed the reader is measured
 * on (`npm run bench:labs -- --no-server --kinds=text --seeds=20 --no-fixed`): with the table reader
 * (decision 0104), the one range grammar (0105) and plausibility (0106), seeds 1–20 gave a mean of
 * 92.1 % and a worst of 83.3 % (seed 1); with names and ranges in their general printed forms
 * (0110), a mean of 98.1 % and a worst of 93.0 % (seed 2); the line-pattern reader before them, a
 * mean of 71.7 % and a worst of 47.1 % over fifty seeds. So CI is not red by chance; raise it as the
 * reader learns.
 */

const SEED = runSeed();
const LAYOUTS = 30;
const FLOOR = 0.83;
const at = `seed ${SEED} (LAB_SEED=${SEED} draws it again)`;

const describeScore = (s: Score) => `${s.layout} ${s.analyte}: printed ${s.want}, read ${s.got ?? "nothing"}`;

describe("the reader on layouts drawn from a seed", () => {
  it("draws the same corpus from the same seed, another from another", () => {
    const json = (seed: number) => JSON.stringify(layoutsFor(seed, 4));
    expect(json(SEED), at).toBe(json(SEED));
    expect(json(SEED), at).not.toBe(json(SEED + 1));
    // Each property has its own draw: the fifth layout does not depend on how many came before.
    expect(JSON.stringify(seededLayout(SEED, 4)), at).toBe(JSON.stringify(layoutsFor(SEED, 5)[4]));
  });

  it("prints every value with a judgement that agrees with its flag and the part of its range that applies", () => {
    for (const l of layoutsFor(SEED, LAYOUTS)) {
      expect(l.truth.length, `${at}: ${l.name}`).toBeGreaterThanOrEqual(3);
      for (const t of l.truth) {
        if (t.flag)
          expect(t.judgement, `${at}: ${l.name} ${t.analyte}`).toBe(t.flag === "H" ? "above" : "below");
        expect(l.spec.sections.flatMap((s) => s.rows.map((r) => r.value))).toContain(t.value);
      }
    }
  });

  it(`reads text PDFs of ${LAYOUTS} drawn layouts: no confident wrong value, no judgement against the printed range, ≥ ${FLOOR * 100} % exact`, async () => {
    console.log(`lab corpus: ${at}`);
    const scores: Score[] = [];
    for (const l of layoutsFor(SEED, LAYOUTS)) scores.push(...(await scoreDoc(seededDoc(l), "text")).scores);
    const exact = scores.filter((s) => s.exact).length;
    console.log(
      `lab corpus, seed ${SEED}: ${scores.length} values, ${exact} exact (${((100 * exact) / scores.length).toFixed(1)} %), ${scores.filter((s) => s.found).length} found, ${scores.filter((s) => s.confidentWrong).length} confident with a range not as printed`,
    );
    expect(
      scores.filter((s) => s.confidentWrongValue).map(describeScore),
      `${at}: confident wrong values`,
    ).toEqual([]);
    expect(
      scores.filter((s) => s.judgementWrong).map(describeScore),
      `${at}: judgements against the printed range`,
    ).toEqual([]);
    expect(exact / scores.length, `${at}: share of values read exactly`).toBeGreaterThanOrEqual(FLOOR);
  }, 60_000);
});
