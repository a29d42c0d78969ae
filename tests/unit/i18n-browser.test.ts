import { createInstance, type TFunction } from "i18next";
import { describe, expect, it } from "vitest";
import { catalogueKeys, catalogueValue } from "../helpers/catalogue";
import { i18nOptions, NAMESPACE, SUPPORTED_LOCALES } from "~/i18n/config";
import { BrowserI18n } from "~/i18n/i18n.browser";
import { allResources } from "~/i18n/i18n.server";
import en from "~/i18n/locales/en";

const resources = await allResources();

/*
 * The browser's translator (decision 0094) against i18next, which renders the same page on the
 * server: every key of every catalogue, with no values, each place filled (text, numbers, markup,
 * places and `$` in values), a value missing, a count; the sections (objects), unknown keys and a
 * server's sentences; strings that arrive later and a language change. Any difference would show
 * as text changing when the page hydrates.
 */

const keys = catalogueKeys(en);
const sections = [...new Set(keys.map((k) => k.split(".")[0]))];
const placesOf = (key: string) => [
  ...new Set([...String(catalogueValue(en, key)).matchAll(/{{-?\s*([\w.]+)\s*}}/g)].map((m) => m[1])),
];
const samples: unknown[] = [
  "Asha <b>&</b>",
  "{{reason}} $t(reports.urgent)",
  "$1 $& $$ $",
  7,
  0,
  12.5,
  "",
  null,
  false,
  [1, 2],
  "बुखार",
];

async function i18nextT(lng: string): Promise<TFunction> {
  const i = createInstance();
  await i.init({ ...i18nOptions, lng, resources, saveMissing: true, missingKeyHandler: () => {} });
  return i.getFixedT(lng, NAMESPACE);
}

describe("the browser's translator gives what i18next gives (decision 0094)", () => {
  for (const lng of SUPPORTED_LOCALES) {
    it(`${lng}: every key, with and without values`, async () => {
      const server = await i18nextT(lng);
      const browser = new BrowserI18n(lng, structuredClone(resources[lng][NAMESPACE]) as never, () => {});
      const t = (key: unknown, options?: Record<string, unknown>) => browser.translate(key, options);
      let filled = 0;
      for (const key of keys) {
        expect(t(key), key).toBe(server(key));
        expect(t(key, {}), key).toBe(server(key, {}));
        const places = placesOf(key);
        for (const value of samples) {
          const options = Object.fromEntries(places.map((p) => [p, value]));
          expect(t(key, options), `${key} ${JSON.stringify(options)}`).toBe(server(key, options));
          expect(t(key, { ...options, count: 1 }), key).toBe(server(key, { ...options, count: 1 }));
          expect(t(key, { ...options, count: 5 }), key).toBe(server(key, { ...options, count: 5 }));
          if (places.length > 0) {
            filled++;
            const partial = Object.fromEntries(places.slice(1).map((p) => [p, value]));
            expect(t(key, partial), key).toBe(server(key, partial));
            const undefinedOne = { ...options, [places[0]]: undefined };
            expect(t(key, undefinedOne), key).toBe(server(key, undefinedOne));
          }
        }
      }
      expect(filled).toBeGreaterThan(100);
      for (const odd of [
        ...sections,
        "reports.nope",
        "nope",
        "",
        "Not registered: 403 Forbidden",
        "Some sentence. With dots.",
        "a:b",
        "calls:title",
        "Hello {{name}}",
        "x:y z",
      ])
        expect(t(odd, { name: "X" }), odd).toBe(server(odd, { name: "X" }));
      expect(t(undefined)).toBe(server(undefined as never));
      expect(t(null)).toBe(server(null as never));
      expect(browser.exists("calls.title")).toBe(true);
      expect(browser.exists("calls.nope")).toBe(false);
    }, 120_000); // every key × every sample: over 30 s on a busy machine
  }

  it("reports a missing key, and draws again when strings arrive or the language changes", () => {
    const missing: string[] = [];
    const browser = new BrowserI18n("hi", { calls: { title: "शीर्षक" } }, (lngs, _ns, key) =>
      missing.push(`${lngs[0]} ${key}`),
    );
    let drawn = 0;
    const stop = browser.subscribe(() => drawn++);
    const first = browser.fixedT();
    expect(first("calls.title")).toBe("शीर्षक");
    expect(first("calls.tab")).toBe("calls.tab");
    expect(missing).toEqual(["hi calls.tab"]);
    browser.addResourceBundle("hi", NAMESPACE, { calls: { tab: "कॉल" } });
    expect(drawn).toBe(1);
    const second = browser.fixedT();
    expect(second).not.toBe(first);
    expect(second("calls.tab")).toBe("कॉल");
    expect(second("calls.title")).toBe("शीर्षक");
    // English strings loaded earlier stand in for a key the language lacks, as i18next's fallback.
    browser.addResourceBundle("en", NAMESPACE, { calls: { empty: "No calls yet." } });
    expect(browser.fixedT()("calls.empty")).toBe("No calls yet.");
    void browser.changeLanguage("ta");
    expect(drawn).toBe(3);
    expect(browser.language).toBe("ta");
    expect(browser.fixedT()("calls.title")).toBe("calls.title");
    stop();
  });
});
