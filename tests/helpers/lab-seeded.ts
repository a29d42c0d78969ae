/**
 * Layouts of the lab-report corpus drawn from a seed (decision 0107): every property of a layout
 * drawn on its own from the seed, the layout's number and the property's name, so that a corpus
 * cannot be learnt by heart and any failure is made again from its seed. Drawn: the lab's
 * letterhead, the patient, the sample's date and how it is printed, fonts and sizes, which columns
 * there are and in what order (no unit column: the unit printed inside the range; a flag column
 * or a status column, or the flag before or after the value in one of its words), column heads,
 * section titles or none, method lines under the names, names with their abbreviation in brackets,
 * thousands separators, leading zeros, ranges in words, one-sided, in parts by sex (on one line
 * or several), by age and by risk, a watermark, a page break inside the table, two columns, notes;
 * for scans and photos their resolution, angle, blur, light and noise. The values are drawn too,
 * each below, within or above the part of its range that applies to the patient, with the truth
 * the reader is scored on: the value as printed, the range as printed whole, the judgement.
 *
 * Rows are made from the ways Indian lab software prints each test (names, unit spellings,
 * reference intervals), the same knowledge as lab-panels.ts; every lab and patient is made up.
 */
import type { Truth } from "./lab-corpus";
import type { Column, FontName, LayoutSpec, Section } from "./lab-layouts";
import type { Row } from "./lab-panels";
import { columnsFit, extraLines } from "./lab-render";

// ---------------------------------------------------------------------------------------------
// Seeded draws.

/** FNV-1a of the parts: one stream per seed, layout and property. */
function hash(parts: (string | number)[]): number {
  let h = 2166136261;
  for (const ch of parts.join("\u0001")) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** mulberry32: a small PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Draw {
  private readonly next: () => number;
  constructor(parts: (string | number)[]) {
    this.next = prng(hash(parts));
  }
  float = (lo = 0, hi = 1) => lo + (hi - lo) * this.next();
  chance = (p: number) => this.next() < p;
  int = (lo: number, hi: number) => lo + Math.floor(this.next() * (hi - lo + 1));
  pick = <T>(xs: readonly T[]): T => xs[Math.floor(this.next() * xs.length)]!;
  weighted = <T>(xs: readonly [T, number][]): T => {
    let u = this.next() * xs.reduce((s, [, w]) => s + w, 0);
    for (const [x, w] of xs) if ((u -= w) < 0) return x;
    return xs[xs.length - 1]![0];
  };
  /** Some of the list, in its order: each kept with probability p, at least `min`. */
  some = <T>(xs: readonly T[], p: number, min: number): T[] => {
    const keep = xs.map(() => this.next() < p);
    while (keep.filter(Boolean).length < Math.min(min, xs.length)) keep[this.int(0, xs.length - 1)] = true;
    return xs.filter((_, i) => keep[i]);
  };
}

// ---------------------------------------------------------------------------------------------
// The tests a report can hold.

/** A reference interval in the printed unit: [low, high], either open (null). */
type Band = [number | null, number | null];

type Test = {
  /** The catalogue's name of the analyte. */
  a: string;
  names: string[];
  /** The name with its abbreviation in brackets ("Potassium (K+)"). */
  bracketed?: string[];
  units: string[];
  /** Decimals of the value, and of the range when they differ. */
  dp: number;
  rdp?: number;
  ref: Band;
  /** Parts for men and for women. */
  sex?: { m: Band; f: Band };
  /** Parts for adults and children (the seeded patients are adults). */
  child?: Band;
  /** Risk categories, the first the one that applies ("Desirable: < 200"). */
  risk?: [string, Band][];
  /** A count, printed with thousands separators when the layout uses them. */
  count?: number;
  method?: string[];
};

const t = (
  a: string,
  names: string[],
  units: string[],
  dp: number,
  ref: Band,
  o: Partial<Test> = {},
): Test => ({
  a,
  names,
  units,
  dp,
  ref,
  ...o,
});

type Panel = { titles: string[]; tests: (Test | Test[])[] };

const CBC: Panel = {
  titles: ["COMPLETE BLOOD COUNT", "HAEMATOLOGY", "Complete Blood Count (CBC)", "HAEMOGRAM"],
  tests: [
    t("Haemoglobin", ["Haemoglobin", "Hemoglobin", "Hb"], ["g/dL", "gm/dl"], 1, [12.0, 15.5], {
      bracketed: ["Haemoglobin (Hb)", "Hemoglobin (HGB)"],
      sex: { m: [13.0, 17.0], f: [12.0, 15.5] },
      method: ["Cyanmethemoglobin", "SLS Method", "Photometry"],
    }),
    t("Haematocrit", ["PCV", "Haematocrit", "Hematocrit"], ["%"], 1, [36, 46], {
      rdp: 0,
      bracketed: ["Packed Cell Volume (PCV)", "Hematocrit (HCT)"],
      sex: { m: [40, 50], f: [36, 46] },
      method: ["Calculated", "Electronic Pulse"],
    }),
    t(
      "Red blood cell count",
      ["RBC Count", "Total RBC Count"],
      ["million/cu.mm", "mill/cumm"],
      2,
      [3.8, 4.8],
      {
        rdp: 1,
        bracketed: ["Red Blood Cell Count (RBC)"],
        sex: { m: [4.5, 5.5], f: [3.8, 4.8] },
        method: ["Electrical Impedance"],
      },
    ),
    [
      t(
        "White blood cell count",
        ["Total Leucocyte Count", "Total WBC Count"],
        ["/cumm", "cells/cumm"],
        0,
        [4000, 11000],
        {
          bracketed: ["Total Leucocyte Count (TLC)", "White Blood Cells (WBC)"],
          count: 100,
          method: ["Flow Cytometry", "Electrical Impedance"],
        },
      ),
      t("White blood cell count", ["WBC", "Total WBC Count"], ["10^3/uL"], 1, [4.0, 10.0], {
        bracketed: ["White Blood Cells (WBC)"],
      }),
    ],
    [
      t("Platelet count", ["Platelet Count", "Platelets"], ["lakhs/cumm"], 2, [1.5, 4.1], {
        rdp: 1,
        bracketed: ["Platelet Count (PLT)"],
        method: ["Electrical Impedance"],
      }),
      t("Platelet count", ["Platelet Count"], ["/cumm", "cells/mcL"], 0, [150000, 410000], {
        bracketed: ["Platelet Count (PLT)"],
        count: 1000,
      }),
      t("Platelet count", ["Platelets", "Platelet Count"], ["10^3/uL"], 0, [150, 410]),
    ],
    t("MCV", ["MCV"], ["fL"], 1, [83, 101], { rdp: 0, bracketed: ["Mean Corpuscular Volume (MCV)"] }),
    t("MCH", ["MCH"], ["pg"], 1, [27, 32], { rdp: 0, bracketed: ["Mean Corpuscular Hb (MCH)"] }),
    t("MCHC", ["MCHC"], ["g/dL"], 1, [31.5, 34.5], { bracketed: ["Mean Corpuscular Hb Conc. (MCHC)"] }),
    t("RDW-CV", ["RDW-CV"], ["%"], 1, [11.6, 14.0]),
    t("ESR", ["ESR"], ["mm/hr", "mm/1st hr"], 0, [0, 20], {
      bracketed: ["Erythrocyte Sedimentation Rate (ESR)"],
      sex: { m: [0, 15], f: [0, 20] },
      method: ["Westergren"],
    }),
  ],
};

const DIFFERENTIAL: Panel = {
  titles: ["DIFFERENTIAL LEUCOCYTE COUNT", "Differential Count", "DLC"],
  tests: [
    t("Neutrophils %", ["Neutrophils"], ["%"], 0, [40, 80]),
    t("Lymphocytes %", ["Lymphocytes"], ["%"], 0, [20, 40]),
    t("Eosinophils %", ["Eosinophils"], ["%"], 0, [1, 6]),
    t("Monocytes %", ["Monocytes"], ["%"], 0, [2, 10]),
    t("Basophils %", ["Basophils"], ["%"], 0, [0, 2]),
    t("Neutrophils absolute", ["Absolute Neutrophil Count"], ["/cumm"], 0, [2000, 7000], {
      bracketed: ["Absolute Neutrophil Count (ANC)"],
      count: 10,
    }),
    t("Lymphocytes absolute", ["Absolute Lymphocyte Count"], ["/cumm"], 0, [1000, 3000], {
      bracketed: ["Absolute Lymphocyte Count (ALC)"],
      count: 10,
    }),
  ],
};

const LIVER: Panel = {
  titles: ["LIVER FUNCTION TEST", "Liver Function Test (LFT)", "BIOCHEMISTRY"],
  tests: [
    t("Bilirubin total", ["Bilirubin Total", "Total Bilirubin"], ["mg/dL", "mg/dl"], 2, [0.2, 1.2], {
      rdp: 1,
      method: ["Diazo", "DPD"],
    }),
    t("Bilirubin direct", ["Bilirubin Direct", "Direct Bilirubin"], ["mg/dL", "mg/dl"], 2, [null, 0.3], {
      method: ["Diazo"],
    }),
    t("AST (SGOT)", ["SGOT", "AST"], ["U/L", "IU/L"], 0, [null, 40], {
      bracketed: ["Aspartate Aminotransferase (SGOT)", "SGOT (AST)"],
      method: ["IFCC without P5P", "Kinetic"],
    }),
    t("ALT (SGPT)", ["SGPT", "ALT"], ["U/L", "IU/L"], 0, [null, 41], {
      bracketed: ["Alanine Aminotransferase (SGPT)", "SGPT (ALT)"],
      method: ["IFCC without P5P", "Kinetic"],
    }),
    t("Alkaline phosphatase", ["Alkaline Phosphatase", "Alk. Phosphatase"], ["U/L", "IU/L"], 0, [40, 129], {
      bracketed: ["Alkaline Phosphatase (ALP)"],
      child: [100, 400],
      method: ["PNPP-AMP"],
    }),
    t("GGT", ["Gamma GT", "GGT"], ["U/L"], 0, [null, 38], {
      bracketed: ["Gamma Glutamyl Transferase (GGT)"],
      sex: { m: [null, 55], f: [null, 38] },
    }),
    t("Total protein", ["Total Protein", "Total Proteins"], ["g/dL", "gm/dl"], 1, [6.4, 8.3], {
      method: ["Biuret"],
    }),
    t("Albumin", ["Albumin"], ["g/dL", "gm/dl"], 1, [3.5, 5.2], { method: ["BCG"] }),
    t("Globulin", ["Globulin"], ["g/dL", "gm/dl"], 1, [2.0, 3.5], { method: ["Calculated"] }),
    t("Albumin/globulin ratio", ["A/G Ratio"], [""], 2, [1.0, 2.0], { rdp: 1 }),
  ],
};

const KIDNEY: Panel = {
  titles: ["KIDNEY FUNCTION TEST", "Renal Function Test", "CLINICAL BIOCHEMISTRY"],
  tests: [
    t("Urea", ["Blood Urea", "Urea", "Serum Urea"], ["mg/dL"], 1, [17, 43], {
      rdp: 0,
      method: ["Urease-GLDH"],
    }),
    t("Urea nitrogen (BUN)", ["Blood Urea Nitrogen", "BUN"], ["mg/dL"], 1, [8.0, 20.0], {
      bracketed: ["Blood Urea Nitrogen (BUN)"],
      method: ["Calculated"],
    }),
    t(
      "Creatinine",
      ["Serum Creatinine", "Creatinine", "S. Creatinine"],
      ["mg/dL", "mg/dl"],
      2,
      [0.55, 1.02],
      {
        sex: { m: [0.7, 1.3], f: [0.55, 1.02] },
        method: ["Jaffe's Kinetic", "Enzymatic"],
      },
    ),
    t("Uric acid", ["Uric Acid", "Serum Uric Acid"], ["mg/dL"], 1, [2.6, 6.0], {
      sex: { m: [3.5, 7.2], f: [2.6, 6.0] },
      method: ["Uricase"],
    }),
    t("Calcium", ["Calcium", "Serum Calcium"], ["mg/dL"], 1, [8.6, 10.3], {
      bracketed: ["Calcium (Ca)"],
      method: ["Arsenazo III"],
    }),
    t("Phosphorus", ["Phosphorus"], ["mg/dL"], 1, [2.5, 4.5], { method: ["Molybdate UV"] }),
    t("Sodium", ["Sodium", "Serum Sodium"], ["mmol/L", "mEq/L"], 0, [136, 145], {
      bracketed: ["Sodium (Na+)"],
      method: ["ISE Direct", "ISE Indirect"],
    }),
    t("Potassium", ["Potassium", "Serum Potassium"], ["mmol/L", "mEq/L"], 1, [3.5, 5.1], {
      bracketed: ["Potassium (K+)"],
      method: ["ISE Direct", "ISE Indirect"],
    }),
    t("Chloride", ["Chloride", "Serum Chloride"], ["mmol/L", "mEq/L"], 0, [98, 107], {
      bracketed: ["Chloride (Cl-)"],
      method: ["ISE Direct"],
    }),
  ],
};

const LIPIDS: Panel = {
  titles: ["LIPID PROFILE", "Lipid Profile", "LIPID PROFILE (FASTING)"],
  tests: [
    t(
      "Total cholesterol",
      ["Total Cholesterol", "Cholesterol Total", "Serum Cholesterol"],
      ["mg/dL", "mg/dl"],
      0,
      [null, 200],
      {
        risk: [
          ["Desirable", [null, 200]],
          ["Borderline", [200, 239]],
          ["High", [240, null]],
        ],
        method: ["CHOD-PAP", "Enzymatic"],
      },
    ),
    t("Triglycerides", ["Triglycerides", "Serum Triglycerides"], ["mg/dL", "mg/dl"], 0, [null, 150], {
      risk: [
        ["Normal", [null, 150]],
        ["Borderline high", [150, 199]],
        ["High", [200, 499]],
      ],
      method: ["GPO-PAP"],
    }),
    t("HDL cholesterol", ["HDL Cholesterol", "HDL Cholesterol Direct"], ["mg/dL", "mg/dl"], 0, [40, null], {
      sex: { m: [40, null], f: [50, null] },
      method: ["Direct"],
    }),
    t("LDL cholesterol", ["LDL Cholesterol"], ["mg/dL", "mg/dl"], 1, [null, 100], {
      rdp: 0,
      risk: [
        ["Optimal", [null, 100]],
        ["Near optimal", [100, 129]],
        ["High", [160, null]],
      ],
      method: ["Calculated", "Direct"],
    }),
    t("VLDL cholesterol", ["VLDL Cholesterol"], ["mg/dL", "mg/dl"], 1, [null, 30], {
      rdp: 0,
      method: ["Calculated"],
    }),
    t(
      "Total cholesterol/HDL ratio",
      ["Total Cholesterol / HDL Ratio", "Cholesterol / HDL"],
      [""],
      2,
      [null, 4.5],
      {
        rdp: 1,
      },
    ),
  ],
};

const THYROID: Panel = {
  titles: ["THYROID PROFILE", "Thyroid Function Test", "IMMUNOASSAY"],
  tests: [
    t("T3 total", ["T3 Total", "Total T3"], ["ng/mL"], 2, [0.8, 2.0], {
      bracketed: ["Triiodothyronine (T3)"],
      method: ["CLIA", "ECLIA"],
    }),
    t("T4 total", ["T4 Total", "Total T4"], ["µg/dL"], 1, [5.1, 14.1], {
      bracketed: ["Thyroxine (T4)"],
      method: ["CLIA", "ECLIA"],
    }),
    t("TSH", ["TSH"], ["µIU/mL", "uIU/mL"], 2, [0.27, 4.2], {
      bracketed: ["Thyroid Stimulating Hormone (TSH)"],
      method: ["CLIA", "ECLIA"],
    }),
    t("Free T3", ["Free T3"], ["pg/mL"], 1, [2.0, 4.4], { bracketed: ["Free Triiodothyronine (FT3)"] }),
    t("Free T4", ["Free T4"], ["ng/dL"], 2, [0.93, 1.7], { bracketed: ["Free Thyroxine (FT4)"] }),
  ],
};

const SUGAR: Panel = {
  titles: ["BLOOD GLUCOSE", "DIABETES PROFILE", "Blood Sugar"],
  tests: [
    t(
      "Glucose fasting",
      ["Fasting Blood Sugar", "Glucose Fasting", "Fasting Plasma Glucose"],
      ["mg/dL", "mg/dl"],
      0,
      [70, 100],
      {
        bracketed: ["Fasting Blood Sugar (FBS)"],
        method: ["GOD-POD", "Hexokinase"],
      },
    ),
    t("Glucose post-meal", ["Post Prandial Blood Sugar"], ["mg/dL", "mg/dl"], 0, [70, 140], {
      bracketed: ["Post Prandial Blood Sugar (PPBS)"],
      method: ["GOD-POD", "Hexokinase"],
    }),
    t("HbA1c", ["HbA1c"], ["%"], 1, [4.0, 5.6], {
      bracketed: ["Glycosylated Haemoglobin (HbA1c)"],
      method: ["HPLC"],
    }),
  ],
};

const IRON: Panel = {
  titles: ["IRON STUDIES", "Anaemia Profile", "VITAMINS"],
  tests: [
    t("Iron", ["Iron", "Serum Iron"], ["µg/dL"], 0, [50, 170], {
      sex: { m: [65, 175], f: [50, 170] },
      method: ["Ferrozine"],
    }),
    t("TIBC", ["TIBC"], ["µg/dL"], 0, [250, 450], { bracketed: ["Total Iron Binding Capacity (TIBC)"] }),
    t("Ferritin", ["Ferritin", "Serum Ferritin"], ["ng/mL"], 1, [13, 150], {
      rdp: 0,
      sex: { m: [30, 400], f: [13, 150] },
      method: ["CLIA"],
    }),
    t("Vitamin B12", ["Vitamin B12"], ["pg/mL"], 0, [211, 911], { method: ["CLIA"] }),
    t("Vitamin D (25-OH)", ["25 Hydroxy Vitamin D", "Vitamin D (25-OH)"], ["ng/mL"], 1, [30, 100], {
      rdp: 0,
      method: ["CLIA"],
    }),
    t("Folate", ["Folic Acid"], ["ng/mL"], 1, [3.1, 20.5]),
  ],
};

const COAGULATION: Panel = {
  titles: ["COAGULATION PROFILE", "Coagulation"],
  tests: [
    t("Prothrombin time", ["Prothrombin Time"], ["sec", "seconds"], 1, [11.0, 13.5], {
      bracketed: ["Prothrombin Time (PT)"],
    }),
    t("INR", ["INR"], [""], 2, [0.8, 1.2], { rdp: 1 }),
    t("aPTT", ["APTT"], ["sec", "seconds"], 1, [26.0, 36.0]),
  ],
};

const PANELS: Panel[] = [CBC, DIFFERENTIAL, LIVER, KIDNEY, LIPIDS, THYROID, SUGAR, IRON, COAGULATION];

// ---------------------------------------------------------------------------------------------
// Labs and patients.

const LAB_FIRST = [
  "Shree",
  "Sai",
  "Metro",
  "City",
  "Apollo Care",
  "Sunrise",
  "Nova",
  "Lifeline",
  "Arogya",
  "Prime",
  "Janata",
  "Vedant",
  "Om",
];
const LAB_SECOND = [
  "Diagnostics",
  "Pathology Lab",
  "Path Labs",
  "Clinical Laboratory",
  "Diagnostic Centre",
  "Labs",
  "Health Labs",
];
const SUB_LINES = [
  "Plot 12, Sector 4, Main Road",
  "Opp. Civil Hospital, Station Road",
  "NABL accredited laboratory",
  "An ISO 9001:2015 certified lab",
  "Ph: 0257-2234567, 98220 12345",
  "Email: reports@lab.example",
  "Home collection available 7 am - 9 pm",
  "Shop No. 3, Gandhi Nagar",
];
const WOMEN = [
  "Mrs. Sunita Verma",
  "Ms. Kavya Rao",
  "Smt. Lakshmi Iyer",
  "Mrs. Farah Khan",
  "Ms. Priya Nair",
];
const MEN = ["Mr. Rajesh Kumar", "Mr. Arjun Patel", "Shri Mohan Lal", "Mr. Imran Sheikh", "Mr. Suresh Reddy"];
const DOCTORS = ["Dr. A. K. Mehta", "Self", "Dr. P. Nair", "Dr. R. Banerjee"];

const HEADS: Record<Column, string[]> = {
  name: ["Test Name", "Investigation", "TEST", "Parameter", "Test Description", "Tests"],
  value: ["Result", "Observed Value", "RESULT", "Value", "Results"],
  unit: ["Unit", "Units", "UNITS"],
  range: [
    "Bio. Ref. Interval",
    "Biological Reference Interval",
    "NORMAL RANGE",
    "Reference Range",
    "Ref. Range",
    "Normal Values",
  ],
  flag: ["Flag", ""],
  status: ["Status"],
  method: ["Method"],
};

const NOTES = [
  ["Note: Results to be correlated clinically."],
  [
    "Interpretation:",
    "Values to be interpreted in the light of the clinical picture; repeat if clinically indicated.",
  ],
  ["Note: Sample received at the lab in good condition.", "Test performed on a fully automated analyser."],
];

// ---------------------------------------------------------------------------------------------
// A seeded layout.

export type Scan = { dpi: number; angle: number; light: number; noise: number; blur: boolean };
export type Photo = Scan & { quality: number };

export type SeededLayout = {
  /** "s<seed>-<n>": the seed and the layout's number. */
  name: string;
  seed: number;
  index: number;
  spec: LayoutSpec;
  /** How the header prints the dates (lab-render.ts's dateLines). */
  dateStyle: number;
  /** The rows of every page, and of the first (what a photo shows). */
  truth: Truth[];
  firstPage: Truth[];
  /** The properties drawn, as family names the bench reports by ("flag-before", "page-break"). */
  families: string[];
  scan: Scan;
  photo: Photo;
};

type Style = {
  sep: "none" | "western" | "indian";
  zeros: boolean;
  dash: string;
  upper: "<" | "< " | "Up to" | "Upto" | "Less than" | "zero";
  lower: ">" | "> " | "More than";
  sexParts: "own" | "one-line" | "lines";
  sexLabels: [string, string];
  maleFirst: boolean;
  ageParts: boolean;
  riskParts: boolean;
  unitInRange: "first" | "each" | null;
};

/** Indian grouping of a whole number: 150000 → "1,50,000". */
const indian = (s: string) =>
  s.length <= 3 ? s : `${s.slice(0, -3).replace(/\B(?=(\d{2})+$)/g, ",")},${s.slice(-3)}`;

function number(n: number, dp: number, st: Style, count: boolean): string {
  let s = n.toFixed(dp);
  if (count && dp === 0 && n >= 1000)
    s = st.sep === "western" ? s.replace(/\B(?=(\d{3})+$)/g, ",") : st.sep === "indian" ? indian(s) : s;
  if (st.zeros && dp === 0 && n >= 0 && n < 10) s = s.padStart(2, "0");
  return s;
}

/** A band as printed, and the band it means ("Up to 40" means 0 - 40 as much as "< 40"). */
function bandText(b: Band, dp: number, st: Style, count: boolean): string {
  const f = (n: number) => number(n, dp, st, count);
  const [lo, hi] = b;
  if (lo !== null && hi !== null) return `${f(lo)}${st.dash}${f(hi)}`;
  if (hi !== null) {
    if (st.upper === "zero") return `${f(0)}${st.dash}${f(hi)}`;
    return st.upper === "<" ? `<${f(hi)}` : `${st.upper.trim()} ${f(hi)}`;
  }
  return st.lower === ">" ? `>${f(lo!)}` : `${st.lower.trim()} ${f(lo!)}`;
}

/** A row as printed, its truth, and the family its range makes it part of ("sex-lines"). */
type Made = { row: Row; truth: Truth; family: string | null };

/** A value drawn below, within or above the band that applies, not on its bounds once rounded. */
function drawValue(d: Draw, b: Band, test: Test): { v: number; text: (st: Style) => string } {
  const [lo, hi] = b;
  const width = lo !== null && hi !== null ? hi - lo : (hi ?? lo!) * 0.5;
  const round = (v: number) =>
    test.count ? Math.round(v / test.count) * test.count : Number(v.toFixed(test.dp));
  for (let i = 0; ; i++) {
    const where = d.weighted<"below" | "within" | "above">([
      ["within", 6],
      ["above", hi !== null ? 2 : 0],
      ["below", lo !== null && lo > 0 ? 2 : 0],
    ]);
    let v =
      where === "above"
        ? hi! + width * d.float(0.05, 0.5)
        : where === "below"
          ? Math.max(lo! * 0.5, lo! - width * d.float(0.05, 0.5))
          : lo !== null && hi !== null
            ? lo + width * d.float(0.05, 0.95)
            : hi !== null
              ? hi * d.float(0.3, 0.95)
              : lo! * d.float(1.05, 1.8);
    if (v <= 0) v = (lo ?? hi!) * d.float(0.3, 0.9);
    v = round(v);
    if ((v !== lo && v !== hi && v > 0) || i > 20)
      return { v, text: (st) => number(v, test.dp, st, !!test.count) };
  }
}

const judgeBand = (v: number, b: Band | null): Truth["judgement"] =>
  b === null
    ? "unknown"
    : b[1] !== null && v > b[1]
      ? "above"
      : b[0] !== null && v < b[0]
        ? "below"
        : "within";

function makeRow(
  d: Draw,
  test: Test,
  st: Style,
  sex: "female" | "male" | null,
  names: { bracketed: boolean; upper: boolean },
): Made {
  const rdp = test.rdp ?? test.dp;
  const count = !!test.count;
  const bt = (b: Band) => bandText(b, rdp, st, count);
  const unit = d.pick(test.units);
  // The range's parts as printed, and the band that applies to this patient (null: none can be chosen).
  let parts: string[];
  let applies: Band | null;
  let family: string | null = null;
  const upperZero = (b: Band): Band =>
    b[0] === null && b[1] !== null && st.upper === "zero" ? [0, b[1]] : b;
  if (test.sex && !(st.sexParts === "own" && sex)) {
    const [lm, lf] = st.sexLabels;
    const m = `${lm} ${bt(test.sex.m)}`;
    const f = `${lf} ${bt(test.sex.f)}`;
    parts = st.maleFirst ? [m, f] : [f, m];
    applies = sex === null ? null : upperZero(sex === "male" ? test.sex.m : test.sex.f);
    if (st.sexParts === "one-line") parts = [parts.join(" ")];
    family = parts.length > 1 ? "sex-lines" : "sex-one-line";
  } else if (test.sex && sex) {
    const b = sex === "male" ? test.sex.m : test.sex.f;
    parts = [bt(b)];
    applies = upperZero(b);
  } else if (test.child && st.ageParts) {
    parts = [`Adults: ${bt(test.ref)}`, `Children: ${bt(test.child)}`];
    applies = upperZero(test.ref);
    family = "age-parts";
  } else if (test.risk && st.riskParts) {
    parts = test.risk.map(
      ([w, b]) => `${w}: ${b[0] !== null && b[1] === null ? `>= ${number(b[0], rdp, st, count)}` : bt(b)}`,
    );
    applies = upperZero(test.risk[0]![1]);
    family = "risk-parts";
  } else {
    parts = [bt(test.ref)];
    applies = upperZero(test.ref);
  }
  // The value is drawn against the part that applies, or against one of the parts when none can be chosen.
  const target = applies ?? (test.sex ? (d.chance(0.5) ? test.sex.m : test.sex.f) : test.ref);
  const { v, text } = drawValue(d, target, test);
  if (st.unitInRange && unit)
    parts = parts.map((p, i) => (st.unitInRange === "each" || i === 0 ? `${p} ${unit}` : p));
  const judgement = judgeBand(v, applies);
  const flag = judgement === "above" ? "H" : judgement === "below" ? "L" : undefined;
  const name = names.bracketed && test.bracketed ? d.pick(test.bracketed) : d.pick(test.names);
  const value = text(st);
  const row: Row = {
    a: test.a,
    name: names.upper ? name.toUpperCase() : name,
    value,
    unit: st.unitInRange ? "" : unit,
    range: parts.length === 1 ? parts[0]! : parts,
    ...(flag ? { flag } : {}),
    ...(test.method ? { method: d.pick(test.method) } : {}),
  };
  const truth: Truth = { analyte: test.a, printed: row.name, value, unit, range: parts.join(" "), judgement };
  if (flag) truth.flag = flag;
  if (st.unitInRange && unit) truth.rangeUnit = unit;
  return { row, truth, family };
}

/** The layout number `index` drawn from `seed`. */
export function seededLayout(seed: number, index: number): SeededLayout {
  const d = (prop: string) => new Draw([seed, index, prop]);
  const families: string[] = [];
  const fam = (f: string) => families.push(f);

  // The patient: an adult; her sex, now and then, not recorded.
  const sex = d("sex").weighted<"female" | "male" | null>([
    ["female", 45],
    ["male", 45],
    [null, 10],
  ]);
  const age = d("age").int(19, 84);
  const pd = d("patient");
  const pname = sex === "male" ? pd.pick(MEN) : sex === "female" ? pd.pick(WOMEN) : "S. Patil";
  const sexWord = sex === null ? "--" : sex === "male" ? "Male" : "Female";
  const patientLines = pd.pick([
    [`Patient Name : ${pname}`, `Age / Sex : ${age} Years / ${sexWord}`, `Ref. By : ${pd.pick(DOCTORS)}`],
    [
      `Name : ${pname}`,
      `Age/Gender : ${age} Y / ${sexWord.slice(0, 1)}`,
      `Referred By : ${pd.pick(DOCTORS)}`,
    ],
    [`Patient : ${pname}`, `Sex : ${sexWord}    Age : ${age} Yrs`],
  ]);
  if (sex === null) fam("sex-not-recorded");

  const dd = d("date");
  const sampleDate = `${dd.int(2023, 2026)}-${String(dd.int(1, 12)).padStart(2, "0")}-${String(dd.int(1, 27)).padStart(2, "0")}`;
  const dateStyle = d("date-style").int(0, 7);

  // Letterhead, type.
  const ld = d("letterhead");
  const lab = `${ld.pick(LAB_FIRST)} ${ld.pick(LAB_SECOND)}`;
  const sub = ld.some(SUB_LINES, 0.3, 1).slice(0, 3);
  const letterhead = { size: ld.int(13, 18), centre: ld.chance(0.4) };
  if (letterhead.centre) fam("letterhead-centred");
  const font = d("font").weighted<FontName>([
    ["Helvetica", 4],
    ["Times-Roman", 3],
    ["Courier", 2],
    ["Noto", 2],
  ]);
  fam(`font-${font}`);
  const size = d("size").int(15, 21) / 2;

  // Columns: which there are, in what order, with which heads.
  const cd = d("columns");
  const unitColumn = cd.chance(0.7);
  const flagMode = d("flags").weighted<
    "column" | "status" | "after" | "before" | "arrow" | "star" | "paren" | "none"
  >([
    ["column", 3],
    ["status", 1],
    ["after", 3],
    ["before", 1],
    ["arrow", 1],
    ["star", 1],
    ["paren", 1],
    ["none", 2],
  ]);
  fam(`flag-${flagMode}`);
  const flagWords = d("flag-words").pick([
    { H: "H", L: "L" },
    { H: "High", L: "Low" },
    { H: "HIGH", L: "LOW" },
  ]);
  if (flagWords.H !== "H" && !["arrow", "star", "none", "status"].includes(flagMode)) fam("flag-words");
  const methodMode = d("method").weighted<"none" | "line" | "column">([
    ["none", 6],
    ["line", 3],
    ["column", 1],
  ]);
  if (methodMode !== "none") fam(`method-${methodMode}`);
  const order = cd.weighted<Column[]>([
    [["value", "unit", "range"], 7],
    [["value", "range", "unit"], 1],
    [["range", "value", "unit"], 1],
    [["unit", "value", "range"], 1],
  ]);
  const columns: Column[] = ["name", ...order.filter((c) => c !== "unit" || unitColumn)];
  if (order[0] !== "value") fam("column-order");
  fam(unitColumn ? "unit-column" : "unit-in-range");
  const extra = flagMode === "column" ? "flag" : flagMode === "status" ? "status" : null;
  if (extra) columns.splice(cd.chance(0.7) ? columns.indexOf("value") + 1 : columns.length, 0, extra);
  if (methodMode === "column") columns.splice(cd.chance(0.6) ? 1 : columns.length, 0, "method");
  const hd = d("heads");
  const upperHeads = hd.chance(0.3);
  const heads = columns.map((c) => {
    const h = hd.pick(HEADS[c]);
    return upperHeads ? h.toUpperCase() : h;
  });

  // How numbers and ranges are printed.
  const st: Style = {
    sep: d("thousands").weighted([
      ["none", 3],
      ["western", 3],
      ["indian", 4],
    ]),
    zeros: d("leading-zeros").chance(0.25),
    dash: d("dash").weighted([
      [" - ", 6],
      ["-", 2],
      [" to ", 1],
    ]),
    upper: d("upper").pick(["<", "< ", "Up to", "Upto", "Less than", "zero"] as const),
    lower: d("lower").pick([">", "> ", "More than"] as const),
    sexParts: d("sex-parts").weighted([
      ["own", 3],
      ["one-line", 3],
      ["lines", 4],
    ]),
    sexLabels: d("sex-labels").pick([
      ["M:", "F:"],
      ["Male :", "Female :"],
      ["Male:", "Female:"],
      ["M :", "F :"],
    ] as [string, string][]),
    maleFirst: d("sex-order").chance(0.75),
    ageParts: d("age-parts").chance(0.3),
    riskParts: d("risk-parts").chance(0.25),
    unitInRange: unitColumn ? null : d("unit-in-range").chance(0.7) ? "first" : "each",
  };
  if (st.dash !== " - ") fam(st.dash === "-" ? "dash-tight" : "dash-to");
  if (st.upper !== "zero" && !st.upper.startsWith("<")) fam("worded-ranges");

  // What the page holds.
  const twoColumn = d("two-column").chance(0.15);
  if (twoColumn) fam("two-column");
  const sd = d("sections");
  const count = twoColumn
    ? 2
    : sd.weighted([
        [1, 3],
        [2, 4],
        [3, 2],
      ]);
  const chosen: Panel[] = [];
  while (chosen.length < count) {
    const p = sd.pick(PANELS);
    if (!chosen.includes(p)) chosen.push(p);
  }
  const headings = d("headings").chance(0.8);
  if (!headings) fam("no-headings");
  const nd = d("names");
  const names = { bracketed: nd.chance(0.4), upper: nd.chance(0.2) };
  if (names.bracketed) fam("bracket-names");
  const seen = new Set<string>();
  const made: Made[][] = chosen.map((p, pi) => {
    const pick = d(`panel-${pi}`);
    const tests = pick
      .some(p.tests, twoColumn ? 0.45 : 0.6, 3)
      .map((x) => (Array.isArray(x) ? pick.pick(x) : x))
      .filter((x) => !seen.has(x.a) && seen.add(x.a))
      .slice(0, twoColumn || count === 3 ? 6 : 8);
    return tests.map((x) => makeRow(d(`row-${x.a}`), x, st, sex, names));
  });
  const all = made.flat();
  for (const f of new Set(all.map((m) => m.family))) if (f) fam(f);
  if (st.zeros && all.some((m) => /^0\d/.test(m.row.value))) fam("leading-zeros");
  if (st.sep !== "none" && all.some((m) => m.row.value.includes(","))) fam(`thousands-${st.sep}`);
  const notesAt = d("notes").chance(0.15) ? d("notes").pick(NOTES) : undefined;
  if (notesAt) fam("notes");
  const sections: Section[] = made.map((rows, i) => ({
    title: headings ? d(`title-${i}`).pick(chosen[i]!.titles) : "",
    rows: rows.map((m) => m.row),
    ...(i === made.length - 1 && notesAt ? { notes: notesAt } : {}),
  }));
  const valueBelow = d("value-below").chance(0.1);
  if (valueBelow) {
    let any = false;
    for (const r of sections.flatMap((s) => s.rows))
      if (r.name.length > 24) {
        r.below = true;
        any = true;
      }
    if (any) fam("value-below");
  }

  const wd = d("watermark");
  const watermark = wd.chance(0.2)
    ? wd.pick([lab.toUpperCase(), "ORIGINAL REPORT", lab.split(" ")[0]!])
    : undefined;
  const spec: LayoutSpec = {
    lab,
    sub,
    font,
    size,
    columns,
    at: [],
    heads,
    patient: { lines: patientLines, sex, age },
    sampleDate,
    sections,
    flags: flagMode === "column" || flagMode === "status" ? "none" : flagMode,
    flagWords,
    twoColumn,
    letterhead,
    ...(methodMode === "line"
      ? { methodLine: d("method-line").pick(["Method : {}", "Method: {}", "METHOD : {}", "({})"]) }
      : {}),
    ...(watermark
      ? {
          watermark,
          watermarkStyle: {
            angle: -wd.int(10, 45),
            grey: wd.pick(["#d0d0d0", "#d9d9d9", "#e4e4e4"]),
            size: wd.int(36, 60),
          },
        }
      : {}),
    ...(d("colon").chance(0.15) ? { colon: true } : {}),
    ...(d("brackets").chance(0.15) ? { brackets: d("brackets").pick(["()", "[]"] as const) } : {}),
  };
  if (watermark) fam("watermark");
  if (spec.colon) fam("colon");
  if (spec.brackets) fam("range-in-brackets");
  if (flagMode === "status")
    for (const r of spec.sections.flatMap((s) => s.rows))
      r.status = r.flag === "H" ? "High" : r.flag === "L" ? "Low" : "Normal";
  if (flagMode === "none") for (const r of spec.sections.flatMap((s) => s.rows)) delete r.flag;

  // Two columns only where each half of the page holds its cells apart at a size lab software
  // prints (lab-render.ts's columnsFit); a table that does not is printed in one column.
  if (spec.twoColumn && !columnsFit(spec)) {
    spec.twoColumn = false;
    families.splice(families.indexOf("two-column"), 1);
  }

  // A page break inside the table: drawn, or needed when the rows do not fit on one page.
  const rows = spec.sections.flatMap((s) => s.rows);
  const fits = firstPageRows(spec);
  const pb = d("page-break");
  if (!spec.twoColumn && (fits < rows.length || (rows.length >= 6 && pb.chance(0.2)))) {
    // Each page holds what fits on it (the second as much as the first, or more).
    spec.breakAt = Math.max(rows.length - fits, Math.min(fits, pb.int(3, rows.length - 2)));
    spec.repeatLetterhead = pb.chance(0.6);
    if (pb.chance(0.5)) spec.contd = pb.pick(["(Contd.)", "(continued)"]);
    if (pb.chance(0.5)) spec.footer = [pb.pick(["Continued on next page", "Contd...", "Page 1 of 2"])];
    fam("page-break");
  }

  // No flag printed: the truth has none either.
  const truth = all.map(({ truth: { flag, ...rest } }) =>
    flagMode === "none" || !flag ? rest : { ...rest, flag },
  );
  const sc = d("scan");
  const ph = d("photo");
  return {
    name: `s${seed}-${index}`,
    seed,
    index,
    spec,
    dateStyle,
    truth,
    firstPage: spec.breakAt === undefined ? truth : truth.slice(0, spec.breakAt),
    families,
    scan: {
      dpi: sc.pick([200, 200, 300]),
      angle: sc.float(-1.5, 1.5),
      light: sc.float(0, 0.25),
      noise: sc.float(10, 45),
      blur: sc.chance(0.3),
    },
    photo: {
      dpi: 220,
      angle: ph.pick([-1, 1]) * ph.float(1, 5),
      light: ph.float(0.15, 0.5),
      noise: ph.float(12, 35),
      blur: ph.chance(0.8),
      quality: ph.int(55, 85),
    },
  };
}

/**
 * How many rows fit on the first page (lab-render.ts's measures: the letterhead, column heads,
 * each title, row and its extra lines, notes) before the footer's place at y = 735.
 */
function firstPageRows(spec: LayoutSpec): number {
  const lh = spec.size * 2;
  const size = spec.letterhead?.size ?? 15;
  let y = 47 + size + 10 * spec.sub.length + 8 + 12 * Math.max(spec.patient.lines.length, 3) + 14;
  y += spec.size * 2.2;
  let n = 0;
  for (const s of spec.sections) {
    if (s.title) y += lh;
    for (const r of s.rows) {
      y += lh * (1 + extraLines(spec, r));
      if (y > 700) return n;
      n++;
    }
    y += (s.notes?.length ?? 0) * lh * 0.8 + lh * 0.7;
  }
  return n;
}

/** `n` layouts drawn from `seed`. */
export function layoutsFor(seed: number, n: number): SeededLayout[] {
  return Array.from({ length: n }, (_, i) => seededLayout(seed, i));
}

/**
 * The seed of a run: LAB_SEED when it is set, else a fresh one. A test prints it, and its failures
 * name it, so that `LAB_SEED=<seed>` draws the same corpus again.
 */
export function runSeed(): number {
  const env = process.env.LAB_SEED;
  if (env !== undefined && env !== "") {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 0 || n >= 2 ** 32)
      throw new Error(`LAB_SEED must be a whole number below 2^32, not ${env}`);
    return n;
  }
  return Math.floor(Math.random() * 2 ** 31);
}
