import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { FullResult, Reporter, TestCase, TestResult } from "@playwright/test/reporter";

/**
 * Adds Playwright's figures to the phase table that `.ci/run` prints (scripts/phases.mjs): per
 * project, the tests and the seconds they took (workers run side by side, so these are busy
 * seconds, not wall time), and every test that passed only on a retry — each such test is a bug to
 * make deterministic, not something to leave to the retry. Active when PHASES_FILE is set. Each
 * test's seconds go beside it, slowest first, in playwright-tests.tsv.
 */
export default class PhaseSummary implements Reporter {
  private projects = new Map<string, { tests: number; failed: number; skipped: number; ms: number }>();
  private flaky: string[] = [];
  private times: string[] = [];

  onTestEnd(test: TestCase, result: TestResult) {
    const name = test.parent.project()?.name ?? "default";
    const row = this.projects.get(name) ?? { tests: 0, failed: 0, skipped: 0, ms: 0 };
    row.ms += result.duration;
    this.times.push(`${result.duration}\t${name}\t${test.titlePath().slice(2).join(" › ")}`);
    this.projects.set(name, row);
    // The last result of a test decides its outcome; earlier ones were retried.
    if (result.retry < test.retries && result.status !== "passed" && result.status !== "skipped") return;
    row.tests += 1;
    const outcome = test.outcome();
    if (outcome === "skipped") row.skipped += 1;
    else if (outcome === "unexpected") row.failed += 1;
    else if (outcome === "flaky")
      this.flaky.push(`playwright ${name}: ${test.titlePath().slice(1).join(" › ")}`);
  }

  onEnd(_result: FullResult) {
    const file = process.env.PHASES_FILE;
    if (!file) return;
    mkdirSync(path.dirname(file), { recursive: true });
    for (const [name, r] of this.projects)
      appendFileSync(
        file,
        `playwright ${name} (Σ test time)\t${(r.ms / 1000).toFixed(0)}\t${r.tests} tests, ${r.failed} failed, ${r.skipped} skipped\n`,
      );
    for (const f of this.flaky) appendFileSync(file, `flaky\t\t${f}\n`);
    this.times.sort((a, b) => Number.parseInt(b) - Number.parseInt(a));
    writeFileSync(path.join(path.dirname(file), "playwright-tests.tsv"), `${this.times.join("\n")}\n`);
  }
}
