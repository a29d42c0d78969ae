import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { routeEntries, routeManifest } from "../../routes.areas";

/**
 * Routes by area (decision 0116): where a route module lives never changes what it serves. The
 * full list of URL patterns, each with its route id and methods, is kept in route-urls.txt; a
 * moved file that changed a URL, an id or a method fails here. (A route added or removed on
 * purpose updates the list: `npx vitest run tests/unit/route-urls.test.ts -u`.)
 */

const APP = path.resolve("app");

/** The methods a module answers: an API route's `apiRoute({ GET, DELETE … })` keys, else loader GET, action POST. */
function methodsOf(file: string): string[] {
  const src = readFileSync(path.join(APP, file), "utf8");
  const api = [...src.matchAll(/^\s+(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS):/gm)].map((m) => m[1]);
  if (/apiRoute\(\{/.test(src) && api.length) return [...new Set(api)].sort();
  const out: string[] = [];
  if (/export (const|async function|function) loader\b|export \{[^}]*\bloader\b/.test(src)) out.push("GET");
  if (/export (const|async function|function) action\b|export \{[^}]*\baction\b/.test(src)) out.push("POST");
  if (/export default\b/.test(src)) out.push("page");
  return out;
}

function urlList(): string {
  const manifest = routeManifest();
  const full = (id: string): string => {
    const r = manifest[id];
    const parent = r.parentId && r.parentId !== "root" ? full(r.parentId) : "";
    return r.path ? `${parent.replace(/\/$/, "")}/${r.path}` : parent || "/";
  };
  return (
    Object.values(manifest)
      .map((r) => `${full(r.id)}${r.index ? " (index)" : ""}  ${r.id}  ${methodsOf(r.file).join(",")}`)
      .sort()
      .join("\n") + "\n"
  );
}

describe("routes by area", () => {
  it("serves every URL pattern, route id and method it served before", async () => {
    await expect(urlList()).toMatchFileSnapshot("./route-urls.txt");
  });

  it("keeps no routes folder over 60 entries", () => {
    const over: string[] = [];
    const walk = (dir: string) => {
      const names = readdirSync(dir);
      if (names.length > 60) over.push(`${path.relative(APP, dir)}: ${names.length}`);
      for (const n of names) if (statSync(path.join(dir, n)).isDirectory()) walk(path.join(dir, n));
    };
    walk(path.join(APP, "routes"));
    expect(over).toEqual([]);
  });

  it("puts the API under its own folder tree and every screen in an area", () => {
    const misplaced = routeEntries()
      .filter((e) =>
        e.name.startsWith("api.") ? !/^api(\/|$)/.test(e.area) : e.area === "" || /^api(\/|$)/.test(e.area),
      )
      .map((e) => e.file);
    expect(misplaced).toEqual([]);
  });
});
