/**
 * Does a text look like a lab report at all (decision 0079)? An X-ray or ultrasound report, an
 * ECG, a discharge letter is left alone by the reader, even when it names a test in passing.
 */
import { recogniseLabRows } from "./recognise";

const LAB_HEADER =
  /\b(reference (range|interval)|biological ref|ref\.? ?range|normal (range|value)|bio\.? ref|units?|result|investigation|test name|observed value)\b/i;
const NOT_LAB =
  /\b(impression|radiograph|x-?ray|skiagram|ultrasound|sonography|usg|ecg|electrocardiogram|echocardiograph|ct scan|mri|findings|dear|sincerely|discharge summary|prescription|rx)\b/i;

export type LabVerdict = { isLab: boolean; analytes: number; reason: string };

export function looksLikeLabReport(lines: readonly string[]): LabVerdict {
  const { rows } = recogniseLabRows(lines);
  const analytes = new Set(rows.map((r) => r.loinc)).size;
  const text = lines.join("\n");
  const header = LAB_HEADER.test(text);
  const notLab = NOT_LAB.test(text);
  if (analytes >= 3 && !(notLab && analytes < 5))
    return { isLab: true, analytes, reason: "several test rows" };
  if (analytes >= 1 && header && !notLab)
    return { isLab: true, analytes, reason: "test rows under a results header" };
  if (notLab) return { isLab: false, analytes, reason: "reads as an imaging report or a letter" };
  return { isLab: false, analytes, reason: analytes === 0 ? "no test rows" : "too few test rows" };
}
