import type { i18n, TFunction } from "i18next";

/**
 * Server-side translators remember what they resolved. A page asks for about 200 strings and
 * i18next resolves each one anew (options copied, key split, fallbacks walked, interpolation
 * scanned) — 7–8 % of a rendered page's CPU. On the server an instance keeps one language and its
 * catalogue never changes, so a key asked without options always gives the same string: it is
 * resolved once per language and then read from a map. Calls with options (interpolation,
 * plurals) still go through i18next, so the output is the same as before.
 */
type AnyT = (key: unknown, ...rest: unknown[]) => unknown;

export function rememberStrings<T extends TFunction>(fixed: T): T {
  const inner = fixed as unknown as AnyT;
  const strings = new Map<string, string>();
  const remembering = ((key: unknown, ...rest: unknown[]) => {
    if (rest.length === 0 && typeof key === "string") {
      const known = strings.get(key);
      if (known !== undefined) return known;
      const value = inner(key);
      if (typeof value === "string") strings.set(key, value);
      return value;
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

/** Makes `instance.getFixedT` hand out one remembering translator per (language, namespace, prefix). */
export function withRememberedStrings(instance: i18n): i18n {
  const original = instance.getFixedT.bind(instance) as (...args: unknown[]) => TFunction;
  const made = new Map<string, TFunction>();
  instance.getFixedT = ((lng: unknown, ns: unknown, keyPrefix: unknown) => {
    const id = JSON.stringify([lng ?? null, ns ?? null, keyPrefix ?? null]);
    let t = made.get(id);
    if (!t) {
      t = rememberStrings(original(lng, ns, keyPrefix));
      made.set(id, t);
    }
    return t;
  }) as i18n["getFixedT"];
  return instance;
}
