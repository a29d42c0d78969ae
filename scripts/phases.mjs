// Prints the phase table of a run: each line of PHASES_FILE (default test-results/phases.tsv) is
// `name<TAB>seconds<TAB>note`, written by .ci/run, scripts/test-all.mjs, the Vitest phase reporter
// and the Playwright summary (tests/e2e/phase-summary.ts). Usage: node scripts/phases.mjs [file]
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2] || process.env.PHASES_FILE || "test-results/phases.tsv";
if (!existsSync(file)) {
  console.log(`(no phase table: ${file} is missing)`);
  process.exit(0);
}
const rows = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => l.split("\t"));
const flaky = rows.filter((r) => r[0] === "flaky");
const phases = rows.filter((r) => r[0] !== "flaky");
const w = Math.max(5, ...phases.map((r) => r[0].length));
console.log(`| ${"phase".padEnd(w)} | seconds | note`);
console.log(`| ${"-".repeat(w)} | ------: | ----`);
for (const [name, secs, note] of phases)
  console.log(`| ${name.padEnd(w)} | ${(secs ?? "").padStart(7)} | ${note ?? ""}`);
console.log(flaky.length ? `Passed only on retry (each one is a bug to fix):` : "Passed only on retry: none");
for (const r of flaky) console.log(`  - ${r[2]}`);
// The plain closing line: every Vitest and Playwright test counted above (skipped ones apart).
let passed = 0;
let failed = 0;
for (const [name, , note] of phases) {
  const m = /(\d+) tests, (\d+) failed(?:, (\d+) skipped)?/.exec(note ?? "");
  if (!m || !/^(vitest|playwright) /.test(name)) continue;
  failed += Number(m[2]);
  passed += Number(m[1]) - Number(m[2]) - Number(m[3] ?? 0);
}
if (passed + failed > 0) console.log(`${passed} passed, ${failed} failed`);
