import type { i18n, TFunction } from "i18next";

type AnyT = (...args: unknown[]) => unknown;

/**
 * The shared i18next instance of a language, seen through a per-request view that notes every key
 * the render translates (the page then carries those strings to the browser, and no others). The
 * view is one small object over the shared instance; nothing is copied.
 */
export function recordingKeys(instance: i18n): { i18n: i18n; used: Set<string> } {
  const used = new Set<string>();
  const note = (key: unknown) => {
    if (typeof key === "string") used.add(key);
    else if (Array.isArray(key)) for (const k of key) if (typeof k === "string") used.add(k);
  };
  const view = Object.create(instance) as i18n;
  view.getFixedT = ((...args: Parameters<i18n["getFixedT"]>) => {
    const t = instance.getFixedT(...args) as unknown as AnyT;
    const recording: AnyT = (key, ...rest) => {
      note(key);
      return t(key, ...rest);
    };
    return recording as unknown as TFunction;
  }) as i18n["getFixedT"];
  const t: AnyT = (key, ...rest) => {
    note(key);
    return (instance.t as unknown as AnyT)(key, ...rest);
  };
  view.t = t as unknown as i18n["t"];
  return { i18n: view, used };
}
