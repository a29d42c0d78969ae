// `npm test`: builds, then runs Vitest (every project) and Playwright, one after the other, and
// records how long each phase took in PHASES_FILE (default test-results/phases.tsv), which
// scripts/phases.mjs prints as a table (`.ci/run` prints it at its end). Stops at the first phase
// that fails, with its exit code.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";

const file = path.resolve(process.env.PHASES_FILE || "test-results/phases.tsv");
mkdirSync(path.dirname(file), { recursive: true });
const env = { ...process.env, PHASES_FILE: file };

function phase(name, cmd, args, extraEnv = {}) {
  const start = Date.now();
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...env, ...extraEnv } });
  const code = r.status ?? 1;
  appendFileSync(
    file,
    `${name}\t${((Date.now() - start) / 1000).toFixed(0)}\t${code === 0 ? "ok" : `exit ${code}`}\n`,
  );
  if (code !== 0) process.exit(code);
}

phase("build", "npm", ["run", "build"]);
phase(
  "vitest (wall)",
  "npx",
  ["vitest", "run", "--reporter=default", "--reporter=./tests/helpers/phase-reporter.ts"],
  {
    TEST_BACKEND: "all",
  },
);
phase("playwright (wall)", "npx", ["playwright", "test"]);
