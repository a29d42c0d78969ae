import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { catalogueKeys } from "../helpers/catalogue";
import en from "~/i18n/locales/en";

/** Every key of the catalogue is used somewhere in app/, and every key the code names exists. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) return p.includes(path.join("i18n", "locales")) ? [] : files(p);
    return /\.(ts|tsx)$/.test(n) ? [p] : [];
  });
}

const source = files(path.resolve("app"))
  .map((f) => readFileSync(f, "utf8"))
  .join("\n");
const all = catalogueKeys(en);
const sections = new Set(Object.keys(en));

describe("catalogue usage", () => {
  it("has no unused keys", () => {
    const unused = all.filter(
      (k) => !source.includes(`"${k}"`) && !source.includes(`'${k}'`) && !source.includes(`\`${k}\``),
    );
    expect(unused).toEqual([]);
  });

  it("names no key the catalogue lacks", () => {
    const literals = [...source.matchAll(/["'`]([a-z][a-zA-Z0-9]*\.[a-zA-Z0-9.]+)["'`]/g)].map((m) => m[1]);
    const known = new Set(all);
    const missing = [...new Set(literals)].filter(
      (l) =>
        sections.has(l.split(".")[0]) &&
        !known.has(l) &&
        !all.some((k) => k.startsWith(`${l}.`)) &&
        !/\.(ts|tsx|js|json|server|client)$/.test(l),
    );
    expect(missing).toEqual([]);
  });
});
