import { describe, expect, it } from "vitest";
import { LAYOUTS, type Kind, type Layout } from "../helpers/lab-corpus";
import { scoreOne, type Score } from "../helpers/lab-score";

/**
 * The lab-report reader on a slice of the corpus made in code (decision 0082): the figures
 * `npm run bench:labs` measured, held as floors (minus a small margin), and never a value read
 * wrong with a confident mark.
 */
async function score(kind: Kind, layouts: Layout[]) {
  const all: Score[] = [];
  for (const l of layouts) all.push(...(await scoreOne(l, kind)).scores);
  return {
    exact: all.filter((s) => s.exact).length / all.length,
    confidentWrong: all.filter((s) => s.confidentWrong),
  };
}

describe("lab reader on the corpus", () => {
  it("reads every value of text-layer PDFs in all four layouts exactly", async () => {
    const r = await score("text", LAYOUTS);
    expect(r.exact).toBeGreaterThanOrEqual(0.98);
    expect(r.confidentWrong).toEqual([]);
  });

  it("reads scanned PDFs by OCR, with no confident wrong value", async () => {
    const r = await score("scan", LAYOUTS);
    expect(r.exact).toBeGreaterThanOrEqual(0.85);
    expect(r.confidentWrong).toEqual([]);
  }, 30_000);

  // Rotated, blurred, unevenly lit JPEGs: straightened and evened before OCR (lab-prep.server.ts).
  it("reads phone photos in all four layouts, with no confident wrong value", async () => {
    const r = await score("photo", LAYOUTS);
    expect(r.exact).toBeGreaterThanOrEqual(0.9);
    expect(r.confidentWrong).toEqual([]);
  }, 60_000);
});
