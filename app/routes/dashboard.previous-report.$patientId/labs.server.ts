import type { TFunction } from "i18next";
import { confirmedValues, labSeries, type ApiLabValue } from "~/domain/consultation/index.server";
import type { Actor } from "~/domain/platform/index.server";
import type { LabSeriesView } from "~/components/labs/LabValues";

/** A checked value in plain words, against the range printed on the report (decision 0084). */
export function plainWords(t: TFunction, v: ApiLabValue): string {
  const vars = { name: v.name, value: v.value, unit: v.unit, range: v.rangeText ?? "" };
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
  for (const id of reportIds) lines[id] = (await confirmedValues(actor, id)).map((v) => plainWords(t, v));
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "Asia/Kolkata" });
  const series: LabSeriesView[] = (await labSeries(actor, patientId)).map((s) => ({
    loinc: s.loinc,
    name: s.name,
    unit: s.unit,
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
