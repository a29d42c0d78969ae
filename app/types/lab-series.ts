/** A lab value series as her screens draw it (the table and the chart), made on the server. */
export type LabPointView = {
  /** The date in full (the table) and short (the axis). */
  date: string;
  axis: string;
  dated: "printed" | "uploaded";
  value: number;
  low: number | null;
  high: number | null;
  range: string | null;
  judgement: "below" | "within" | "above" | "outside" | "unknown";
};
export type LabSeriesView = {
  loinc: string;
  /** Her name for the test (her language, else the catalogue's English). */
  name: string;
  /** The names her reports print, quoted, when they say something else; else null. */
  printedAs: string | null;
  unit: string;
  /** Where the dates come from: printed on every report, uploaded for every one, or both. */
  dates: "printed" | "uploaded" | "mixed";
  points: LabPointView[];
};
