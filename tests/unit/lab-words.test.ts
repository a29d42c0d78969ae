import { describe, expect, it } from "vitest";
import { fillPlaces, LAB_SENTENCES, LAB_WORD_LOCALES, placesOf } from "~/domain/consultation/lab-words";
import { LANGUAGE_NAME_KEYS, SUPPORTED_LOCALES } from "~/i18n/config";
import { getT } from "~/i18n/i18n.server";
import labsBn from "~/i18n/locales/sections/labs.bn";
import labsEn from "~/i18n/locales/sections/labs.en";
import labsHi from "~/i18n/locales/sections/labs.hi";
import labsTa from "~/i18n/locales/sections/labs.ta";
import { zoneName } from "~/lib/format";

/*
 * The lab words a patient reads (decision 0108): every sentence the admin's screen lists is one of
 * the labs catalogue's in every language, keeps the English sentence's places, and a correction is
 * filled exactly as i18next fills the catalogue's text (so a corrected sentence reads like the
 * rest). A language inside a sentence and the clinic's time zone are named in words of the screen's
 * language.
 */

const LABS = { en: labsEn, hi: labsHi, bn: labsBn, ta: labsTa } as Record<string, Record<string, string>>;
const sentences = Object.values(LAB_SENTENCES).flat();
const values = { name: "हीमोग्लोबिन (Hb)", value: "9.8", unit: "g/dL", range: "12.0-15.5", names: "“Hb”" };

describe("the lab words listed for review", () => {
  it("are sentences of the labs catalogue, in every language, each keeping the English places", () => {
    for (const key of sentences) {
      const english = LABS.en[key.slice("labs.".length)];
      expect(typeof english, key).toBe("string");
      for (const lng of LAB_WORD_LOCALES) {
        const own = LABS[lng][key.slice("labs.".length)];
        expect(typeof own, `${lng} ${key}`).toBe("string");
        expect(placesOf(own), `${lng} ${key}`).toEqual(placesOf(english));
      }
    }
  });

  it("a sentence's places are filled as i18next fills them, and none is ever left as {{…}}", async () => {
    for (const lng of ["en", ...LAB_WORD_LOCALES] as const) {
      const t = await getT(lng);
      for (const key of sentences) {
        const text = LABS[lng][key.slice("labs.".length)];
        expect(fillPlaces(text, values), `${lng} ${key}`).toBe(t(key, values));
      }
    }
    expect(fillPlaces("{{name}} — {{range}}", { name: "Hb" })).toBe("Hb — ");
    expect(placesOf("{{ value }} {{name}} {{value}}")).toEqual(["name", "value"]);
  });
});

describe("names inside a sentence, in the screen's language", () => {
  it("every language has a name in every other, none of them English on a Hindi, Bengali or Tamil screen", async () => {
    const en = await getT("en");
    for (const lng of LAB_WORD_LOCALES) {
      const t = await getT(lng);
      for (const code of SUPPORTED_LOCALES) {
        const name = t(LANGUAGE_NAME_KEYS[code]);
        expect(name, `${lng} ${code}`).not.toBe(en(LANGUAGE_NAME_KEYS[code]));
        expect(name, `${lng} ${code}`).not.toMatch(/[A-Za-z]/);
      }
    }
  });

  it("the clinic's time zone is named in words, never by its IANA id", () => {
    expect(zoneName("Asia/Kolkata", "en")).toBe("India Standard Time");
    expect(zoneName("Asia/Kolkata", "hi")).toBe("भारतीय मानक समय");
    for (const lng of ["hi", "bn", "ta"]) {
      expect(zoneName("Asia/Kolkata", lng), lng).not.toMatch(/[A-Za-z]/);
      expect(zoneName("Europe/Berlin", lng), lng).not.toMatch(/Europe|Berlin/);
    }
    // A zone a language knows only as an offset keeps its id, never "GMT+03:00".
    expect(zoneName("Etc/GMT-3", "en")).toBe("Etc/GMT-3");
    expect(zoneName("Not/AZone", "hi")).toBe("Not/AZone");
  });
});
