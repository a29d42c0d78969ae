/**
 * The lab words a patient reads, as the clinic checked them (decision 0108): which words there are,
 * and how a sentence's places are filled. Pure and browser-safe (the screens fill a corrected
 * sentence with it); the texts, reviews and corrections are lab-words.server.ts's.
 *
 * A word is a test's name in her language (`name.<LOINC>`) or a sentence of the labs catalogue
 * (`labs.<key>`): the judgements she reads beside each value, the words of her chart, and the flags
 * the expert's list shows beside a value.
 */

/** The languages a clinic reviews (English is the source every other text is beside). */
export const LAB_WORD_LOCALES = ["hi", "bn", "ta"] as const;
export type LabWordLocale = (typeof LAB_WORD_LOCALES)[number];

export const isLabWordLocale = (v: unknown): v is LabWordLocale =>
  typeof v === "string" && (LAB_WORD_LOCALES as readonly string[]).includes(v);

/** The sentences, in the order the admin's screen lists them, by where the patient meets them. */
export const LAB_SENTENCES = {
  judgement: [
    "labs.below",
    "labs.within",
    "labs.above",
    "labs.outside",
    "labs.noRange",
    "labs.notCompared",
    "labs.notComparedOne",
    "labs.textWithin",
    "labs.textOutside",
    "labs.textUnknown",
    "labs.textNoReference",
  ],
  chart: [
    "labs.valuesTitle",
    "labs.seriesTitle",
    "labs.seriesBand",
    "labs.printedAs",
    "labs.bandLabel",
    "labs.bandLabelEach",
    "labs.datesPrinted",
    "labs.datesUploaded",
    "labs.datesMixed",
    "labs.date",
    "labs.value",
    "labs.printedRange",
  ],
  flag: ["labs.flagH", "labs.flagL", "labs.flagN", "labs.flagA", "labs.flagSame"],
} as const;
export type LabWordGroup = keyof typeof LAB_SENTENCES | "name";
export const LAB_WORD_GROUPS: LabWordGroup[] = ["judgement", "chart", "flag", "name"];

/** A test's name as a word: `name.<LOINC>`. */
export const nameWord = (loinc: string) => `name.${loinc}`;

/** The corrected sentences of one language, by key (`labs.below` → the clinic's text). */
export type LabSentences = Record<string, string>;

const PLACE = /\{\{\s*([A-Za-z_]\w*)\s*\}\}/g;

/** The places a sentence fills (`{{name}}`, `{{value}}` …), each once, in the order they come. */
export function placesIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACE)].map((m) => m[1]))];
}

/** The places a sentence fills, each once, sorted (two texts keep the same places when these are equal). */
export const placesOf = (text: string): string[] => placesIn(text).sort();

/**
 * Each place filled with its value as text, as i18next fills a catalogue's sentence (a place with
 * no value is left empty: no `{{name}}` ever reaches a screen).
 */
export function fillPlaces(text: string, values: Record<string, unknown> = {}): string {
  return text.replace(PLACE, (_, name: string) => {
    const v = Object.hasOwn(values, name) ? values[name] : undefined;
    return v === undefined || v === null ? "" : String(v);
  });
}
