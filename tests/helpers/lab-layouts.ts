/**
 * Layouts of the lab-report corpus made in code (decision 0089): how Indian lab software and
 * lab chains lay a report out — letterheads, patient blocks and their dates, column orders and
 * headers, fonts (a dot-matrix Courier, Times, Helvetica), flags in their own column, after the
 * value or before it, status words, two columns, pages with repeated headers, watermarks, words
 * of the letterhead inside the rows, Hindi-English headers and names, notes and risk tables with
 * numbers that are not results. Every lab, doctor and patient here is made up.
 */
import * as P from "./lab-panels";
import type { Row } from "./lab-panels";

export type Column = "name" | "method" | "value" | "flag" | "status" | "unit" | "range";
export type FontName = "Helvetica" | "Times-Roman" | "Courier" | "Noto";

/** A section of rows under its title ("": no title printed). */
export type Section = { title: string; hindi?: string; rows: Row[]; notes?: string[] };

export type LayoutSpec = {
  lab: string;
  /** Lines under the lab's name (address, accreditation). */
  sub: string[];
  font: FontName;
  size: number;
  columns: Column[];
  /** Column x positions as fractions of the usable width; empty: placed by what the columns hold. */
  at: number[];
  heads: string[];
  /** The patient's block; `sex` and `age` are what the platform has recorded of her. */
  patient: { lines: string[]; sex: "female" | "male" | null; age: number | null };
  /** The sample's collection (or report) date the header prints, as ISO. */
  sampleDate: string;
  sections: Section[];
  /** How a printed flag is shown when there is no flag column ("none": not printed). */
  flags?: "after" | "before" | "arrow" | "star" | "paren" | "none";
  /** The words a flag is printed with, after the value or in its column (default "H" and "L"). */
  flagWords?: { H: string; L: string };
  /** A row's method printed on its own line under the name, "{}" standing for the method. */
  methodLine?: string;
  /** The table breaks to a second page after this many rows, its column heads repeated there. */
  breakAt?: number;
  /** With `breakAt`: the second page repeats the letterhead and patient block. */
  repeatLetterhead?: boolean;
  /** With `breakAt`: the continued section's title again, with this after it ("(Contd.)"). */
  contd?: string;
  /** The watermark's angle, grey and size (default -25°, #d9d9d9, 48 pt). */
  watermarkStyle?: { angle: number; grey: string; size: number };
  /** The lab's name: its size and whether it is centred (default 15 pt, at the left). */
  letterhead?: { size: number; centre: boolean };
  twoColumn?: boolean;
  /** Two pages, the letterhead, patient block and column heads repeated on the second. */
  pages?: 2;
  /** A light diagonal word across the page, in the text layer. */
  watermark?: string;
  /** Words of the letterhead printed down the right margin, on the rows' lines. */
  sideWords?: string[];
  /** "Name :" with a colon after the name. */
  colon?: boolean;
  /** The range printed in brackets. */
  brackets?: "()" | "[]";
  upper?: boolean;
  /** Hindi names: before the English one ("हीमोग्लोबिन / Haemoglobin") or after it. */
  hindi?: "before" | "after";
  /** Hindi-English column heads and section titles. */
  bilingualHeads?: boolean;
  footer?: string[];
};

const FOUR: Column[] = ["name", "value", "unit", "range"];
const FOUR_AT = [0, 0.42, 0.58, 0.75];
const HEADS_A = ["Test Name", "Result", "Unit", "Bio. Ref. Interval"];
const HEADS_B = ["Investigation", "Observed Value", "Unit", "Biological Reference Interval"];
const HEADS_C = ["TEST", "RESULT", "UNITS", "NORMAL RANGE"];
const HEADS_D = ["Parameter", "Value", "Units", "Reference Range"];

const woman = (age: number, name = "Mrs. Sunita Verma") => ({
  lines: [`Patient Name : ${name}`, `Age / Sex : ${age} Years / Female`, "Ref. By : Dr. A. K. Mehta"],
  sex: "female" as const,
  age,
});
const man = (age: number, name = "Mr. Rajesh Kumar") => ({
  lines: [`Patient Name : ${name}`, `Age / Sex : ${age} Years / Male`, "Referred By : Self"],
  sex: "male" as const,
  age,
});
const child = (age: number) => ({
  lines: ["Patient Name : Master Aarav Singh", `Age / Gender : ${age} Y / M`, "Ref. Doctor : Dr. P. Nair"],
  sex: "male" as const,
  age,
});

const base = (
  o: Partial<LayoutSpec> & Pick<LayoutSpec, "lab" | "sections" | "sampleDate" | "patient">,
): LayoutSpec => ({
  sub: ["Plot 12, Sector 4, Main Road", "NABL accredited laboratory"],
  font: "Helvetica",
  size: 9,
  columns: FOUR,
  at: FOUR_AT,
  heads: HEADS_A,
  ...o,
});

/** The layouts beyond the first four (which lab-corpus.ts draws as it always has). */
export const SPECS: Record<string, LayoutSpec> = {
  "cumm-units": base({
    lab: "Shree Sai Pathology Lab",
    patient: woman(34),
    sampleDate: "2025-03-12",
    sub: ["Opp. Civil Hospital, Station Road", "Ph: 0257-2234567"],
    heads: HEADS_B,
    sections: [{ title: "HAEMATOLOGY - COMPLETE BLOOD COUNT", rows: P.CBC_CUMM }],
  }),
  differential: base({
    lab: "Lifeline Diagnostics",
    patient: man(46),
    sampleDate: "2025-01-07",
    sections: [{ title: "DIFFERENTIAL LEUCOCYTE COUNT", rows: P.DIFFERENTIAL }],
  }),
  "platelet-indices": base({
    lab: "CarePlus Path Labs",
    patient: woman(29, "Ms. Kavya Rao"),
    sampleDate: "2024-11-23",
    heads: HEADS_D,
    sections: [{ title: "Platelet Indices", rows: P.PLATELET_INDICES }],
  }),
  "status-word": base({
    lab: "Medilab Diagnostic Centre",
    patient: man(52),
    sampleDate: "2025-02-18",
    columns: ["name", "value", "status", "unit", "range"],
    at: [0, 0.36, 0.48, 0.62, 0.76],
    heads: ["Test", "Result", "Status", "Unit", "Reference Range"],
    sections: [{ title: "LIPID PROFILE", rows: P.LIPIDS_WORDS }],
  }),
  "flag-before": base({
    lab: "Apex Clinical Laboratory",
    patient: man(61),
    sampleDate: "2025-04-02",
    flags: "before",
    sections: [{ title: "KIDNEY FUNCTION TEST", rows: P.KIDNEY_RATIOS }],
  }),
  "arrows-critical": base({
    lab: "Sunrise Diagnostics",
    patient: man(67),
    sampleDate: "2025-05-30",
    flags: "arrow",
    columns: ["name", "value", "status", "unit", "range"],
    at: [0, 0.36, 0.48, 0.62, 0.76],
    heads: ["Test", "Result", "", "Unit", "Ref. Range"],
    sections: [{ title: "SERUM ELECTROLYTES", rows: P.ELECTROLYTES_MEQ }],
  }),
  "star-flags": base({
    lab: "Precision Path Lab",
    patient: woman(38),
    sampleDate: "2025-06-14",
    flags: "star",
    sections: [{ title: "THYROID PROFILE", rows: P.THYROID_ROWS }],
  }),
  "paren-flags": base({
    lab: "City Care Laboratory",
    patient: man(55),
    sampleDate: "2024-12-03",
    flags: "paren",
    heads: HEADS_C,
    upper: true,
    sections: [{ title: "LIVER FUNCTION TEST", rows: P.LIVER_UI }],
  }),
  "spaced-units": base({
    lab: "Healthwise Labs",
    patient: man(44),
    sampleDate: "2025-03-01",
    sections: [{ title: "LIPID PROFILE", rows: P.LIPIDS_PLAIN }],
  }),
  "words-ranges": base({
    lab: "Nova Diagnostics",
    patient: woman(49),
    sampleDate: "2025-07-21",
    heads: HEADS_B,
    sections: [{ title: "BIOCHEMISTRY", rows: P.WORD_RANGES }],
  }),
  "sex-one-line": base({
    lab: "Arogya Pathology",
    patient: woman(41),
    sampleDate: "2025-08-09",
    sections: [{ title: "HAEMATOLOGY & BIOCHEMISTRY", rows: P.SEX_RANGES_ONE_LINE }],
  }),
  "sex-lines": base({
    lab: "Metro Health Labs",
    patient: man(58),
    sampleDate: "2025-09-16",
    heads: HEADS_B,
    sections: [{ title: "CLINICAL BIOCHEMISTRY", rows: P.SEX_RANGES_LINES }],
  }),
  "age-bands": base({
    lab: "Little Stars Child Health Lab",
    patient: child(9),
    sampleDate: "2025-10-04",
    sections: [{ title: "BIOCHEMISTRY", rows: P.AGE_BANDS }],
  }),
  "no-choice": base({
    lab: "Swasthya Diagnostic Centre",
    patient: {
      lines: ["Name : S. Patil", "Age : --", "Collected at : Home collection"],
      sex: null,
      age: null,
    },
    sampleDate: "2025-02-27",
    sections: [{ title: "BIOCHEMISTRY", rows: P.NO_CHOICE }],
  }),
  "risk-categories": base({
    lab: "Wellness Path Labs",
    patient: man(50),
    sampleDate: "2025-11-11",
    heads: HEADS_B,
    sections: [
      {
        title: "DIABETES & LIPID SCREEN",
        rows: P.RISK_CATEGORIES,
        notes: [
          "Interpretation (as per ADA guidelines):",
          "HbA1c 5.7 - 6.4 % indicates increased risk; 6.5 % or more on two occasions indicates diabetes.",
        ],
      },
    ],
  }),
  "interpretation-table": base({
    lab: "Genesis Diagnostics",
    patient: woman(57),
    sampleDate: "2025-01-19",
    sections: [
      {
        title: "GLUCOSE",
        rows: P.GLUCOSE_ROWS,
        notes: [
          "Interpretation:",
          "Glycosylated Haemoglobin (HbA1c)      Non-diabetic  < 5.7      Pre-diabetic  5.7 - 6.4",
          "Fasting Blood Sugar     Normal  70 - 100     Impaired  100 - 125     Diabetic  >= 126",
          "Note: Post Prandial Blood Sugar above 200 mg/dL on two occasions suggests diabetes.",
        ],
      },
    ],
  }),
  "value-below": base({
    lab: "Trident Laboratories",
    patient: woman(63),
    sampleDate: "2025-04-25",
    columns: ["name", "value", "unit", "range"],
    at: [0, 0.5, 0.63, 0.78],
    sections: [{ title: "SPECIAL CHEMISTRY", rows: P.BELOW }],
  }),
  "dot-matrix": base({
    lab: "SHRI GANESH PATHOLOGY LABORATORY",
    patient: man(72, "Mr. Hari Prasad"),
    sampleDate: "2025-05-08",
    font: "Courier",
    size: 8.5,
    colon: true,
    brackets: "[]",
    upper: true,
    heads: ["TEST", "RESULT", "UNIT", "REFERENCE"],
    sections: [{ title: "HAEMATOLOGY / BIOCHEMISTRY", rows: P.MIXED_PANEL }],
  }),
  "colon-brackets": base({
    lab: "Sanjeevani Hospital Laboratory",
    patient: woman(36),
    sampleDate: "2025-06-30",
    font: "Times-Roman",
    size: 10,
    colon: true,
    brackets: "()",
    sections: [{ title: "Liver Function Test", rows: P.LOWER_CASE_LFT }],
  }),
  "method-column": base({
    lab: "Accurate Diagnostics",
    patient: woman(45),
    sampleDate: "2025-07-05",
    columns: ["name", "method", "value", "unit", "range"],
    at: [0, 0.3, 0.5, 0.62, 0.76],
    heads: ["Test", "Method", "Result", "Unit", "Ref. Range"],
    sections: [{ title: "BLOOD GLUCOSE", rows: P.DIABETES_ROWS }],
  }),
  "si-units": base({
    lab: "International Medical Laboratory",
    patient: man(39),
    sampleDate: "2025-08-22",
    heads: HEADS_D,
    sections: [{ title: "Chemistry (SI units)", rows: P.KIDNEY_SI }],
  }),
  "two-column-cbc": base({
    lab: "Pulse Diagnostics",
    patient: man(33),
    sampleDate: "2025-09-03",
    twoColumn: true,
    size: 8,
    sections: [
      { title: "HAEMOGRAM", rows: P.CBC_SI.slice(0, 5) },
      { title: "DIFFERENTIAL", rows: P.CBC_SI.slice(5) },
    ],
  }),
  "two-column-chem": base({
    lab: "Prime Path Labs",
    patient: woman(47),
    sampleDate: "2025-10-15",
    twoColumn: true,
    size: 8,
    sections: [
      { title: "IRON STUDIES", rows: P.IRON_VITAMINS },
      { title: "COAGULATION", rows: P.COAGULATION_ROWS },
    ],
  }),
  "repeated-headers": base({
    lab: "Orbit Diagnostic Services",
    patient: woman(31, "Mrs. Neha Joshi"),
    sampleDate: "2025-11-28",
    pages: 2,
    sections: [
      { title: "COMPLETE BLOOD COUNT", rows: P.CBC_CUMM.slice(0, 6) },
      { title: "DIFFERENTIAL COUNT", rows: P.DIFFERENTIAL.slice(0, 5) },
      { title: "PLATELET INDICES", rows: P.PLATELET_INDICES.slice(1) },
    ],
    footer: ["Continued on next page"],
  }),
  watermark: base({
    lab: "Vital Diagnostics",
    patient: man(42),
    sampleDate: "2025-12-06",
    watermark: "VITAL DIAGNOSTICS",
    sections: [{ title: "KIDNEY FUNCTION TEST", rows: P.KIDNEY_RATIOS.slice(0, 6) }],
  }),
  "side-letterhead": base({
    lab: "Spectrum Labs",
    patient: woman(53),
    sampleDate: "2025-03-19",
    sideWords: ["NABL", "ISO", "9001", "CAP", "Quality", "Care", "24x7", "Home", "Collection", "Reports"],
    sections: [
      { title: "THYROID PROFILE", rows: P.THYROID_ROWS },
      { title: "HORMONES", rows: P.HORMONE_ROWS },
    ],
  }),
  "bilingual-names": base({
    lab: "Jan Swasthya Prayogshala",
    patient: woman(27, "Smt. Radha Devi"),
    sampleDate: "2025-02-11",
    hindi: "before",
    bilingualHeads: true,
    at: [0, 0.46, 0.6, 0.76],
    sections: [{ title: "COMPLETE BLOOD COUNT", hindi: "पूर्ण रक्त गणना", rows: P.CBC_CUMM.slice(0, 5) }],
  }),
  "bilingual-after": base({
    lab: "Rajya Swasthya Kendra Lab",
    patient: man(48, "Shri Mohan Lal"),
    sampleDate: "2025-04-16",
    hindi: "after",
    bilingualHeads: true,
    at: [0, 0.46, 0.6, 0.76],
    sections: [{ title: "COMPLETE BLOOD COUNT", hindi: "पूर्ण रक्त गणना", rows: P.CBC_CUMM.slice(0, 5) }],
  }),
  serology: base({
    lab: "Safe Blood Lab",
    patient: woman(26),
    sampleDate: "2025-05-22",
    heads: HEADS_B,
    sections: [{ title: "SEROLOGY / IMMUNOLOGY", rows: P.SEROLOGY }],
  }),
  "urine-routine": base({
    lab: "Nirmal Pathology",
    patient: man(37),
    sampleDate: "2025-06-08",
    sections: [{ title: "URINE ROUTINE EXAMINATION", rows: P.URINE_ROWS }],
  }),
  "cardiac-tumour": base({
    lab: "Heartline Labs",
    patient: man(64),
    sampleDate: "2025-07-27",
    heads: HEADS_D,
    sections: [{ title: "CARDIAC & TUMOUR MARKERS", rows: P.CARDIAC_TUMOUR }],
  }),
  "iron-coag": base({
    lab: "Mediscan Laboratory",
    patient: woman(44),
    sampleDate: "2025-08-30",
    font: "Times-Roman",
    size: 9.5,
    sections: [
      { title: "Iron Studies", rows: P.IRON_VITAMINS.slice(0, 5) },
      { title: "Coagulation Profile", rows: P.COAGULATION_ROWS },
    ],
  }),
};
