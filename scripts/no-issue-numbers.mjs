// Code and tests cite decisions, never issue numbers: a reader of the code has the decision
// records (docs/decisions/), not the tracker's history. Fails on a line of app/, server/, scripts/,
// tests/, ops/, .ci/ or a root config file that names one (the word issue, then a number, with
// or without #); say which decision it means (docs/decisions/NNNN-…) or the reason itself. Links to an
// upstream project's tracker (…/issues/123) are fine. Run by `npm run lint`.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SKIP = new Set(["node_modules", "build", "results", "dist", "test-results", "playwright-report"]);
const TEXT = /\.(tsx?|jsx?|mjs|cjs|sh|ya?ml|conf|service|caddyfile|json)$|(^|\/)(run|Caddyfile)$/i;
const ISSUE = new RegExp(["\\bissues?", "\\s*#?\\d+"].join(""), "i");

const files = [];
const walk = (dir) => {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (TEXT.test(p)) files.push(p);
  }
};
for (const d of ["app", "server", "scripts", "tests", "ops", ".ci"]) walk(path.join(root, d));
for (const name of readdirSync(root))
  if (/\.(ts|js|mjs)$/.test(name) && statSync(path.join(root, name)).isFile())
    files.push(path.join(root, name));

let found = 0;
for (const f of files) {
  const lines = readFileSync(f, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (!ISSUE.test(line)) return;
    found++;
    console.log(`${path.relative(root, f)}:${i + 1}: ${line.trim()}`);
  });
}
if (found) {
  console.log(
    `${found} line(s) cite an issue number: cite the decision (docs/decisions/) or give the reason.`,
  );
  process.exitCode = 1;
} else console.log("no issue numbers in code or tests");
