import type { i18n, TFunction } from "i18next";

/**
 * Server-side translators remember what they resolved. A page asks for about 200 strings and
 * i18next resolves each one anew (options copied, key split, fallbacks walked, interpolation
 * scanned) — 7–8 % of a rendered page's CPU. On the server an instance keeps one language and its
 * catalogue never changes, so a key asked without options always gives the same string: it is
 * resolved once per language and then read from a map.
 *
 * A call whose options only fill the string's plain `{{name}}` places with strings or numbers
 * (a list row's "Urgent: {{reason}}", "{{days}} d {{hours}} h") is filled from the remembered
 * template, as i18next fills it with `escapeValue: false`: the value as text, never interpolated
 * again (a value with `{{` in it is left to i18next). Every other call — plurals (`count`),
 * context, nesting (`$t(`), formats, a missing value or any other option — still goes through
 * i18next, so the output is the same as before (tests/unit/i18n-resolved.test.ts compares both
 * over every key of every language; decision 0049).
 */
type AnyT = (key: unknown, ...rest: unknown[]) => unknown;

/** A template's plain places, or null when i18next must fill it (nesting, formats, `{{- x}}`). */
type Template = { text: string; names: Set<string> } | null;

const PLACE = /\{\{\s*([A-Za-z_]\w*)\s*\}\}/g;
/** Options that change which string i18next picks or how it builds it: never filled here. */
const RESERVED = new Set([
  "count",
  "context",
  "ordinal",
  "defaultValue",
  "replace",
  "lng",
  "lngs",
  "fallbackLng",
  "ns",
  "keyPrefix",
  "interpolation",
  "skipInterpolation",
  "returnObjects",
  "returnDetails",
  "joinArrays",
  "postProcess",
  "nest",
]);

function templateOf(text: unknown): Template {
  if (typeof text !== "string" || text.includes("$t(")) return null;
  const names = new Set<string>();
  const rest = text.replace(PLACE, (_, name: string) => {
    names.add(name);
    return "";
  });
  if (rest.includes("{{") || rest.includes("}}") || names.size === 0) return null;
  return { text, names };
}

/** The options fill only the template's places, each with a string or a finite number. */
function fillsPlainly(template: Template, options: unknown): options is Record<string, string | number> {
  if (!template || typeof options !== "object" || options === null) return false;
  if (Object.getPrototypeOf(options) !== Object.prototype) return false;
  const values = options as Record<string, unknown>;
  let count = 0;
  for (const name in values) {
    if (!Object.hasOwn(values, name)) return false;
    if (RESERVED.has(name) || !template.names.has(name)) return false;
    const v = values[name];
    // A value with a place of its own in it goes through i18next, which fills such text its own way.
    if (typeof v === "string" ? v.includes("{{") : !(typeof v === "number" && Number.isFinite(v)))
      return false;
    count++;
  }
  return count === template.names.size;
}

export function rememberStrings<T extends TFunction>(fixed: T): T {
  const inner = fixed as unknown as AnyT;
  const strings = new Map<string, string>();
  const templates = new Map<string, Template>();
  const remembering = ((key: unknown, ...rest: unknown[]) => {
    if (typeof key !== "string") return inner(key, ...rest);
    if (rest.length === 0) {
      const known = strings.get(key);
      if (known !== undefined) return known;
      const value = inner(key);
      if (typeof value === "string") strings.set(key, value);
      return value;
    }
    if (rest.length === 1) {
      let template = templates.get(key);
      if (template === undefined) {
        template = templateOf(inner(key, { skipInterpolation: true }));
        templates.set(key, template);
      }
      if (fillsPlainly(template, rest[0])) {
        const values = rest[0];
        return template!.text.replace(PLACE, (_, name: string) => String(values[name]));
      }
    }
    return inner(key, ...rest);
  }) as unknown as T;
  const source = fixed as unknown as Record<string, unknown>;
  Object.assign(remembering, {
    lng: source.lng,
    lngs: source.lngs,
    ns: source.ns,
    keyPrefix: source.keyPrefix,
  });
  return remembering;
}

const part = (v: unknown) =>
  v === undefined || v === null ? "\u0001" : typeof v === "string" ? v : JSON.stringify(v);

/** Makes `instance.getFixedT` hand out one remembering translator per (language, namespace, prefix). */
export function withRememberedStrings(instance: i18n): i18n {
  const original = instance.getFixedT.bind(instance) as (...args: unknown[]) => TFunction;
  const made = new Map<string, TFunction>();
  instance.getFixedT = ((lng: unknown, ns: unknown, keyPrefix: unknown) => {
    // Asked by every component that translates, so the key is built without JSON for the usual strings.
    const id = `${part(lng)}\u0000${part(ns)}\u0000${part(keyPrefix)}`;
    let t = made.get(id);
    if (!t) {
      t = rememberStrings(original(lng, ns, keyPrefix));
      made.set(id, t);
    }
    return t;
  }) as i18n["getFixedT"];
  return instance;
}
