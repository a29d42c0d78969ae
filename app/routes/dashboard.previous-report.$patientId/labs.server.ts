import type { TFunction } from "i18next";
import {
  confirmedValues,
  labSentence,
  labSeries,
  labWordsFor,
  testName,
  testNameAsPrinted,
  type ApiLabValue,
  type LabWords,
} from "~/domain/consultation/index.server";
import type { Actor } from "~/domain/platform/index.server";
import { displayUnit, judgementWords, printsOtherName, storedMeasure } from "~/domain/records/labs";
import type { LabSeriesView } from "~/components/labs/LabValues";

/**
 * A checked value in plain words, against the range printed on the report (decision 0084): her
 * name for the test beside the one her report prints (decision 0090), the value, unit and range as
 * printed; where it stands is its measure's judgement (decision 0088), the one the expert's flag
 * and the FHIR export give — a text result's against its printed reference (decision 0098). The
 * names and sentences are the clinic's corrections where it made one (decision 0108).
 */
export function plainWords(t: TFunction, v: ApiLabValue, locale: string, words: LabWords): string {
  const m = storedMeasure(v);
  const vars = {
    name: testNameAsPrinted(words, v.loinc, v.name, v.printedName, locale),
    // A text result is said as it was checked ("Reactive"), against its printed reference (0098).
    value: m.kind === "text" ? m.text : v.printedValue,
    unit: m.kind === "text" ? "" : (v.printedUnit ?? displayUnit(v.unit)),
    range: v.rangeText ?? "",
  };
  return labSentence(t, words, judgementWords(m, v.rangeText), vars);
}

/**
 * The screen's lab values: plain lines per reviewed report, the series over time, and the clinic's
 * corrections of the sentences the components say (decision 0108).
 */
export async function labsFor(
  actor: Actor,
  patientId: string,
  reportIds: string[],
  t: TFunction,
  locale: string,
) {
  const words = await labWordsFor(locale);
  const lines: Record<string, string[]> = {};
  for (const id of reportIds)
    lines[id] = (await confirmedValues(actor, id)).map((v) => plainWords(t, v, locale, words));
  // A printed date is a day (no time, no zone); an upload is a moment, said as a day in India.
  const day = (style: Intl.DateTimeFormatOptions) => ({
    printed: new Intl.DateTimeFormat(locale, { ...style, timeZone: "UTC" }),
    uploaded: new Intl.DateTimeFormat(locale, { ...style, timeZone: "Asia/Kolkata" }),
  });
  const long = day({ dateStyle: "medium" });
  const short = day({ day: "numeric", month: "short", year: "2-digit" });
  const series: LabSeriesView[] = (await labSeries(actor, patientId)).map((s) => {
    const name = testName(words, s.loinc, s.name, locale);
    // The names her reports print, when they say something else than the one shown.
    const printed = [...new Set(s.points.map((p) => p.printedName.trim()).filter(Boolean))];
    const kinds = new Set(s.points.map((p) => p.dated));
    return {
      loinc: s.loinc,
      name,
      printedAs: printed.some((p) => printsOtherName(p, name))
        ? printed.map((p) => `“${p}”`).join(", ")
        : null,
      unit: s.unitShown,
      dates: kinds.size > 1 ? "mixed" : kinds.has("printed") ? "printed" : "uploaded",
      points: s.points.map((p) => ({
        date: long[p.dated].format(new Date(p.date)),
        axis: short[p.dated].format(new Date(p.date)),
        dated: p.dated,
        value: p.value,
        low: p.rangeLow,
        high: p.rangeHigh,
        range: p.rangeText,
        judgement: p.judgement,
      })),
    };
  });
  return { lines, series, words: words.sentences };
}
