/**
 * The analyte catalogue, part five (decision 0089): hormones, cardiac and tumour markers, and the
 * word results of serology and the urine strip, kept as printed. Every code was checked against
 * a LOINC source (see `loinc-names.ts`). LOINC codes are © Regenstrief Institute, used under the
 * LOINC licence (see NOTICE).
 */
import { analyte, type MolarUnit } from "./analyte";
import { NG_ML, PG_ML } from "./catalogue-extra";
import { MOLAR_MASS } from "./molar";
import type { Analyte, Family, Specimen } from "./types";

const hormones = "hormones" as const;
export const HORMONES: Analyte[] = [
  analyte(
    "2842-3",
    "Prolactin",
    hormones,
    "ng/mL",
    [0, 10000],
    [3, 25],
    1,
    ["PRL", "Serum Prolactin", "S Prolactin"],
    NG_ML,
  ),
  analyte(
    "10501-5",
    "LH",
    hormones,
    "m[IU]/mL",
    [0, 500],
    [1, 20],
    1,
    ["Luteinizing Hormone", "Luteinising Hormone", "LH Luteinizing Hormone"],
    [{ ucum: "[IU]/L", factor: 1 }],
  ),
  analyte(
    "15067-2",
    "FSH",
    hormones,
    "m[IU]/mL",
    [0, 500],
    [2, 30],
    1,
    ["Follicle Stimulating Hormone", "FSH Follicle Stimulating Hormone"],
    [{ ucum: "[IU]/L", factor: 1 }],
  ),
  analyte(
    "2243-4",
    "Estradiol",
    hormones,
    "pg/mL",
    [0, 20000],
    [10, 350],
    1,
    ["E2", "Oestradiol", "Estradiol E2"],
    PG_ML,
  ),
  analyte(
    "2839-9",
    "Progesterone",
    hormones,
    "ng/mL",
    [0, 1000],
    [0.1, 25],
    2,
    ["Serum Progesterone"],
    NG_ML,
  ),
  analyte(
    "2986-8",
    "Testosterone",
    hormones,
    "ng/dL",
    [0, 3000],
    [15, 950],
    1,
    ["Total Testosterone", "Testosterone Total", "Serum Testosterone"],
    [
      { ucum: "ng/mL", factor: 100 },
      { ucum: "nmol/L", molarMass: MOLAR_MASS.testosterone },
    ],
  ),
  analyte(
    "2991-8",
    "Free testosterone",
    hormones,
    "pg/mL",
    [0, 1000],
    [1, 250],
    2,
    ["Testosterone Free"],
    PG_ML,
  ),
  analyte("2191-5", "DHEA-S", hormones, "ug/dL", [0, 2000], [35, 560], 1, [
    "DHEAS",
    "DHEA Sulphate",
    "DHEA Sulfate",
    "Dehydroepiandrosterone Sulphate",
  ]),
  analyte(
    "2143-6",
    "Cortisol",
    hormones,
    "ug/dL",
    [0, 500],
    [5, 25],
    1,
    ["Serum Cortisol", "Cortisol Morning", "Morning Cortisol", "Cortisol AM"],
    [{ ucum: "nmol/L", molarMass: MOLAR_MASS.cortisol } satisfies MolarUnit],
  ),
  analyte("19080-1", "Beta hCG", hormones, "m[IU]/mL", [0, 1e6], [0, 5], 1, [
    "Beta HCG",
    "HCG",
    "Total Beta HCG",
    "Serum Beta HCG",
    "B HCG",
    "Beta Human Chorionic Gonadotropin",
  ]),
  analyte(
    "2731-8",
    "PTH intact",
    hormones,
    "pg/mL",
    [0, 5000],
    [15, 65],
    1,
    ["PTH", "Parathyroid Hormone", "Intact PTH", "iPTH", "Parathormone"],
    PG_ML,
  ),
  analyte("38476-8", "AMH", hormones, "ng/mL", [0, 100], [1, 10], 2, [
    "Anti Mullerian Hormone",
    "Anti Mullerian Hormone AMH",
  ]),
];

const cardiac = "cardiac" as const;
export const CARDIAC: Analyte[] = [
  analyte(
    "10839-9",
    "Troponin I",
    cardiac,
    "ng/mL",
    [0, 1000],
    [0, 0.1],
    3,
    ["Trop I", "Cardiac Troponin I", "Troponin I Quantitative", "cTnI"],
    NG_ML,
  ),
  analyte(
    "89579-7",
    "hs-Troponin I",
    cardiac,
    "ng/L",
    [0, 100000],
    [0, 35],
    1,
    ["hs Troponin I", "High Sensitivity Troponin I", "hsTnI", "hs cTnI"],
    [{ ucum: "pg/mL", factor: 1 }],
  ),
  analyte(
    "6598-7",
    "Troponin T",
    cardiac,
    "ng/mL",
    [0, 100],
    [0, 0.03],
    3,
    ["Trop T", "Cardiac Troponin T", "cTnT"],
    NG_ML,
  ),
  analyte(
    "33762-6",
    "NT-proBNP",
    cardiac,
    "pg/mL",
    [0, 100000],
    [0, 125],
    0,
    ["NT Pro BNP", "NT proBNP", "N Terminal Pro BNP", "Pro BNP"],
    PG_ML,
  ),
  analyte(
    "13969-1",
    "CK-MB",
    cardiac,
    "ng/mL",
    [0, 1000],
    [0, 5],
    1,
    ["CKMB", "CK MB Mass", "CPK MB"],
    NG_ML,
  ),
  analyte("13965-9", "Homocysteine", cardiac, "umol/L", [0, 500], [5, 15], 1, [
    "Serum Homocysteine",
    "Homocysteine Serum",
    "Plasma Homocysteine",
  ]),
];

const tumour = "tumour-markers" as const;
export const TUMOUR_MARKERS: Analyte[] = [
  analyte(
    "2039-6",
    "CEA",
    tumour,
    "ng/mL",
    [0, 100000],
    [0, 5],
    2,
    ["Carcino Embryonic Antigen", "Carcinoembryonic Antigen"],
    NG_ML,
  ),
  analyte(
    "1834-1",
    "AFP",
    tumour,
    "ng/mL",
    [0, 1e6],
    [0, 10],
    2,
    ["Alpha Fetoprotein", "Alpha Feto Protein", "Alpha 1 Fetoprotein"],
    NG_ML,
  ),
  analyte("10334-1", "CA-125", tumour, "U/mL", [0, 100000], [0, 35], 1, [
    "CA 125",
    "Cancer Antigen 125",
    "CA125",
  ]),
  analyte("24108-3", "CA 19-9", tumour, "U/mL", [0, 100000], [0, 37], 1, [
    "CA 19 9",
    "CA19 9",
    "Cancer Antigen 19 9",
  ]),
  analyte("6875-9", "CA 15-3", tumour, "U/mL", [0, 100000], [0, 30], 1, [
    "CA 15 3",
    "CA15 3",
    "Cancer Antigen 15 3",
  ]),
  analyte("10886-0", "PSA free", tumour, "ng/mL", [0, 1000], [0, 1], 2, ["Free PSA", "PSA Free", "fPSA"]),
  analyte("12841-3", "PSA free/total ratio", tumour, "%", [0, 100], [20, 100], 1, [
    "Free PSA Total PSA Ratio",
    "Free PSA Ratio",
    "PSA Free Total Ratio",
    "Free Total PSA Ratio",
  ]),
];

/** A word result (decision 0089): kept as printed, never turned into a number. */
function wordResult(
  loinc: string,
  name: string,
  family: Family,
  aliases: string[],
  specimen: Specimen = "blood",
): Analyte {
  return { ...analyte(loinc, name, family, "", [0, 0], null, 0, aliases, [], specimen), scale: "ord" };
}

const sero = "serology" as const;
const U = "urine" as const;
export const WORD_RESULTS: Analyte[] = [
  wordResult("5196-1", "HBsAg", sero, [
    "HBs Ag",
    "Hepatitis B Surface Antigen",
    "Australia Antigen",
    "HBsAg Qualitative",
    "Hepatitis B Surface Antigen HBsAg",
  ]),
  wordResult("13955-0", "Anti-HCV", sero, [
    "Anti HCV",
    "HCV Antibody",
    "Hepatitis C Antibody",
    "HCV",
    "Anti HCV Antibodies",
    "HCV Ab",
  ]),
  wordResult("7918-6", "HIV 1 & 2 antibodies", sero, [
    "HIV",
    "HIV I II",
    "HIV 1 2",
    "HIV I and II",
    "HIV 1 and 2 Antibodies",
    "Anti HIV",
    "HIV I II Antibodies",
    "HIV 1 2 Antibodies",
  ]),
  wordResult("5292-8", "VDRL", sero, ["VDRL Test", "RPR", "VDRL RPR", "Syphilis VDRL"]),
  wordResult("2514-8", "Urine ketones", U, ["Ketones", "Ketone Bodies", "Acetone", "Urine Ketones"], U),
  wordResult(
    "5770-3",
    "Urine bilirubin",
    U,
    ["Bilirubin", "Bile Pigments", "Urine Bilirubin", "Bile Pigment"],
    U,
  ),
  wordResult("5802-4", "Urine nitrite", U, ["Nitrite", "Nitrites", "Urine Nitrite"], U),
  wordResult("5794-3", "Urine blood", U, ["Blood", "Occult Blood", "Urine Blood"], U),
  wordResult("5799-2", "Urine leukocyte esterase", U, ["Leucocyte Esterase", "Leukocyte Esterase"], U),
  wordResult("25428-4", "Urine glucose (strip)", U, ["Glucose", "Urine Glucose", "Urine Sugar", "Sugar"], U),
  wordResult(
    "20454-5",
    "Urine protein (strip)",
    U,
    ["Protein", "Urine Protein", "Albumin Urine", "Urine Albumin", "Albumin"],
    U,
  ),
  // Decision 0098: more tests reported in words, each code confirmed as loinc-names.ts says.
  wordResult("70569-9", "Malaria antigen", sero, [
    "Malaria Antigen",
    "Malaria Ag",
    "Malaria Rapid Test",
    "Rapid Malaria Test",
    "Malaria Parasite Antigen",
    "Malarial Antigen",
    "Malaria Antigen Pf Pv",
  ]),
  wordResult(
    "2106-3",
    "Urine pregnancy test",
    U,
    ["Pregnancy Test", "Urine Pregnancy Test", "UPT", "Urine hCG", "hCG Urine", "Urine for Pregnancy"],
    U,
  ),
  // Typed by the expert only: the reader cannot see a blood group's letters (decision 0098).
  {
    ...wordResult("883-9", "ABO blood group", "other", ["Blood Group", "ABO Group", "ABO Blood Group"]),
    typedOnly: true,
  },
  wordResult("10331-7", "Rh type", "other", [
    "Rh Factor",
    "Rh Type",
    "Rh",
    "Rh D",
    "Rhesus Factor",
    "Rh Typing",
  ]),
];

/** HBsAg measured (IU/mL): the quantitative test labs print beside the word one. */
export const SEROLOGY_NUMBERS: Analyte[] = [
  analyte("63557-3", "HBsAg quantitative", sero, "[IU]/mL", [0, 1e6], [0, 0.05], 2, [
    "HBsAg Quantitative",
    "HBsAg Quant",
    "Quantitative HBsAg",
    "HBsAg",
    "HBs Ag",
    // The test's full name, printed for the measured one as for the word one: the number and its
    // unit decide which (a word result is never a number).
    "Hepatitis B Surface Antigen",
    "Hepatitis B Surface Antigen HBsAg",
    "Hepatitis B Surface Antigen Quantitative",
  ]),
];

export const SPECIAL: Analyte[] = [
  ...HORMONES,
  ...CARDIAC,
  ...TUMOUR_MARKERS,
  ...SEROLOGY_NUMBERS,
  ...WORD_RESULTS,
];
