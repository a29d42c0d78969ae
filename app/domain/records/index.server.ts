/**
 * Records: the files themselves. What the context offers to the rest of the app is named below;
 * everything else is internal to its modules. Records depends on platform alone: resumable
 * upload sessions, which end in a report, are consultation's; the FHIR export is interop's.
 *
 * - files: encrypted storage of uploads (AES-256-GCM before bytes reach the local folder or the
 *   bucket), safe names, deleting, the leftover sweep.
 * - file-types: what a file may be (type sniffing by its first bytes) and how large.
 * - file-crypto: what the stored files' and the segments' formats share (keys, opening an object).
 * - upload-segments: the encrypted pieces of a resumable upload.
 * - dicom: medical images (a study checked, stored and read back; decision 0039); dicom-instance
 *   (one instance's header and bytes), dicom-zip (a ZIP of one study), dicom-render (previews),
 *   dicom-pacs (the PACS hand-off).
 */
export {
  decryptCopy,
  deleteStored,
  openDecrypted,
  sanitizeFileName,
  storedExists,
  storeUpload,
  sweepLeftovers,
  type StoredFile,
} from "./files.server";
export {
  maxBytesFor,
  reportUploadMaxBytes,
  sniffType,
  SNIFF_SAMPLE_BYTES,
  tooLarge,
  type UploadKind,
} from "./file-types.server";
export {
  deleteSegments,
  isUploadId,
  listSegments,
  openSegment,
  storeSegment,
  type Segment,
} from "./upload-segments.server";
export { loadStudy, type Study } from "./dicom.server";
export { framePng, isPreset, type Preset } from "./dicom-render.server";
export { startPacsSender, stopPacsSender } from "./dicom-pacs.server";

// What consultation needs of the files and studies behind a report.
export {
  deleteObjects,
  deletePagePreviews,
  deleteReportFileIfUnused,
  MAX_PREVIEW_PAGE,
} from "./files.server";
export { draftObjects, insertStudy, inspectStudy, studyObjects, type StudyDraft } from "./dicom.server";
export { kickPacsSender } from "./dicom-pacs.server";
export { phoneWav, PHONE_RATE, silence, speak, toPhoneAudio, wavSamples } from "./phone-audio.server";
export { processLabReads, queueLabRead, readLocal, startLabReader, stopLabReader } from "./lab-reader.server";
export {
  applyLabCheck,
  confirmUnchecked,
  insertLabValue,
  labReadOf,
  labValuesOf,
  saveReading,
  type PlacedRow,
} from "./lab-store.server";
export { pdfPagePreview } from "./pdf-page.server";
