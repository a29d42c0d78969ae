import { spawnSync } from "node:child_process";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { onlyWith, requirePromtool } from "../helpers/requires";

// Needs promtool: skipped without it, naming the package, except under CI.
const { describe, it } = onlyWith(requirePromtool(), vitest);

/*
 * The alert rules in ops/prometheus (decision 0033) are valid and do what their unit tests say:
 * promtool (Debian package prometheus) checks the rules and the sample configuration and runs
 * the rules' own tests, in which every alert fires on a bad series and stays quiet on a good one.
 */
const DIR = path.resolve("ops/prometheus");

function promtool(...args: string[]) {
  const r = spawnSync("/usr/bin/promtool", args, { cwd: DIR });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("alert rules", () => {
  it("pass promtool check rules", () => {
    const r = promtool("check", "rules", "carebridge.rules.yml");
    expect(r.output).toContain("SUCCESS: 6 rules found");
    expect(r.code).toBe(0);
  });

  it("pass their unit tests (promtool test rules)", () => {
    const r = promtool("test", "rules", "carebridge.rules.test.yml");
    expect(r.output).toContain("SUCCESS");
    expect(r.code).toBe(0);
  });

  it("the sample prometheus.yml passes promtool check config", () => {
    const r = promtool("check", "config", "prometheus.yml");
    expect(r.output).toContain("SUCCESS");
    expect(r.code).toBe(0);
  });
});
