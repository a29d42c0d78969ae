/**
 * `npm run bench:labs` (decision 0082): reads the whole lab corpus (four layouts × text PDF,
 * scanned PDF, phone photo) with the reader itself and prints, per kind of input and per analyte,
 * values found, exact (value and printed range), wrong, and confident-and-wrong, and the time per
 * read. The reader is measured on its own (no server): see docs/performance.md.
 */
import { LAYOUTS, type Kind } from "../tests/helpers/lab-corpus";
import { scoreOne, type Score } from "../tests/helpers/lab-score";

const byKind = new Map<Kind, { scores: Score[]; ms: number[] }>();
for (const kind of ["text", "scan", "photo"] as const) {
  const acc = { scores: [] as Score[], ms: [] as number[] };
  for (const layout of LAYOUTS) {
    const { scores, ms } = await scoreOne(layout, kind);
    acc.scores.push(...scores);
    acc.ms.push(ms);
  }
  byKind.set(kind, acc);
}
const pct = (n: number, d: number) => `${((100 * n) / Math.max(1, d)).toFixed(1)} %`;
console.log("kind   values found exact wrong confident-wrong  exact%   ms/read (median)");
for (const [kind, { scores, ms }] of byKind) {
  const n = (f: (s: Score) => boolean) => scores.filter(f).length;
  const med = [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)];
  console.log(
    `${kind.padEnd(6)} ${String(scores.length).padStart(6)} ${String(n((s) => s.found)).padStart(5)} ${String(n((s) => s.exact)).padStart(5)} ${String(n((s) => s.wrong)).padStart(5)} ${String(n((s) => s.confidentWrong)).padStart(15)}  ${pct(
      n((s) => s.exact),
      scores.length,
    ).padStart(7)}  ${med}`,
  );
}
console.log("\nper analyte (exact / total over all kinds):");
const all = [...byKind.values()].flatMap((k) => k.scores);
for (const name of [...new Set(all.map((s) => s.analyte))]) {
  const rows = all.filter((s) => s.analyte === name);
  console.log(
    `  ${name.padEnd(26)} found ${rows.filter((s) => s.found).length}/${rows.length}  exact ${rows.filter((s) => s.exact).length}  wrong ${rows.filter((s) => s.wrong).length}  confident-wrong ${rows.filter((s) => s.confidentWrong).length}`,
  );
}
