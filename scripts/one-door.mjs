// Every outside program the app runs starts through one door, app/lib/programs.server.ts
// (decision 0086): argument arrays only, `--` before operands, text a person wrote never on a
// command line, limits on memory, CPU, file size and wall clock, a scratch folder per job. This
// check fails on any other module of app/, server/ or scripts/ that imports node:child_process
// (or reaches it through require, a dynamic import or process.binding), except the developer's
// tools listed below, which run beside the app, never in it, and each says why. Run by `npm run lint`.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DOOR = "app/lib/programs.server.ts";

/** Developer tools (never part of the running app or the operator's commands), with the reason. */
const TOOLS = new Map([
  ["scripts/test-all.mjs", "runs Vitest and Playwright (npm test)"],
  ["scripts/ensure-build.mjs", "runs the build on a fresh clone before npm start"],
  ["scripts/node-runtime.mjs", "checks the project's Node at npm install"],
  ["scripts/compact-exports.mjs", "resolves a package's exports in a fresh Node at npm install"],
  ["scripts/bench.ts", "starts the built server and load generators (npm run bench)"],
  ["scripts/bench-labs.ts", "starts the built server pinned to a core (npm run bench:labs)"],
  ["scripts/bench-photo-size.ts", "measures photos with ffprobe (npm run bench:photo-size)"],
  ["scripts/fixed-rate.ts", "a load generator of the bench"],
  ["scripts/lighthouse.ts", "starts the built server and Chromium (npm run lighthouse)"],
  ["scripts/plan-cache-experiment.ts", "the experiment behind decision 0042"],
  ["scripts/profile-lists.ts", "starts the built server under --cpu-prof"],
]);

const CHILD = /(["'])(node:)?child_process\1|process\.binding\(\s*["']spawn_sync["']\)/;

const files = [];
const walk = (dir) => {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "build") continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(tsx?|mjs|cjs|js)$/.test(name)) files.push(p);
  }
};
for (const d of ["app", "server", "scripts"]) walk(path.join(root, d));

const bad = [];
for (const f of files) {
  const rel = path.relative(root, f);
  if (rel === DOOR || TOOLS.has(rel) || rel === "scripts/one-door.mjs") continue;
  const lines = readFileSync(f, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (CHILD.test(line) && !/^\s*(\/\/|\*)/.test(line)) bad.push(`${rel}:${i + 1}: ${line.trim()}`);
  });
}
if (bad.length) {
  console.error(
    `Outside programs start only through ${DOOR} (runProgram, startProgram; decision 0086):\n` +
      bad.map((b) => `  ${b}`).join("\n"),
  );
  process.exit(1);
}
console.log(`one door: ${files.length} modules checked, child_process only in ${DOOR}`);
