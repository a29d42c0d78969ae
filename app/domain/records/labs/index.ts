/**
 * Lab values read from reports (decision 0079): the analyte catalogue (LOINC, UCUM, the names
 * Indian labs print), the row recogniser and the lab-report test, and the measure that alone judges
 * a value against its printed range (decision 0088). Pure and browser-safe: no I/O; the background
 * job, OCR, screens and FHIR build on it.
 */
export { analyteByLoinc, CATALOGUE, factorFor, normaliseName, ucumFor } from "./catalogue";
export { looksLikeLabReport, type LabVerdict } from "./detect";
export { recogniseLabRows } from "./recognise";
export { unjudged } from "./row";
export { sampleDate } from "./header";
export { median, readTables, TALLER, type TableLine } from "./table";
export {
  appliedPart,
  MAX_RANGE,
  parseRange,
  patientOn,
  printedParts,
  type ParsedRange,
  type Patient,
  type Recorded,
} from "./ranges";
export { analyteName, localName, nameAsPrinted, namedLoincs, printsOtherName } from "./names";
export { loincName } from "./loinc-names";
export { displayUnit, microAsPrinted, toUcum, ocrAsPrinted } from "./units";
export {
  convert,
  JUDGEMENT_WORDS,
  judgementWords,
  MAX_TEXT,
  printedMeasure,
  storedMeasure,
  wordKind,
  wordMeasure,
  type Interpretation,
  type Judgement,
  type LabMeasure,
  type NumberMeasure,
  type TextMeasure,
} from "./measure";
export { MOLAR_MASS, molarFactor } from "./molar";
export {
  CONFIDENT,
  type Analyte,
  type Family,
  type Flag,
  type LabRow,
  type PrintedRange,
  type RangePart,
  type Recognised,
  type RejectedRow,
} from "./types";
