/**
 * The report types and their labels' keys, apart from the zod schemas (schemas/reports.ts
 * re-exports them) and from the forms' limits: every screen that names a report type imports this,
 * and a screen's string table carries the keys of what it imports (decision 0036).
 */

/** The 13 report types of spec section 3, in the spec's order and spelling. */
export const REPORT_TYPES = [
  "Blood Test",
  "X-Ray",
  "MRI",
  "CT Scan",
  "Urine Test",
  "ECG",
  "Ultrasound",
  "Biopsy",
  "Allergy Test",
  "Eye Exam",
  "Hearing Test",
  "Dental Checkup",
  "COVID-19 Test",
] as const;

export type ReportType = (typeof REPORT_TYPES)[number];

/** i18n key (under `reports.types`) of each report type's label; English is the type itself. */
export const REPORT_TYPE_KEYS: Record<ReportType, string> = {
  "Blood Test": "reports.types.bloodTest",
  "X-Ray": "reports.types.xRay",
  MRI: "reports.types.mri",
  "CT Scan": "reports.types.ctScan",
  "Urine Test": "reports.types.urineTest",
  ECG: "reports.types.ecg",
  Ultrasound: "reports.types.ultrasound",
  Biopsy: "reports.types.biopsy",
  "Allergy Test": "reports.types.allergyTest",
  "Eye Exam": "reports.types.eyeExam",
  "Hearing Test": "reports.types.hearingTest",
  "Dental Checkup": "reports.types.dentalCheckup",
  "COVID-19 Test": "reports.types.covid19Test",
};
