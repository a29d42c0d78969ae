/**
 * Lab values read from reports (decision 0079): the analyte catalogue (LOINC, UCUM, the names
 * Indian labs print), the row recogniser and the lab-report test. Pure and browser-safe: no I/O;
 * the background job, OCR, screens and FHIR build on it.
 */
export { analyteByLoinc, CATALOGUE, factorFor, normaliseName } from "./catalogue";
export { looksLikeLabReport, type LabVerdict } from "./detect";
export { recogniseLabRows } from "./recognise";
export { analyteName, namedLoincs } from "./names";
export { displayUnit, toUcum } from "./units";
export {
  CONFIDENT,
  type Analyte,
  type Family,
  type Flag,
  type LabRow,
  type PrintedRange,
  type Recognised,
  type RejectedRow,
} from "./types";
