/**
 * Rows of the lab-report corpus made in code (decision 0089): what Indian lab software and lab
 * chains print, test by test — values, units in their spellings, ranges as printed (in words,
 * with bounds, in parts for men and women, adults and children, age bands, risk categories),
 * flags and status words, word results. Made up for the corpus: no real patient's report.
 *
 * A row's `applies` is the part of a multi-part range that applies to the layout's patient (in
 * the printed unit; null: it cannot be chosen from what is recorded of her); a simple range is
 * its own part.
 */
export type Row = {
  /** The catalogue's name of the analyte. */
  a: string;
  /** The name as printed. */
  name: string;
  value: string;
  unit: string;
  /** The range as printed; several strings: printed on successive lines, kept whole. */
  range: string | string[];
  flag?: "H" | "L";
  /** A word printed between the value and its range ("Normal", "Borderline", "Critical"). */
  status?: string;
  /** The part of a multi-part range that applies to this patient; null: it cannot be chosen. */
  applies?: [number | null, number | null] | null;
  /** The value printed on the line below its name. */
  below?: true;
  method?: string;
  /** A word result ("Non Reactive"), kept as printed. */
  word?: true;
  /** The name in Hindi, printed beside the English one on bilingual layouts. */
  hindi?: string;
};

type Opt = Partial<Omit<Row, "a" | "name" | "value" | "unit" | "range">>;
const r = (
  a: string,
  name: string,
  value: string,
  unit: string,
  range: string | string[],
  o: Opt = {},
): Row => ({
  a,
  name,
  value,
  unit,
  range,
  ...o,
});
const word = (a: string, name: string, value: string, range: string, o: Opt = {}): Row =>
  r(a, name, value, "", range, { word: true, ...o });

export const CBC_CUMM: Row[] = [
  r("Haemoglobin", "Haemoglobin", "11.2", "gm/dl", "12.0 - 15.0", { flag: "L", hindi: "हीमोग्लोबिन" }),
  r("White blood cell count", "Total Leucocyte Count", "7,800", "/cumm", "4,000 - 11,000", {
    hindi: "कुल श्वेत कोशिकाएँ",
  }),
  r("Red blood cell count", "RBC Count", "4.12", "million/cu.mm", "3.8 - 4.8", {
    hindi: "लाल रक्त कोशिकाएँ",
  }),
  r("Platelet count", "Platelet Count", "2.1", "lakhs/cumm", "1.5 - 4.1", { hindi: "प्लेटलेट्स" }),
  r("Haematocrit", "PCV", "36.8", "%", "36 - 46", { hindi: "पीसीवी" }),
  r("MCV", "MCV", "89.3", "fL", "83 - 101"),
  r("MCH", "MCH", "27.2", "pg", "27 - 32"),
  r("MCHC", "MCHC", "30.4", "g/dL", "31.5 - 34.5", { flag: "L" }),
  r("RDW-CV", "RDW-CV", "14.8", "%", "11.6 - 14.0", { flag: "H" }),
  r("RDW-SD", "RDW-SD", "46.9", "fL", "39.0 - 46.0", { flag: "H" }),
];

export const DIFFERENTIAL: Row[] = [
  r("Neutrophils %", "Neutrophils", "62", "%", "40 - 80"),
  r("Lymphocytes %", "Lymphocytes", "28", "%", "20 - 40"),
  r("Eosinophils %", "Eosinophils", "03", "%", "01 - 06"),
  r("Monocytes %", "Monocytes", "07", "%", "02 - 10"),
  r("Basophils %", "Basophils", "00", "%", "00 - 02"),
  r("Neutrophils absolute", "Absolute Neutrophil Count", "4,836", "/cumm", "2,000 - 7,000"),
  r("Lymphocytes absolute", "Absolute Lymphocyte Count", "2,184", "/cumm", "1,000 - 3,000"),
  r("Eosinophils absolute", "Absolute Eosinophil Count", "234", "/cumm", "20 - 500"),
  r("Monocytes absolute", "Absolute Monocyte Count", "546", "/cumm", "200 - 1,000"),
];

export const PLATELET_INDICES: Row[] = [
  r("Platelet count", "Platelet Count", "1,85,000", "cells/mcL", "1,50,000 - 4,10,000"),
  r("MPV", "MPV", "10.2", "fL", "7.5 - 11.5"),
  r("PDW", "PDW", "16.1", "fL", "9.0 - 17.0"),
  r("P-LCR", "P-LCR", "28.4", "%", "13.0 - 43.0"),
  r("Plateletcrit", "PCT", "0.22", "%", "0.17 - 0.35"),
  r("ESR", "ESR", "18", "mm/1st hr", "0 - 20"),
];

export const CBC_SI: Row[] = [
  r("Haemoglobin", "Hemoglobin", "14.6", "g/dL", "13.0 - 17.0"),
  r("Red blood cell count", "RBC", "5.02", "10^6/uL", "4.5 - 5.5"),
  r("White blood cell count", "WBC", "11.6", "10^3/uL", "4.0 - 10.0", { flag: "H" }),
  r("Platelet count", "Platelets", "245", "10^3/uL", "150 - 410"),
  r("Haematocrit", "Hematocrit", "44.1", "%", "40 - 50"),
  r("MCV", "MCV", "87.8", "fL", "83 - 101"),
  r("Neutrophils %", "Neutrophils", "71.2", "%", "40 - 80"),
  r("Lymphocytes %", "Lymphocytes", "20.4", "%", "20 - 40"),
  r("Immature granulocytes %", "Immature Granulocytes", "0.4", "%", "0.0 - 0.5"),
  r("Neutrophils absolute", "Neutrophils Absolute", "8.26", "10^3/uL", "2.0 - 7.0", { flag: "H" }),
];

export const GLUCOSE_ROWS: Row[] = [
  r("Glucose fasting", "Fasting Blood Sugar", "126", "mg/dL", "70 - 100", { flag: "H", method: "GOD-POD" }),
  r("Glucose post-meal", "Post Prandial Blood Sugar", "182", "mg/dL", "70 - 140", {
    flag: "H",
    method: "GOD-POD",
  }),
  r("HbA1c", "HbA1c", "7.2", "%", "4.0 - 5.6", { flag: "H", method: "HPLC" }),
  r("Estimated average glucose", "Estimated Average Glucose", "160", "mg/dL", "", { method: "Calculated" }),
];

export const LIPIDS_WORDS: Row[] = [
  r("Total cholesterol", "Total Cholesterol", "212", "mg/dL", "Desirable: < 200", {
    flag: "H",
    status: "Borderline",
  }),
  r("Triglycerides", "Triglycerides", "168", "mg/dL", "Less than 150", { flag: "H" }),
  r("HDL cholesterol", "HDL Cholesterol", "42", "mg/dL", "More than 40", { status: "Normal" }),
  r("LDL cholesterol", "LDL Cholesterol", "136.4", "mg/dL", "Upto 130", { flag: "H" }),
  r("VLDL cholesterol", "VLDL Cholesterol", "33.6", "mg/dL", "Up to 30", { flag: "H" }),
  r("Non-HDL cholesterol", "Non HDL Cholesterol", "170", "mg/dL", "< 130", { flag: "H" }),
  r("Total cholesterol/HDL ratio", "Total Cholesterol / HDL Ratio", "5.05", "", "< 4.5", { flag: "H" }),
  r("LDL/HDL ratio", "LDL / HDL Ratio", "3.25", "", "< 3.0", { flag: "H" }),
  r("Triglycerides/HDL ratio", "TG / HDL Ratio", "4.00", "", "< 3.0", { flag: "H" }),
];

export const LIPIDS_PLAIN: Row[] = [
  r("Total cholesterol", "Cholesterol Total", "186", "mg / dl", "0 - 200"),
  r("Triglycerides", "Triglycerides", "142", "mg / dl", "0 - 150"),
  r("HDL cholesterol", "HDL Cholesterol Direct", "48", "mg / dl", "40 - 60"),
  r("LDL cholesterol", "LDL Cholesterol", "109.6", "mg / dl", "0 - 100", { flag: "H" }),
  r("Total cholesterol/HDL ratio", "Cholesterol / HDL", "3.88", "", "0.0 - 5.0"),
  r("LDL/HDL ratio", "LDL / HDL", "2.28", "", "0.0 - 3.5"),
];

export const LIVER_UI: Row[] = [
  r("Bilirubin total", "Bilirubin Total", "0.84", "mg/dl", "0.20 - 1.20"),
  r("Bilirubin direct", "Bilirubin Direct", "0.21", "mg/dl", "0.00 - 0.30"),
  r("Bilirubin indirect", "Bilirubin Indirect", "0.63", "mg/dl", "0.10 - 1.00"),
  r("AST (SGOT)", "SGOT", "38", "U/I", "Up to 40"),
  r("ALT (SGPT)", "SGPT", "52", "U/I", "Up to 41", { flag: "H" }),
  r("Alkaline phosphatase", "Alkaline Phosphatase", "98", "U/I", "40 - 129"),
  r("GGT", "Gamma GT", "61", "U/I", "Less than 60", { flag: "H" }),
  r("Total protein", "Total Protein", "7.2", "g/dl", "6.4 - 8.3"),
  r("Albumin", "Albumin", "4.3", "g/dl", "3.5 - 5.2"),
  r("Globulin", "Globulin", "2.9", "g/dl", "2.0 - 3.5"),
  r("Albumin/globulin ratio", "A/G Ratio", "1.48", "", "1.0 - 2.0"),
];

export const KIDNEY_RATIOS: Row[] = [
  r("Urea", "Blood Urea", "32.1", "mg/dL", "17 - 43"),
  r("Urea nitrogen (BUN)", "Blood Urea Nitrogen", "15.0", "mg/dL", "8.0 - 20.0"),
  r("Creatinine", "Serum Creatinine", "1.02", "mg/dL", "0.70 - 1.30"),
  r("Urea/creatinine ratio", "Urea / Creatinine Ratio", "31.5", "", "20 - 35"),
  r("BUN/creatinine ratio", "BUN / Creatinine Ratio", "14.7", "", "10 - 20"),
  r("Uric acid", "Uric Acid", "7.9", "mg/dL", "3.5 - 7.2", { flag: "H" }),
  r("Calcium", "Calcium", "9.4", "mg/dL", "8.6 - 10.3"),
  r("Phosphorus", "Phosphorus", "3.6", "mg/dL", "2.5 - 4.5"),
  r("eGFR", "eGFR", "84", "mL/min/1.73m2", "> 90", { flag: "L" }),
];

export const ELECTROLYTES_MEQ: Row[] = [
  r("Sodium", "Sodium (Na+)", "132", "mEq/L", "136 - 145", { flag: "L" }),
  r("Potassium", "Potassium (K+)", "6.8", "mEq/L", "3.5 - 5.1", { flag: "H", status: "Critical" }),
  r("Chloride", "Chloride (Cl-)", "101", "mEq/L", "98 - 107"),
  r("Bicarbonate", "Bicarbonate", "21", "mEq/L", "22 - 29", { flag: "L" }),
  r("Ionised calcium", "Ionised Calcium", "1.12", "mmol/L", "1.12 - 1.32"),
  r("Magnesium", "Magnesium", "2.1", "mg/dL", "1.6 - 2.6"),
];

export const THYROID_ROWS: Row[] = [
  r("T3 total", "T3 Total", "1.09", "ng/mL", "0.80 - 2.00"),
  r("T4 total", "T4 Total", "7.8", "µg/dL", "5.1 - 14.1"),
  r("TSH", "TSH", "5.82", "µIU/mL", "0.27 - 4.20", { flag: "H" }),
  r("Free T3", "Free T3", "3.1", "pg/mL", "2.0 - 4.4"),
  r("Free T4", "Free T4", "1.02", "ng/dL", "0.93 - 1.70"),
];

export const SEX_RANGES_ONE_LINE: Row[] = [
  r("Haemoglobin", "Haemoglobin", "12.6", "g/dL", "M: 13.0 - 17.0 F: 12.0 - 15.5", { applies: [12.0, 15.5] }),
  r("Haematocrit", "PCV", "38.2", "%", "M: 40 - 50 F: 36 - 46", { applies: [36, 46] }),
  r("Red blood cell count", "RBC Count", "4.31", "mill/cumm", "M: 4.5 - 5.5 F: 3.8 - 4.8", {
    applies: [3.8, 4.8],
  }),
  r("Creatinine", "Creatinine", "1.1", "mg/dL", "M: 0.7 - 1.3 F: 0.6 - 1.1", { applies: [0.6, 1.1] }),
  r("Uric acid", "Uric Acid", "6.4", "mg/dL", "M: 3.5 - 7.2 F: 2.6 - 6.0", {
    applies: [2.6, 6.0],
    flag: "H",
  }),
  r("ESR", "ESR", "24", "mm/hr", "M: 0 - 15 F: 0 - 20", { applies: [0, 20], flag: "H" }),
  r("Ferritin", "Ferritin", "18.2", "ng/mL", "M: 30 - 400 F: 13 - 150", { applies: [13, 150] }),
  r("GGT", "GGT", "28", "U/L", "M: < 55 F: < 38", { applies: [null, 38] }),
];

export const SEX_RANGES_LINES: Row[] = [
  r("Haemoglobin", "Haemoglobin", "13.8", "g/dL", ["Male : 13.0 - 17.0", "Female : 12.0 - 15.5"], {
    applies: [13.0, 17.0],
  }),
  r("Haematocrit", "Haematocrit (PCV)", "41.7", "%", ["Male : 40 - 50", "Female : 36 - 46"], {
    applies: [40, 50],
  }),
  r("Creatinine", "Serum Creatinine", "1.42", "mg/dL", ["Male : 0.70 - 1.30", "Female : 0.55 - 1.02"], {
    applies: [0.7, 1.3],
    flag: "H",
  }),
  r("Uric acid", "Serum Uric Acid", "6.8", "mg/dL", ["Male : 3.5 - 7.2", "Female : 2.6 - 6.0"], {
    applies: [3.5, 7.2],
  }),
  r("HDL cholesterol", "HDL Cholesterol", "38", "mg/dL", ["Male : > 40", "Female : > 50"], {
    applies: [40, null],
    flag: "L",
  }),
  r("Iron", "Serum Iron", "88", "µg/dL", ["Male : 65 - 175", "Female : 50 - 170"], { applies: [65, 175] }),
];

export const AGE_BANDS: Row[] = [
  r(
    "Alkaline phosphatase",
    "Alkaline Phosphatase",
    "312",
    "U/L",
    ["Adults: 40 - 129", "Children: 100 - 400"],
    {
      applies: [100, 400],
    },
  ),
  r("Creatinine", "Creatinine", "0.52", "mg/dL", ["Adult: 0.6 - 1.2", "Child: 0.3 - 0.7"], {
    applies: [0.3, 0.7],
  }),
  r("Phosphorus", "Phosphorus", "5.1", "mg/dL", ["1 - 12 Yrs: 4.0 - 7.0", "> 12 Yrs: 2.5 - 4.5"], {
    applies: [4.0, 7.0],
  }),
  r("Haemoglobin", "Haemoglobin", "11.9", "g/dL", ["6 - 12 Yrs: 11.5 - 15.5", "12 - 18 Yrs: 12.0 - 16.0"], {
    applies: [11.5, 15.5],
  }),
  r("ESR", "ESR", "12", "mm/hr", "Child: 0 - 10 Adult: 0 - 20", { applies: [0, 10], flag: "H" }),
];

export const NO_CHOICE: Row[] = [
  // The patient's sex is not recorded: the part cannot be chosen, and the reader must say so.
  r("Haemoglobin", "Haemoglobin", "12.8", "g/dL", "M: 13.0 - 17.0 F: 12.0 - 15.5", { applies: null }),
  r("Creatinine", "Creatinine", "0.9", "mg/dL", "M: 0.7 - 1.3 F: 0.6 - 1.1", { applies: null }),
  r("Glucose fasting", "Fasting Plasma Glucose", "92", "mg/dL", "70 - 100"),
  r("TSH", "TSH", "2.41", "µIU/mL", "0.35 - 5.50"),
];

export const WORD_RANGES: Row[] = [
  r("CRP", "C-Reactive Protein", "4.2", "mg/L", "Less than 6.0"),
  r("Glucose random", "Random Blood Sugar", "146", "mg/dL", "Less than 140", { flag: "H" }),
  r("Vitamin B12", "Vitamin B12", "198", "pg/mL", "More than 211", { flag: "L" }),
  r("Vitamin D (25-OH)", "25 Hydroxy Vitamin D", "17.6", "ng/mL", "> 30", { flag: "L" }),
  r("AST (SGOT)", "SGOT", "31", "U/L", "Upto 35"),
  r("ALT (SGPT)", "SGPT", "29", "U/L", "Up to 45"),
  r("Triglycerides", "Triglycerides", "138", "mg/dL", "< 150"),
  r("PSA total", "PSA Total", "1.84", "ng/mL", "0.00 - 4.00"),
  r("hs-CRP", "hs-CRP", "0.8", "mg/L", "< 1.0"),
];

export const RISK_CATEGORIES: Row[] = [
  r(
    "Vitamin D (25-OH)",
    "Vitamin D (25-OH)",
    "24.1",
    "ng/mL",
    ["Deficiency: < 20", "Insufficiency: 20 - 30", "Sufficiency: 30 - 100"],
    {
      applies: [30, 100],
      flag: "L",
    },
  ),
  r(
    "HbA1c",
    "Glycosylated Haemoglobin (HbA1c)",
    "6.1",
    "%",
    ["Non-diabetic: < 5.7", "Prediabetes: 5.7 - 6.4", "Diabetes: >= 6.5"],
    {
      applies: [null, 5.7],
      flag: "H",
    },
  ),
  r(
    "LDL cholesterol",
    "LDL Cholesterol",
    "118",
    "mg/dL",
    ["Optimal: < 100", "Near optimal: 100 - 129", "High: >= 160"],
    {
      applies: [null, 100],
      flag: "H",
    },
  ),
  r(
    "Total cholesterol",
    "Total Cholesterol",
    "176",
    "mg/dL",
    ["Desirable: < 200", "Borderline: 200 - 239", "High: >= 240"],
    {
      applies: [null, 200],
    },
  ),
];

export const DIABETES_ROWS: Row[] = [
  r("Glucose fasting", "Glucose - Fasting", "108", "mg/dl", "70 - 100", { flag: "H" }),
  r("Glucose post-meal", "Glucose - PP (2 hrs)", "156", "mg/dl", "70 - 140", { flag: "H" }),
  r("HbA1c", "HbA1c", "6.4", "%", "4.0 - 5.6", { flag: "H" }),
  r("Insulin", "Insulin - Fasting", "14.2", "µIU/mL", "2.6 - 24.9"),
  r("C-peptide", "C-Peptide", "2.31", "ng/mL", "1.10 - 4.40"),
  r("Estimated average glucose", "eAG", "137", "mg/dl", "", {}),
];

export const SEROLOGY: Row[] = [
  word("HBsAg", "HBsAg", "Non Reactive", "Non Reactive"),
  word("Anti-HCV", "Anti HCV", "Non Reactive", "Non Reactive"),
  word("HIV 1 & 2 antibodies", "HIV I & II Antibodies", "Non Reactive", "Non Reactive"),
  word("VDRL", "VDRL", "Negative", "Negative"),
  r("HBsAg quantitative", "HBsAg Quantitative", "0.02", "IU/mL", "< 0.05"),
  r("CRP", "CRP", "18.6", "mg/L", "< 6.0", { flag: "H" }),
];

export const URINE_ROWS: Row[] = [
  r("Urine pH", "pH", "6.0", "", "4.6 - 8.0"),
  r("Urine specific gravity", "Specific Gravity", "1.020", "", "1.005 - 1.030"),
  word("Urine protein (strip)", "Protein", "Nil", "Nil"),
  word("Urine glucose (strip)", "Glucose", "Nil", "Nil"),
  word("Urine ketones", "Ketone Bodies", "Absent", "Absent"),
  word("Urine bilirubin", "Bilirubin", "Negative", "Negative"),
  r("Urine pus cells", "Pus Cells", "3", "/hpf", "0 - 5"),
  r("Urine red cells", "RBC", "1", "/hpf", "0 - 2"),
];

export const HORMONE_ROWS: Row[] = [
  r("Prolactin", "Prolactin", "28.4", "ng/mL", "4.8 - 23.3", { flag: "H" }),
  r("LH", "LH", "6.2", "mIU/mL", ["Follicular: 2.4 - 12.6", "Luteal: 1.0 - 11.4"], { applies: null }),
  r("FSH", "FSH", "7.4", "mIU/mL", "3.5 - 12.5"),
  r("Testosterone", "Testosterone Total", "412", "ng/dL", "249 - 836"),
  r("Cortisol", "Cortisol (Morning)", "14.8", "µg/dL", "6.2 - 19.4"),
  r("AMH", "AMH", "2.45", "ng/mL", "1.0 - 3.5"),
];

export const CARDIAC_TUMOUR: Row[] = [
  r("Troponin I", "Troponin I", "0.012", "ng/mL", "< 0.04"),
  r("NT-proBNP", "NT-proBNP", "96", "pg/mL", "Up to 125"),
  r("CK-MB", "CK-MB", "2.8", "ng/mL", "0.0 - 5.0"),
  r("Homocysteine", "Homocysteine", "18.2", "µmol/L", "5.0 - 15.0", { flag: "H" }),
  r("CEA", "CEA", "2.1", "ng/mL", "< 3.0"),
  r("AFP", "Alpha Feto Protein", "3.4", "ng/mL", "< 8.1"),
  r("CA-125", "CA-125", "22.6", "U/mL", "< 35"),
  r("PSA free", "Free PSA", "0.42", "ng/mL", "< 0.93"),
  r("PSA free/total ratio", "Free PSA / Total PSA Ratio", "22.8", "%", "> 25", { flag: "L" }),
];

export const IRON_VITAMINS: Row[] = [
  r("Iron", "Iron", "54", "µg/dL", "60 - 170", { flag: "L" }),
  r("TIBC", "TIBC", "412", "µg/dL", "250 - 450"),
  r("UIBC", "UIBC", "358", "µg/dL", "110 - 370"),
  r("Transferrin saturation", "Transferrin Saturation", "13.1", "%", "20 - 50", { flag: "L" }),
  r("Ferritin", "Ferritin", "11.8", "ng/mL", "13 - 150", { flag: "L" }),
  r("Vitamin B12", "Vitamin B12", "286", "pg/mL", "211 - 911"),
  r("Folate", "Folic Acid", "6.4", "ng/mL", "3.1 - 20.5"),
];

export const COAGULATION_ROWS: Row[] = [
  r("Prothrombin time", "Prothrombin Time", "13.8", "sec", "11.0 - 13.5", { flag: "H" }),
  r("INR", "INR", "1.12", "", "0.8 - 1.2"),
  r("aPTT", "APTT", "31.4", "sec", "26.0 - 36.0"),
  r("D-dimer", "D-Dimer", "0.38", "µg/mL", "< 0.50"),
  r("Fibrinogen", "Fibrinogen", "286", "mg/dL", "200 - 400"),
  r("Bleeding time", "Bleeding Time", "2.5", "min", "1 - 5"),
];

/** Rows with long names whose value is printed on the line below. */
export const BELOW: Row[] = [
  r("HbA1c", "Glycosylated Haemoglobin (HbA1c), by HPLC", "5.9", "%", "4.0 - 5.6", {
    flag: "H",
    below: true,
  }),
  r("Estimated average glucose", "Mean Plasma Glucose (Calculated from HbA1c)", "123", "mg/dL", "", {
    below: true,
  }),
  r("Glucose fasting", "Glucose Fasting", "96", "mg/dL", "70 - 100"),
  r("Vitamin D (25-OH)", "Vitamin D, 25 - Hydroxy, Serum by CLIA", "32.4", "ng/mL", "30 - 100", {
    below: true,
  }),
  r("Vitamin B12", "Vitamin B12 (Cyanocobalamin), Serum", "412", "pg/mL", "211 - 911", { below: true }),
  r("TSH", "TSH", "1.86", "µIU/mL", "0.35 - 4.94"),
];

export const LOWER_CASE_LFT: Row[] = [
  r("Bilirubin total", "S. Bilirubin (Total)", "1.6", "mg/dl", "0.3 - 1.2", { flag: "H" }),
  r("Bilirubin direct", "S. Bilirubin (Direct)", "0.5", "mg/dl", "0.0 - 0.3", { flag: "H" }),
  r("AST (SGOT)", "S.G.O.T.", "44", "IU/L", "5 - 40", { flag: "H" }),
  r("ALT (SGPT)", "S.G.P.T.", "58", "IU/L", "5 - 40", { flag: "H" }),
  r("Alkaline phosphatase", "Alk. Phosphatase", "112", "IU/L", "40 - 130"),
  r("Total protein", "Total Proteins", "6.9", "gm%", "6.0 - 8.0"),
  r("Albumin", "Albumin", "3.8", "gm%", "3.5 - 5.0"),
  r("Globulin", "Globulin", "3.1", "gm%", "2.3 - 3.5"),
  r("Albumin/globulin ratio", "A : G Ratio", "1.23", "", "1.0 - 2.1"),
];

export const KIDNEY_SI: Row[] = [
  r("Urea", "Urea", "5.8", "mmol/L", "2.5 - 7.1"),
  r("Creatinine", "Creatinine", "88", "µmol/L", "62 - 106"),
  r("Uric acid", "Uric Acid", "410", "µmol/L", "202 - 416"),
  r("Glucose fasting", "Fasting Glucose", "6.4", "mmol/L", "3.9 - 5.6", { flag: "H" }),
  r("Total cholesterol", "Cholesterol", "5.6", "mmol/L", "< 5.2", { flag: "H" }),
  r("Triglycerides", "Triglyceride", "1.9", "mmol/L", "< 1.7", { flag: "H" }),
];

export const MIXED_PANEL: Row[] = [
  r("Haemoglobin", "HB", "10.9", "gm/dl", "12.0 - 15.0", { flag: "L" }),
  r("White blood cell count", "TLC", "9,200", "/cu.mm", "4,000 - 11,000"),
  r("Platelet count", "PLATELET", "1.64", "lak/cumm", "1.50 - 4.50"),
  r("Glucose random", "BLOOD SUGAR (R)", "118", "mg/dl", "70 - 140"),
  r("Urea", "BLOOD UREA", "28", "mg/dl", "15 - 45"),
  r("Creatinine", "S. CREATININE", "0.8", "mg/dl", "0.6 - 1.2"),
  r("Sodium", "S. SODIUM", "139", "mEq/L", "135 - 150"),
  r("Potassium", "S. POTASSIUM", "4.1", "mEq/L", "3.5 - 5.5"),
];
