import { testName, type LabSeries, type LabWords } from "~/domain/consultation/index.server";
import { printsOtherName } from "~/domain/records/labs";
import type { LabSeriesView } from "~/types/lab-series";

/**
 * A series as the chart draws it (decisions 0084, 0090): the test named in the reader's language
 * (the clinic's correction where it made one, 0108), the names her reports print when they differ,
 * each point's date in full and short. The patient's report screen and the expert's review screen
 * (before and after a repeat report, 0114) draw with it.
 */
export function seriesView(series: LabSeries[], words: LabWords, locale: string): LabSeriesView[] {
  // A printed date is a day (no time, no zone); an upload is a moment, said as a day in India.
  const day = (style: Intl.DateTimeFormatOptions) => ({
    printed: new Intl.DateTimeFormat(locale, { ...style, timeZone: "UTC" }),
    uploaded: new Intl.DateTimeFormat(locale, { ...style, timeZone: "Asia/Kolkata" }),
  });
  const long = day({ dateStyle: "medium" });
  const short = day({ day: "numeric", month: "short", year: "2-digit" });
  return series.map((s) => {
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
}
