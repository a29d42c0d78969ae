import { createRequire } from "node:module";

let loaded: typeof import("dcmjs") | undefined;

/** dcmjs, loaded when the first DICOM file is read, not when the server starts (decision 0111). */
export function dcmjs(): typeof import("dcmjs") {
  return (loaded ??= createRequire(import.meta.url)("dcmjs") as typeof import("dcmjs"));
}
