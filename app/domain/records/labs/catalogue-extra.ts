/**
 * The analyte catalogue, part four (decision 0089): what Indian labs send beyond the routine
 * panels — the rest of the automated blood count, coagulation, more ratios, lipids, kidney,
 * electrolytes, thyroid, iron and inflammation tests. Every code was checked against a LOINC
 * source (see `loinc-names.ts`). LOINC codes are © Regenstrief Institute,
 * used under the LOINC licence (see NOTICE).
 */
import { analyte, type MolarUnit } from "./analyte";
import { MOLAR_MASS } from "./molar";
import type { AltUnit, Analyte } from "./types";

const blood = "blood-count" as const;
const PER_UL_THOUSANDS: AltUnit[] = [
  { ucum: "/uL", factor: 0.001 },
  { ucum: "10*9/L", factor: 1 },
];
/** ng/mL printed as µg/L, pg/mL as ng/L: the same amount. */
export const NG_ML: AltUnit[] = [{ ucum: "ug/L", factor: 1 }];
export const PG_ML: AltUnit[] = [{ ucum: "ng/L", factor: 1 }];
export const BLOOD_COUNT_MORE: Analyte[] = [
  analyte("48386-7", "P-LCR", blood, "%", [1, 80], [13, 43], 1, [
    "Platelet Large Cell Ratio",
    "PLCR",
    "P LCR",
    "Platelet Large Cell Ratio P LCR",
  ]),
  analyte("51637-7", "Plateletcrit", blood, "%", [0.01, 2], [0.15, 0.4], 2, [
    "PCT",
    "Plateletcrit PCT",
    "Thrombocrit",
  ]),
  analyte("71695-1", "Immature granulocytes %", blood, "%", [0, 50], [0, 1], 1, [
    "Immature Granulocytes",
    "IG",
    "IG %",
    "Immature Granulocyte",
    "Immature Granulocytes IG",
  ]),
  analyte(
    "53115-2",
    "Immature granulocytes absolute",
    blood,
    "10*3/uL",
    [0, 50],
    [0, 0.1],
    2,
    ["Immature Granulocytes", "IG", "IG Count", "Absolute Immature Granulocytes", "IG Absolute"],
    PER_UL_THOUSANDS,
  ),
  analyte("19048-8", "Nucleated red cells", blood, "/100{WBCs}", [0, 500], [0, 1], 0, [
    "NRBC",
    "Nucleated RBC",
    "Nucleated Red Blood Cells",
    "nRBC",
  ]),
  analyte("4551-8", "HbA2", blood, "%", [0, 15], [2, 3.5], 1, ["Hb A2", "Haemoglobin A2", "Hemoglobin A2"]),
  analyte("4576-5", "HbF", blood, "%", [0, 100], [0, 2], 1, [
    "Hb F",
    "Foetal Haemoglobin",
    "Fetal Hemoglobin",
    "Haemoglobin F",
    "Hemoglobin F",
  ]),
];

const coag = "coagulation" as const;
export const COAGULATION: Analyte[] = [
  analyte(
    "11067-6",
    "Bleeding time",
    coag,
    "min",
    [0.2, 60],
    [1, 7],
    1,
    ["BT", "Bleeding Time BT", "Bleeding Time Ivy"],
    [{ ucum: "s", factor: 1 / 60 }],
  ),
  analyte("14979-9", "aPTT", coag, "s", [5, 300], [25, 40], 1, [
    "APTT",
    "Activated Partial Thromboplastin Time",
    "Partial Thromboplastin Time",
    "PTT",
    "aPTT Test",
    "Activated Partial Thromboplastin Time APTT",
  ]),
  analyte(
    "48065-7",
    "D-dimer",
    coag,
    "ug/mL",
    [0, 100],
    [0, 0.5],
    2,
    ["D Dimer", "D Dimer Quantitative", "Fibrin D Dimer"],
    [
      { ucum: "mg/L", factor: 1 },
      { ucum: "ng/mL", factor: 0.001 },
    ],
  ),
  analyte(
    "3255-7",
    "Fibrinogen",
    coag,
    "mg/dL",
    [10, 2000],
    [200, 400],
    0,
    ["Plasma Fibrinogen", "Fibrinogen Level"],
    [{ ucum: "g/L", factor: 100 }],
  ),
];

export const GLUCOSE_MORE: Analyte[] = [
  analyte("20448-7", "Insulin", "glucose", "u[IU]/mL", [0, 3000], [2, 25], 1, [
    "Fasting Insulin",
    "Serum Insulin",
    "Insulin Fasting",
    "S Insulin",
  ]),
  analyte(
    "1986-9",
    "C-peptide",
    "glucose",
    "ng/mL",
    [0, 50],
    [0.8, 4],
    2,
    ["C Peptide", "Fasting C Peptide", "C Peptide Fasting"],
    NG_ML,
  ),
];

export const LIPIDS_MORE: Analyte[] = [
  analyte("44733-4", "Triglycerides/HDL ratio", "lipids", "1", [0.1, 100], [0.5, 3], 2, [
    "TG HDL Ratio",
    "TG HDL",
    "Triglycerides HDL Ratio",
    "Triglyceride HDL Ratio",
    "Triglycerides HDL",
    "TGL HDL Ratio",
  ]),
  analyte(
    "1869-7",
    "Apolipoprotein A1",
    "lipids",
    "mg/dL",
    [10, 500],
    [105, 205],
    0,
    ["Apo A1", "Apo A 1", "Apolipoprotein A 1", "APO A1"],
    [{ ucum: "g/L", factor: 100 }],
  ),
  analyte(
    "1884-6",
    "Apolipoprotein B",
    "lipids",
    "mg/dL",
    [10, 500],
    [50, 130],
    0,
    ["Apo B", "APO B", "Apolipoprotein B100", "Apo B100"],
    [{ ucum: "g/L", factor: 100 }],
  ),
  analyte("10835-7", "Lipoprotein (a)", "lipids", "mg/dL", [0, 500], [0, 30], 1, [
    "Lipoprotein a",
    "Lp a",
    "Lp(a)",
    "LPA",
  ]),
];

export const KIDNEY_MORE: Analyte[] = [
  analyte("56997-0", "Urea/creatinine ratio", "kidney", "1", [1, 500], [20, 40], 1, [
    "Urea Creatinine Ratio",
    "Urea Creatinine",
    "Urea Creat Ratio",
    "Serum Urea Creatinine Ratio",
  ]),
  analyte("33863-2", "Cystatin C", "kidney", "mg/L", [0.1, 15], [0.5, 1.1], 2, [
    "Serum Cystatin C",
    "Cystatin",
  ]),
  analyte(
    "2889-4",
    "Urine protein, 24 hours",
    "urine",
    "mg/(24.h)",
    [1, 30000],
    [1, 150],
    0,
    ["24 Hour Urine Protein", "24 Hrs Urine Protein", "Urine Protein 24 Hours", "24 Hr Urine Protein"],
    [{ ucum: "g/(24.h)", factor: 1000 }],
    "urine",
  ),
];

export const ELECTROLYTES_MORE: Analyte[] = [
  analyte(
    "2028-9",
    "Carbon dioxide total",
    "electrolytes",
    "mmol/L",
    [2, 60],
    [22, 30],
    0,
    // "Total CO2" alone is bicarbonate's name in the catalogue (labs print it for HCO3).
    ["Total Carbon Dioxide", "TCO2", "CO2 Total", "Carbon Dioxide"],
    [{ ucum: "meq/L", factor: 1 }],
  ),
  analyte(
    "1863-0",
    "Anion gap",
    "electrolytes",
    "mmol/L",
    [0, 60],
    [4, 16],
    0,
    ["Anion Gap"],
    [{ ucum: "meq/L", factor: 1 }],
  ),
  analyte(
    "2524-7",
    "Lactate",
    "electrolytes",
    "mmol/L",
    [0.1, 30],
    [0.5, 2.2],
    1,
    ["Lactic Acid", "Serum Lactate", "Plasma Lactate"],
    [{ ucum: "mg/dL", molarMass: MOLAR_MASS.lactate } satisfies MolarUnit],
  ),
  analyte(
    "16362-6",
    "Ammonia",
    "electrolytes",
    "umol/L",
    [1, 1500],
    [10, 50],
    0,
    ["Plasma Ammonia", "Serum Ammonia", "Blood Ammonia", "NH3"],
    [{ ucum: "ug/dL", molarMass: MOLAR_MASS.ammonia } satisfies MolarUnit],
  ),
];

export const THYROID_MORE: Analyte[] = [
  analyte(
    "3013-0",
    "Thyroglobulin",
    "thyroid",
    "ng/mL",
    [0, 10000],
    [1.5, 78],
    1,
    ["Serum Thyroglobulin", "S Thyroglobulin"],
    NG_ML,
  ),
  analyte(
    "8098-6",
    "Anti-thyroglobulin antibodies",
    "thyroid",
    "[IU]/mL",
    [0, 10000],
    [0, 115],
    1,
    ["Anti Thyroglobulin Antibody", "Anti Tg", "Anti TG Antibodies", "ATG", "Thyroglobulin Antibody"],
    [{ ucum: "U/mL", factor: 1 }],
  ),
];

export const IRON_MORE: Analyte[] = [
  analyte(
    "3034-6",
    "Transferrin",
    "vitamins-iron",
    "mg/dL",
    [10, 1000],
    [200, 360],
    0,
    ["Serum Transferrin"],
    [{ ucum: "g/L", factor: 100 }],
  ),
  analyte("2501-5", "UIBC", "vitamins-iron", "ug/dL", [0, 1000], [110, 370], 0, [
    "Unsaturated Iron Binding Capacity",
    "UIBC Unsaturated Iron Binding Capacity",
  ]),
];

export const INFLAMMATION_MORE: Analyte[] = [
  analyte(
    "33959-8",
    "Procalcitonin",
    "inflammation",
    "ng/mL",
    [0, 1000],
    [0, 0.5],
    2,
    ["PCT Procalcitonin", "Serum Procalcitonin"],
    NG_ML,
  ),
  analyte(
    "11572-5",
    "RA factor",
    "inflammation",
    "[IU]/mL",
    [0, 10000],
    [0, 20],
    1,
    ["RA Factor", "Rheumatoid Factor", "RF", "RA Factor Quantitative", "Rheumatoid Factor RF"],
    [{ ucum: "U/mL", factor: 1 }],
  ),
  analyte(
    "5370-2",
    "ASO",
    "inflammation",
    "[IU]/mL",
    [0, 10000],
    [0, 200],
    0,
    ["ASO Titre", "ASO Titer", "Anti Streptolysin O", "Antistreptolysin O"],
    [{ ucum: "U/mL", factor: 1 }],
  ),
];

export const MORE: Analyte[] = [
  ...BLOOD_COUNT_MORE,
  ...COAGULATION,
  ...GLUCOSE_MORE,
  ...LIPIDS_MORE,
  ...KIDNEY_MORE,
  ...ELECTROLYTES_MORE,
  ...THYROID_MORE,
  ...IRON_MORE,
  ...INFLAMMATION_MORE,
];
