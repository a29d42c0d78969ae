import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Checks of the service files in ops/ (decision 0071), shared by the unit file's test and the
 * install test. systemd-analyze runs without a running systemd (systemd is not PID 1 here).
 */

/**
 * `systemd-analyze verify` on a unit file. Its exit status stays 0 for a misspelt key or a bad
 * value (it only warns), so a unit passes only when verify exits 0 **and prints nothing**.
 */
export function verifyUnit(file: string): { ok: boolean; output: string } {
  const r = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}`.trim();
  return { ok: r.status === 0 && output === "", output };
}

/** `systemd-analyze security --offline=true --threshold=N`: exit 0 when the exposure is at most N (0-100). */
export function unitSecurity(file: string, threshold: number): { ok: boolean; output: string } {
  const r = spawnSync(
    "systemd-analyze",
    ["security", "--offline=true", `--threshold=${threshold}`, "--no-pager", file],
    { encoding: "utf8" },
  );
  return { ok: r.status === 0, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** Runs `check` on a copy of a unit's text (written as `name` in a temporary folder). */
export function onCopy<T>(text: string, check: (file: string) => T, name = "carebridge.service"): T {
  const dir = mkdtempSync(path.join(os.tmpdir(), "carebridge-unit-"));
  try {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return check(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The [Service] settings of a unit file: every value of each key, in order. */
export function serviceSettings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let section = "";
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t || t.startsWith("#") || t.startsWith(";")) continue;
    const s = /^\[(.+)\]$/.exec(t);
    if (s) {
      section = s[1];
      continue;
    }
    if (section !== "Service") continue;
    const i = t.indexOf("=");
    const key = t.slice(0, i).trim();
    out.set(key, [...(out.get(key) ?? []), t.slice(i + 1).trim()]);
  }
  return out;
}

/** The unit's `Environment=` assignments as one object. */
export function unitEnvironment(settings: Map<string, string[]>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const v of settings.get("Environment") ?? []) {
    const i = v.indexOf("=");
    env[v.slice(0, i)] = v.slice(i + 1);
  }
  return env;
}

/**
 * The README's "A lost machine" commands (the sh block after that heading), one a line: what the
 * recovery sheet prints for an installed machine and what install.test.ts runs (decision 0091).
 */
export function readmeLostMachineLines(readme = readFileSync("README.md", "utf8")): string[] {
  const at = readme.indexOf("**A lost machine**");
  if (at < 0) throw new Error("README.md has no **A lost machine** paragraph");
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error("README.md's **A lost machine** has no sh block");
  return block[1].trim().split("\n");
}
