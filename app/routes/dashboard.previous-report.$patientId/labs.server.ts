import type { TFunction } from "i18next";
import { confirmedValues, labSeries, type ApiLabValue } from "~/domain/consultation/index.server";
import type { Actor } from "~/domain/platform/index.server";
import { analyteName, displayUnit } from "~/domain/records/labs";
import type { LabSeriesView } from "~/components/labs/LabValues";

/**
 * A checked value in plain words, against the range printed on the report (decision 0084): her
 * name for the test, the value and unit as printed (the printed range is in that unit), the
 * comparison made on the normalised numbers.
 */
export function plainWords(t: TFunction, v: ApiLabValue, locale: string): string {
  const vars = {
    name: analyteName(v.loinc, v.name, locale),
    value: v.printedValue,
    unit: v.printedUnit ?? displayUnit(v.unit),
    range: v.rangeText ?? "",
  };
  if (v.rangeLow == null && v.rangeHigh == null) return t("labs.noRange", vars);
  if (v.rangeHigh != null && v.value > v.rangeHigh) return t("labs.above", vars);
  if (v.rangeLow != null && v.value < v.rangeLow) return t("labs.below", vars);
  return t("labs.within", vars);
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
