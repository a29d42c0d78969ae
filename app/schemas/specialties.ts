import type { ReportType } from "~/schemas/report-types";

/**
 * Medical specialties an expert can hold, and which of them read each report type — the one
 * routing table (decision 0013). Values are stable English names (stored and sent over the API); labels
 * are translated under `specialties.*`. Edit the lists here; nothing else needs to change.
 */
export const SPECIALTIES = [
  "General Medicine",
  "Radiology",
  "Pathology",
  "Cardiology",
  "Neurology",
  "Orthopaedics",
  "Ophthalmology",
  "ENT",
  "Dentistry",
  "Paediatrics",
  "Gynaecology",
  "Oncology",
] as const;
export type Specialty = (typeof SPECIALTIES)[number];

/** Orders specialty names as the fixed list does (as every screen shows them). */
export const bySpecialtyOrder = (a: string, b: string) =>
  SPECIALTIES.indexOf(a as Specialty) - SPECIALTIES.indexOf(b as Specialty);

/** i18n key of each specialty's label. */
export const SPECIALTY_KEYS: Record<Specialty, string> = {
  "General Medicine": "specialties.generalMedicine",
  Radiology: "specialties.radiology",
  Pathology: "specialties.pathology",
  Cardiology: "specialties.cardiology",
  Neurology: "specialties.neurology",
  Orthopaedics: "specialties.orthopaedics",
  Ophthalmology: "specialties.ophthalmology",
  ENT: "specialties.ent",
  Dentistry: "specialties.dentistry",
  Paediatrics: "specialties.paediatrics",
  Gynaecology: "specialties.gynaecology",
  Oncology: "specialties.oncology",
};

/** Who reads each of the 13 report types. */
export const ROUTING: Record<ReportType, readonly Specialty[]> = {
  "X-Ray": ["Radiology"],
  MRI: ["Radiology", "Neurology"],
  "CT Scan": ["Radiology"],
  Ultrasound: ["Radiology", "Gynaecology"],
  ECG: ["Cardiology"],
  "Blood Test": ["Pathology", "General Medicine"],
  "Urine Test": ["Pathology", "General Medicine"],
  "Allergy Test": ["Pathology", "General Medicine"],
  "COVID-19 Test": ["Pathology", "General Medicine"],
  Biopsy: ["Pathology", "Oncology"],
  "Eye Exam": ["Ophthalmology"],
  "Hearing Test": ["ENT"],
  "Dental Checkup": ["Dentistry"],
};

export function isSpecialty(v: unknown): v is Specialty {
  return typeof v === "string" && (SPECIALTIES as readonly string[]).includes(v);
}

/** The specialties that read a report type. */
export function specialtiesFor(reportType: string): readonly Specialty[] {
  return ROUTING[reportType as ReportType] ?? [];
}

/** The report types an expert with these specialties reads. */
export function reportTypesFor(specialties: readonly string[]): ReportType[] {
  const mine = new Set(specialties);
  return (Object.keys(ROUTING) as ReportType[]).filter((t) => ROUTING[t].some((s) => mine.has(s)));
}
