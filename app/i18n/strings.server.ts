import type { Locale } from "./config";
import { loadedCatalogue } from "./i18n.server";
import routeKeyMap from "./route-keys.generated.json";

/** Written by scripts/i18n-route-keys.ts (npm run i18n:routes). */
const ROUTE_KEYS: Record<string, readonly string[]> = routeKeyMap;

type Tree = { [key: string]: string | Tree };

/**
 * The strings the browser gets: never the whole catalogue (70–180 KB per language), only the keys
 * of the routes on the page (ROUTE_KEYS, found in their code by scripts/i18n-route-keys.ts) and
 * the keys the server's render actually used (which covers keys the domain sent, such as a
 * refusal's message). A key also brings its `key_<context>` variants.
 */
function pick(from: Tree, path: string, into: Tree) {
  const parts = path.split(".");
  let src: Tree = from;
  let dst: Tree = into;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = src[parts[i]];
    if (!next || typeof next === "string") return;
    src = next;
    dst = (dst[parts[i]] ??= {}) as Tree;
    if (typeof dst === "string") return;
  }
  const last = parts[parts.length - 1];
  for (const key of Object.keys(src))
    if (key === last || key.startsWith(`${last}_`)) dst[key] = src[key] as Tree; // a leaf or a whole subtree
}

function catalogue(locale: Locale): Tree {
  return loadedCatalogue(locale) as unknown as Tree;
}

/** The strings of these keys (or subtrees) in one language (its catalogue loaded: loadCatalogue). */
export function stringsOf(locale: Locale, keys: Iterable<string>): Tree {
  const out: Tree = {};
  for (const key of keys) pick(catalogue(locale), key, out);
  return out;
}

/** Every key the routes may translate in the browser (the root's always). */
export function routeKeys(routeIds: Iterable<string>): Set<string> {
  const keys = new Set<string>(ROUTE_KEYS.root);
  for (const id of routeIds) for (const key of ROUTE_KEYS[id] ?? []) keys.add(key);
  return keys;
}

const pageCache = new Map<string, { keys: Set<string>; json: string }>();

/**
 * The page's strings as JSON for a `<script type="application/json">`: its route ids (`r`) and the
 * strings (`s`) of the routes' keys (made once per language and set of routes) plus the keys this
 * render used that they do not cover.
 */
export function pageStringsJson(locale: Locale, routeIds: string[], used: Iterable<string>): string {
  const id = `${locale}|${routeIds.join(",")}`;
  let cached = pageCache.get(id);
  if (!cached) {
    const keys = routeKeys(routeIds);
    cached = { keys, json: safeJson(stringsOf(locale, keys)) };
    if (pageCache.size < 1000) pageCache.set(id, cached);
  }
  const extra = [...used].filter((k) => !covered(cached.keys, k));
  const json = extra.length ? safeJson(stringsOf(locale, [...cached.keys, ...extra])) : cached.json;
  return `{"r":${safeJson(routeIds)},"s":${json}}`;
}

/** A key is covered when it or one of its parents is listed. */
function covered(keys: Set<string>, key: string): boolean {
  if (keys.has(key)) return true;
  for (let i = key.lastIndexOf("."); i > 0; i = key.lastIndexOf(".", i - 1))
    if (keys.has(key.slice(0, i))) return true;
  return false;
}

/** JSON that cannot end its `<script>` element early. */
function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}
