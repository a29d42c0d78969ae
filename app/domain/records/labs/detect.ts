/**
 * Does a text look like a lab report at all (decisions 0079, 0089)? Any row read as a result makes
 * it one: rejecting a lab report must be rarer than missing a row. An X-ray or ultrasound report,
 * an ECG, a discharge letter is left alone even when it names a test or two in passing.
 */
import type { Patient } from "./ranges";
import { recogniseLabRows } from "./recognise";

const NOT_LAB =
  /\b(impression|radiograph|x-?ray|skiagram|ultrasound|sonography|usg|ecg|electrocardiogram|echocardiograph|ct scan|mri|findings|dear|sincerely|discharge summary|prescription|rx)\b/i;

export type LabVerdict = { isLab: boolean; analytes: number; reason: string };

export function looksLikeLabReport(lines: readonly string[], patient?: Patient): LabVerdict {
  const { rows, rejected } = recogniseLabRows(lines, patient);
  const analytes = new Set(rows.map((r) => r.loinc)).size;
  const notLab = NOT_LAB.test(lines.join("\n"));
  if (analytes >= 3) return { isLab: true, analytes, reason: "several test rows" };
  if (analytes >= 1 && !notLab) return { isLab: true, analytes, reason: "a test row" };
  if (notLab) return { isLab: false, analytes, reason: "reads as an imaging report or a letter" };
  // Rows of three tests or more whose values could not be read (OCR made their units words): a lab
  // report nothing was read from, for the expert to read, never "not a lab report" (decision 0112).
  if (new Set(rejected.map((r) => r.printedName.toLowerCase())).size >= 3)
    return { isLab: true, analytes, reason: "test rows that could not be read" };
  return { isLab: false, analytes, reason: "no test rows" };
}
