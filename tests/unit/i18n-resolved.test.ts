import { createInstance, type TFunction } from "i18next";
import { describe, expect, it } from "vitest";
import { catalogueKeys, catalogueValue } from "../helpers/catalogue";
import { i18nOptions, NAMESPACE, SUPPORTED_LOCALES } from "~/i18n/config";
import { allResources } from "~/i18n/i18n.server";
import en from "~/i18n/locales/en";
import { rememberStrings, withRememberedStrings } from "~/i18n/resolved.server";

const resources = await allResources();

/** Every key's base form (plural suffixes folded), each asked the ways the screens ask it. */
const baseKeys = [...new Set(catalogueKeys(en).map((k) => k.replace(/_(zero|one|two|few|many|other)$/, "")))];
/** The places of each key's strings (all its plural forms) in English; every catalogue keeps them. */
const placesByKey = new Map<string, Set<string>>();
for (const k of catalogueKeys(en)) {
  const base = k.replace(/_(zero|one|two|few|many|other)$/, "");
  const found = placesByKey.get(base) ?? new Set<string>();
  for (const m of String(catalogueValue(en, k)).matchAll(/{{\s*(\w+)\s*}}/g)) found.add(m[1]);
  placesByKey.set(base, found);
}
const placesOf = (key: string) => [...(placesByKey.get(key) ?? [])];

/** Values that would show a wrong fill: text that looks like markup, places and nesting, numbers. */
const samples: unknown[] = [
  "Asha <b>&</b>",
  "{{reason}} $t(reports.urgent)",
  "$t(reports.urgent)",
  7,
  0,
  12.5,
  "",
  "बुखार",
];

async function plainT(lng: string): Promise<TFunction> {
  const i = createInstance();
  await i.init({ ...i18nOptions, lng, resources });
  return i.getFixedT(lng, NAMESPACE);
}

describe("remembered translations (decision 0035)", () => {
  for (const lng of SUPPORTED_LOCALES) {
    it(`${lng}: every key, with and without options, gives what i18next gives`, async () => {
      const plain = await plainT(lng);
      const remembered = rememberStrings(await plainT(lng));
      let filled = 0;
      // Mismatches are gathered and compared once: an expect per call (some 100,000 of them) cost
      // more than the translations it checked.
      const wrong: string[] = [];
      const same = (key: string, options?: Record<string, unknown>) => {
        const got = remembered(key, options as never);
        const want = plain(key, options as never);
        if (got !== want) wrong.push(`${key} ${JSON.stringify(options)}: ${got} ≠ ${want}`);
      };
      for (const key of baseKeys) {
        // Twice each: the first call resolves, the second reads what was remembered.
        for (let round = 0; round < 2; round++) {
          same(key);
          const places = placesOf(key);
          for (const value of samples) {
            const options = Object.fromEntries(places.map((p) => [p, value]));
            same(key, options);
            if (places.length > 0) filled++;
            // Plurals, a missing value and extra options go through i18next.
            same(key, { ...options, count: 2 });
            same(key, { ...options, count: 1 });
            if (places.length > 0) {
              same(key, Object.fromEntries(places.slice(1).map((p) => [p, value])));
              same(key, { ...options, lng: "en" });
            }
          }
        }
      }
      expect(wrong).toEqual([]);
      expect(filled).toBeGreaterThan(100); // the catalogue really has places to fill
    });
  }

  it("fills plain places from the template, and leaves the rest to i18next", async () => {
    const i = createInstance();
    await i.init({
      ...i18nOptions,
      lng: "en",
      resources: {
        en: {
          [NAMESPACE]: {
            two: "{{a}} and {{ b }} and {{a}}",
            nested: "{{a}} $t(two)",
            formatted: "{{a, uppercase}}",
            unescaped: "{{- a}}",
          },
        },
      },
    });
    const plain = i.getFixedT("en", NAMESPACE);
    const t = rememberStrings(i.getFixedT("en", NAMESPACE));
    expect(t("two", { a: "x", b: 3 })).toBe("x and 3 and x");
    for (const key of ["two", "nested", "formatted", "unescaped"])
      for (const options of [{ a: "<i>", b: "y" }, { a: 1 }, { a: null }, { a: ["p", "q"] }, { a: { b: 1 } }])
        expect(t(key, options), key).toBe(plain(key, options));
  });

  it("hands out one translator per language, namespace and prefix", async () => {
    const i = createInstance();
    await i.init({ ...i18nOptions, lng: "hi", resources });
    withRememberedStrings(i);
    expect(i.getFixedT("hi", NAMESPACE)).toBe(i.getFixedT("hi", NAMESPACE));
    expect(i.getFixedT("hi", NAMESPACE)).not.toBe(i.getFixedT("en", NAMESPACE));
    expect(i.getFixedT(null, NAMESPACE)).not.toBe(i.getFixedT("", NAMESPACE));
    expect(i.getFixedT("hi", [NAMESPACE])).not.toBe(i.getFixedT("hi", NAMESPACE));
    expect(i.getFixedT("hi", NAMESPACE)("reports.urgentReasonShown", { reason: "बुखार" })).toContain("बुखार");
  });
});
