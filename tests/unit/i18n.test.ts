import { describe, expect, it } from "vitest";
import { catalogueKeys, catalogueValue } from "../helpers/catalogue";
import en from "~/i18n/locales/en";
import hi from "~/i18n/locales/hi";
import bn from "~/i18n/locales/bn";
import ta from "~/i18n/locales/ta";

const catalogues = { en, hi, bn, ta } as const;

describe("translation catalogues", () => {
  const all = new Set(Object.values(catalogues).flatMap((c) => catalogueKeys(c)));
  for (const [lang, cat] of Object.entries(catalogues)) {
    it(`${lang} has every key any catalogue has`, () => {
      const have = new Set(catalogueKeys(cat));
      const missing = [...all].filter((k) => !have.has(k));
      expect(missing).toEqual([]);
    });
    it(`${lang} has no empty strings and keeps every {{placeholder}}`, () => {
      const flat = (c: object) =>
        Object.fromEntries(catalogueKeys(c).map((k) => [k, catalogueValue(c, k) as string]));
      const mine = flat(cat);
      const base = flat(en);
      for (const k of Object.keys(base)) {
        expect(mine[k], k).toBeTruthy();
        const ph = (s: string) => (s.match(/{{\w+}}/g) ?? []).sort();
        expect(ph(mine[k]), k).toEqual(ph(base[k]));
      }
    });
  }
  it("English keeps the spec's exact wording", () => {
    expect(en.errors.notFound).toBe("Error - 404 the Page you are look is not found");
    expect(en.errors.loginFirstUpload).toBe("Please login first to upload report");
    expect(en.contact.thanks).toBe("Thank you for reaching out!");
    expect(en.footer.copyright).toBe("© {{year}} {{product}}. All rights reserved.");
    expect(en.footer.stayInTouch).toBe("STAY IN TOUCH");
  });
});
