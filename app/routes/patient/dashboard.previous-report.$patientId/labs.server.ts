import type { TFunction } from "i18next";
import {
  confirmedValues,
  labSentence,
  labSeries,
  labWordsFor,
  testNameAsPrinted,
  type ApiLabValue,
  type LabWords,
} from "~/domain/consultation/index.server";
import type { Actor } from "~/domain/platform/index.server";
import { displayUnit, judgementWords, storedMeasure } from "~/domain/records/labs";
import { seriesView } from "~/web/lab-series-view.server";

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
  const series = seriesView(await labSeries(actor, patientId), words, locale);
  return { lines, series, words: words.sentences };
}
