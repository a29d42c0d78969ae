/**
 * The lab-report reader's shapes (decision 0079). Pure data: no I/O, browser-safe.
 */

export type Family =
  | "blood-count"
  | "glucose"
  | "lipids"
  | "liver"
  | "kidney"
  | "electrolytes"
  | "thyroid"
  | "vitamins-iron"
  | "inflammation"
  | "urine"
  | "coagulation"
  | "hormones"
  | "cardiac"
  | "tumour-markers"
  | "serology"
  | "other";

export type Specimen = "blood" | "urine";

/** A unit the analyte may be printed in, with the factor that turns it into the analyte's unit. */
export type AltUnit = { ucum: string; factor: number };

export type Analyte = {
  /** LOINC code (see NOTICE). */
  loinc: string;
  /** Our short English display name. */
  name: string;
  family: Family;
  specimen: Specimen;
  /** The UCUM unit values are normalised to. "1" for a unitless number (ratio, specific gravity). */
  unit: string;
  /** Other UCUM units labs print, each with its factor to `unit`. */
  alt: AltUnit[];
  /**
   * g/mol, for an analyte printed in molar units: their factors are derived from it (`molar`,
   * decision 0088). For a ratio per mmol of creatinine, creatinine's.
   */
  molarMass?: number;
  /** Names labs print (any case and punctuation; matched on a normalised form). */
  aliases: string[];
  /**
   * Values that are physically possible, in `unit`. NOT a reference range: a value outside is a
   * misreading (a dropped decimal point), never a finding. The reader drops such a row.
   */
  possible: [number, number];
  /**
   * The usual adult reference interval, sexes combined, in `unit` (a one-sided marker's "< 35" as
   * [0, 35]); absent for a word result. Never a judgement (only the printed range judges): it says
   * where a printed range and a value belong, so a range or a count multiplier misread is doubted
   * (decision 0106).
   */
  usual?: [number, number];
  /** Decimals a lab usually prints (for tests' generated reports and display). */
  decimals: number;
  /**
   * "ord": a word result ("Non-reactive", "Nil", "Positive"), kept as printed, never a number
   * (decision 0089); its `unit` is "". Absent: a number.
   */
  scale?: "ord";
  /**
   * Never read from a page, only typed by the expert (decision 0098): a blood group's letters
   * ("B Positive") are single capitals the reader takes for a watermark's, so what is left of the
   * row ("Positive") would be a wrong result.
   */
  typedOnly?: true;
};

export type Flag = "H" | "L";

/** One part of a range printed in parts ("Female : 12.0 - 15.5"), as printed, with its bounds. */
export type RangePart = { text: string; low: number | null; high: number | null };

export type PrintedRange = {
  /** The range as printed, whole, e.g. "13.0 - 17.0", "Up to 40" or "M: 13 - 17 F: 12 - 15.5". */
  text: string;
  /** The bounds of the part that applies (the only part, or the one chosen; null: none chosen). */
  low: number | null;
  high: number | null;
  /**
   * A range printed in parts — men and women, adults and children, age bands, the categories of a
   * risk table — each as printed (decision 0089). Absent for a range of one part.
   */
  parts?: RangePart[];
  /** The part that applies to the patient, as printed; null when it could not be chosen. */
  applies?: string | null;
};

export type LabRow = {
  loinc: string;
  analyte: string;
  /** The name as printed on the line. */
  printedName: string;
  /** Value in the analyte's UCUM unit (`unit`). */
  value: number;
  unit: string;
  /**
   * Value and unit exactly as printed; `printedUcum` is the printed unit in UCUM (null: none printed),
   * or the count unit the value was read in where the printed one (or none) did not fit (decision 0106).
   */
  printedValue: string;
  printedUnit: string | null;
  printedUcum: string | null;
  /** The reference range printed on this row, in the printed unit; null when none is printed. */
  range: PrintedRange | null;
  /** The value and the printed range in the analyte's unit, and its judgement (decision 0088). */
  measure: LabMeasure;
  flag: Flag | null;
  /**
   * A word result ("Non Reactive", "Nil"; decision 0089): `printedValue` holds the word as printed,
   * `value` is NaN and `unit` "", and `measure` is a text measure judged against the printed
   * reference word only where that is certain (decision 0098).
   */
  word?: true;
  /** "printed": the report's own flag; "computed": from the printed range only; null: neither. */
  flagSource: "printed" | "computed" | null;
  lineIndex: number;
  /** 0..1; at or above CONFIDENT the reader vouches for the number (an expert still confirms it). */
  confidence: number;
  /** Why the confidence is below its maximum (for the expert's review and the bench). */
  doubts: string[];
};

export type RejectedRow = { lineIndex: number; printedName: string; reason: string };

export type Recognised = { rows: LabRow[]; rejected: RejectedRow[] };

/** The confidence at and above which a value counts as read with confidence. */
export const CONFIDENT = 0.9;

/**
 * Where the value stands against the range printed beside it; "unknown": no range was printed (or,
 * for a text result, the words do not say for certain). "outside": a text result that is not its
 * printed reference ("Reactive" against "Non-reactive"; decision 0098).
 */
export type Judgement = "below" | "within" | "above" | "outside" | "unknown";

/** HL7 v3 ObservationInterpretation: Low, Normal (within the printed range), High, Abnormal. */
export type Interpretation = "L" | "N" | "H" | "A";

declare const measured: unique symbol;

/** What every measure says: its judgement, as FHIR and the screens say it (decision 0088). */
type Judged = {
  readonly judgement: Judgement;
  /** FHIR `Observation.interpretation`; null when nothing is judged. */
  readonly interpretation: Interpretation | null;
  /** The screens' flag: H above, L below; null within the range, without one, or for a text result. */
  readonly flag: Flag | null;
  /** Made only by `printedMeasure`, `wordMeasure` and `storedMeasure`: never judged anywhere else. */
  readonly [measured]: true;
};

/** A lab value and its printed range in one unit, and the one judgement (decision 0088; measure.ts). */
export type NumberMeasure = Judged & {
  readonly kind: "number";
  /** The value in `unit`. */
  readonly value: number;
  /** The analyte's UCUM unit: the value's and the range's. */
  readonly unit: string;
  /** The printed range's bounds in `unit` (null: that side was not printed). */
  readonly low: number | null;
  readonly high: number | null;
  readonly text?: never;
  readonly reference?: never;
};

/**
 * A text result ("Reactive", "Nil", "++", "1:80") and the reference printed beside it as text
 * ("Non-reactive", "Negative"): never a number, never a unit (decision 0098).
 */
export type TextMeasure = Judged & {
  readonly kind: "text";
  /** The result as printed or typed. */
  readonly text: string;
  /** The printed reference as text; null when none was printed. */
  readonly reference: string | null;
  readonly value?: never;
  readonly unit?: never;
  readonly low?: never;
  readonly high?: never;
};

/** A number with its unit, or a text result: never both (decisions 0088, 0098). */
export type LabMeasure = NumberMeasure | TextMeasure;
