import type { TFunction } from "i18next";
import { confirmedValues, labSeries, type ApiLabValue } from "~/domain/consultation/index.server";
import type { Actor } from "~/domain/platform/index.server";
import { analyteName, displayUnit, JUDGEMENT_WORDS, storedMeasure } from "~/domain/records/labs";
import type { LabSeriesView } from "~/components/labs/LabValues";

/**
 * A checked value in plain words, against the range printed on the report (decision 0084): her
 * name for the test, the value, unit and range as printed; where it stands is its measure's
 * judgement (decision 0088), the one the expert's flag and the FHIR export give.
 */
export function plainWords(t: TFunction, v: ApiLabValue, locale: string): string {
  const vars = {
    name: analyteName(v.loinc, v.name, locale),
    value: v.printedValue,
    unit: v.printedUnit ?? displayUnit(v.unit),
    range: v.rangeText ?? "",
  };
  return t(JUDGEMENT_WORDS[storedMeasure(v).judgement], vars);
}

/** The screen's lab values: plain lines per reviewed report, and the series over time. */
export async function labsFor(
  actor: Actor,
  patientId: string,
  reportIds: string[],
  t: TFunction,
  locale: string,
) {
  const lines: Record<string, string[]> = {};
  for (const id of reportIds)
    lines[id] = (await confirmedValues(actor, id)).map((v) => plainWords(t, v, locale));
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "Asia/Kolkata" });
  const series: LabSeriesView[] = (await labSeries(actor, patientId)).map((s) => ({
    loinc: s.loinc,
    name: analyteName(s.loinc, s.name, locale),
    unit: displayUnit(s.unit),
    points: s.points.map((p) => ({
      date: date.format(new Date(p.date)),
      value: p.value,
      low: p.rangeLow,
      high: p.rangeHigh,
      range: p.rangeText,
    })),
  }));
  return { lines, series };
}
