import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Adds Vitest's figures to the phase table that `.ci/run` prints (scripts/phases.mjs): per
 * project, the files, tests and the seconds its files took (the projects share one pool, so
 * these are busy seconds, not wall time), and every test that passed only on a retry.
 * Active when PHASES_FILE is set (scripts/test-all.mjs sets it). Each file's seconds go beside it,
 * slowest first, in vitest-files.tsv, to find where the run's time goes.
 */
export default class PhaseReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const file = process.env.PHASES_FILE;
    if (!file) return;
    const byProject = new Map<string, { files: number; tests: number; failed: number; ms: number }>();
    const flaky: string[] = [];
    const files: string[] = [];
    for (const m of modules) {
      const name = m.project.name || "default";
      const row = byProject.get(name) ?? { files: 0, tests: 0, failed: 0, ms: 0 };
      row.files += 1;
      row.ms += m.diagnostic().duration;
      files.push(
        `${m.diagnostic().duration.toFixed(0)}\t${name}\t${path.relative(process.cwd(), m.moduleId)}`,
      );
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "skipped" || state === "pending") continue;
        row.tests += 1;
        if (state === "failed") row.failed += 1;
        if (t.diagnostic()?.flaky) flaky.push(`vitest ${name}: ${m.moduleId} › ${t.fullName}`);
      }
      byProject.set(name, row);
    }
    mkdirSync(path.dirname(file), { recursive: true });
    for (const [name, r] of byProject)
      appendFileSync(
        file,
        `vitest ${name} (Σ file time)\t${(r.ms / 1000).toFixed(0)}\t${r.files} files, ${r.tests} tests, ${r.failed} failed\n`,
      );
    for (const f of flaky) appendFileSync(file, `flaky\t\t${f}\n`);
    files.sort((a, b) => Number.parseInt(b) - Number.parseInt(a));
    writeFileSync(path.join(path.dirname(file), "vitest-files.tsv"), `${files.join("\n")}\n`);
  }
}
