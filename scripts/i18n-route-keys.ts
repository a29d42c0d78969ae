/**
 * npm run i18n:routes — which strings each screen may translate in the browser, written to
 * app/i18n/route-keys.generated.json (read by the server only). The browser gets only those strings: the page
 * carries the keys of the routes it renders, a client navigation fetches the next route's. They
 * are found by reading each route module and every module of the app it imports (components,
 * schemas, its own folder's files, server parts included, since loaders send keys the page
 * translates), collecting the keys it names: "section.key" literals, and `section.sub.${…}`
 * templates or "section.sub." prefixes as whole subtrees. Keys the domain sends (a refusal's
 * message) are not followed: the server adds the keys a render used, and the browser fetches a
 * section it finds missing. tests/unit/i18n-route-keys.test.ts fails when the file is out of date.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { routeEntries } from "../routes.areas";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const APP = path.join(ROOT, "app");
const OUT = path.join(APP, "i18n/route-keys.generated.json");

/** Top-level keys of the English catalogue (every catalogue has the same). */
async function sectionNames(): Promise<string[]> {
  const en = (await import(path.join(APP, "i18n/locales/en.ts"))).default as Record<string, unknown>;
  return Object.keys(en);
}

function resolveImport(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("~/")) base = path.join(APP, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  // The domain is reached through its indexes, which re-export every context: following them would
  // give every screen every section. Keys the domain sends (refusals) are loaded when first shown.
  if (base.startsWith(path.join(APP, "domain"))) return null;
  if (base.startsWith(path.join(APP, "i18n/locales"))) return null;
  if (base.startsWith(path.join(APP, "db"))) return null;
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, "index.ts"),
    path.join(base, "index.tsx"),
  ])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/** A route module and every app module it imports (the files whose keys the route may render). */
export function moduleGraph(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const source = readFileSync(entry, "utf8");
  for (const m of source.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
    const next = resolveImport(entry, m[1]);
    if (next) moduleGraph(next, seen);
  }
  return seen;
}

/**
 * A key's segments are whatever the catalogue names them: letters, digits, `_` and `-`
 * (`offline.tabs.follow-up`). A segment pattern narrower than the catalogue's names silently
 * drops keys; tests/unit/i18n-route-keys.test.ts checks every catalogue key a module quotes.
 */
const KEY = /["'`]([a-zA-Z]+)((?:\.[A-Za-z0-9_-]+)*)(\.?)(\$\{|["'`])/g;

function keysOf(entry: string, sections: Set<string>): Set<string> {
  const found = new Set<string>();
  for (const file of moduleGraph(entry)) {
    for (const m of readFileSync(file, "utf8").matchAll(KEY)) {
      const [, section, rest, dot, end] = m;
      if (!sections.has(section)) continue;
      // A bare word ("reports") is not a key; `section.${x}` is the whole section.
      if (!rest && !(dot && end === "${")) continue;
      found.add(section + rest);
    }
  }
  return found;
}

/** Route ids as Remix names them (routes by area, decision 0116), with their module. */
export function routes(): [string, string][] {
  return [
    ["root", path.join(APP, "root.tsx")],
    ...routeEntries(APP).map((e): [string, string] => [`routes/${e.name}`, path.join(APP, e.file)]),
  ];
}

export async function routeKeys(): Promise<Record<string, string[]>> {
  const sections = new Set(await sectionNames());
  const result: Record<string, string[]> = {};
  for (const [id, file] of routes()) {
    // Resource routes (no default export) render nothing.
    if (id !== "root" && !/export default/.test(readFileSync(file, "utf8"))) continue;
    result[id] = [...keysOf(file, sections)].sort();
  }
  // The root's keys are on every page; a route lists only what it adds.
  const always = new Set(result.root);
  for (const id of Object.keys(result))
    if (id !== "root") result[id] = result[id].filter((k) => !always.has(k));
  return result;
}

/** The file's text, formatted as Prettier (which `npm run lint` checks) writes it. */
export async function render(map: Record<string, string[]>): Promise<string> {
  const prettier = await import("prettier");
  const options = (await prettier.resolveConfig(OUT)) ?? {};
  return prettier.format(JSON.stringify(map), { ...options, filepath: OUT });
}

export const OUTPUT = OUT;

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const text = await render(await routeKeys());
  writeFileSync(OUT, text);
  console.log(`wrote ${path.relative(ROOT, OUT)}`);
}
