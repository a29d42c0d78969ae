import { matchRoutes } from "@remix-run/react";
import { NAMESPACE } from "./config";
import type { BrowserI18n } from "./i18n.browser";
import { isMessageKey } from "./message";

/**
 * The browser's strings, loaded per screen: the page carries the strings of the routes it renders
 * (a JSON block the server writes at the end of <body>); a client navigation fetches the next
 * routes' strings from /i18n.json beside their data, and the new screen renders once both are in.
 * A key still missing (one the domain sent, such as a refusal) brings its whole section, and
 * the screens draw the text again when it arrives (i18n.browser.ts).
 */
type Page = { r: string[]; s: Record<string, unknown> };
type RemixWindow = Window & {
  __remixRouter?: { routes: Parameters<typeof matchRoutes>[0] };
  __remixManifest?: { version?: string };
};

const loadedRoutes = new Map<string, Set<string>>();
const loadedSections = new Map<string, Set<string>>();
let instance: BrowserI18n | undefined;

function routesOf(lng: string) {
  let set = loadedRoutes.get(lng);
  if (!set) loadedRoutes.set(lng, (set = new Set()));
  return set;
}

/** The page's own strings, read once before hydration. */
export function pageStrings(): Page {
  const text = document.getElementById("cb-strings")?.textContent;
  return text ? (JSON.parse(text) as Page) : { r: [], s: {} };
}

function stringsUrl(lng: string, query: Record<string, string>) {
  const version = (window as RemixWindow).__remixManifest?.version ?? "";
  return `/i18n.json?${new URLSearchParams({ lng, ...query, v: version })}`;
}

async function fetchInto(lng: string, query: Record<string, string>) {
  const res = await fetch(stringsUrl(lng, query));
  if (!res.ok) throw new Error(`strings: ${res.status}`);
  instance?.addResourceBundle(lng, NAMESPACE, await res.json());
}

/** Loads the strings of these routes in `lng` (those not loaded yet). */
export async function loadRoutes(lng: string, routeIds: string[]) {
  const loaded = routesOf(lng);
  const missing = routeIds.filter((id) => !loaded.has(id));
  if (!missing.length) return;
  await fetchInto(lng, { routes: missing.join(",") });
  for (const id of missing) loaded.add(id);
}

/** Loads the routes already shown, in another language (a language change). */
export function loadShownRoutesIn(lng: string, from: string) {
  return loadRoutes(lng, [...routesOf(from)]);
}

/** The translator's missing-key hook: the key's section, once per language. */
export function loadMissing(lngs: readonly string[], _ns: string, key: string) {
  // A sentence (a server's refusal, already translated) is no key: nothing to fetch (0073).
  if (!isMessageKey(key)) return;
  // The section is wanted in the page's language.
  const lng = instance?.language ?? lngs[0];
  const section = key.split(".")[0];
  if (!lng || !section) return;
  let sections = loadedSections.get(lng);
  if (!sections) loadedSections.set(lng, (sections = new Set()));
  if (sections.has(section)) return;
  sections.add(section);
  fetchInto(lng, { keys: section }).catch(() => sections.delete(section));
}

/**
 * Starts per-screen loading: the page's routes count as loaded, and every single-fetch data
 * request (`/<path>.data`) also fetches the strings of the routes at that path not loaded yet,
 * answering only when both are in, so the next screen never renders with missing strings.
 */
export function startStringLoading(i18n: BrowserI18n, page: Page) {
  instance = i18n;
  for (const id of page.r) routesOf(i18n.language).add(id);
  const original = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(raw, window.location.href);
    const router = (window as RemixWindow).__remixRouter;
    if (url.origin !== window.location.origin || !url.pathname.endsWith(".data") || !router)
      return original(input, init);
    const path = url.pathname === "/_root.data" ? "/" : url.pathname.slice(0, -".data".length);
    const ids = (matchRoutes(router.routes, path) ?? []).map((m) => m.route.id as string);
    const strings = loadRoutes(i18n.language, ids).catch(() => undefined);
    return Promise.all([original(input, init), strings]).then(([res]) => res);
  };
}
