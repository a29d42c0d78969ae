import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * The README's package lines are what `.ci/run` installs: a
 * package the CI adds and the README forgets leaves a newcomer's machine without it.
 */
const root = path.resolve(__dirname, "../..");
const ci = readFileSync(path.join(root, ".ci/run"), "utf8");
const readme = readFileSync(path.join(root, "README.md"), "utf8");

/** The packages `.ci/run` adds to one of its lists (`need+=(a b)`). */
const listed = (list: string) =>
  [...ci.matchAll(new RegExp(`\\b${list}\\+=\\(([^)]*)\\)`, "g"))]
    .flatMap((m) => m[1].trim().split(/\s+/))
    .sort();

/** The packages of the README's `apt-get install -y …` line, with or without recommends. */
function readmeLine(lean: boolean): string[] {
  const line = readme
    .split("\n")
    .find((l) => l.startsWith("apt-get install -y ") && l.includes("--no-install-recommends") === lean);
  return (line ?? "")
    .replace(/^apt-get install -y (--no-install-recommends )?/, "")
    .split(/\s+/)
    .filter(Boolean)
    .sort();
}

describe("the README's Debian packages", () => {
  it("are the ones .ci/run installs, with and without recommends", () => {
    expect(listed("need").length).toBeGreaterThan(5);
    expect(readmeLine(false)).toEqual(listed("need"));
    expect(readmeLine(true)).toEqual(listed("lean"));
  });
});
