/**
 * Records: the files themselves and the patient's data as a record. What the context offers to
 * the rest of the app is named below; everything else is internal to its modules.
 *
 * - files: encrypted storage of uploads (AES-256-GCM before bytes reach the local folder or the
 *   bucket), safe names, deleting, the leftover sweep.
 * - file-types: what a file may be (type sniffing by its first bytes) and how large.
 * - file-crypto: what the stored files' and the segments' formats share (keys, opening an object).
 * - upload-segments: the encrypted pieces of a resumable upload.
 * - uploads: resumable upload sessions (begin, append, finish, abandon, sweep).
 * - fhir-export: the patient's data as a FHIR R4 Bundle and as a zip with the files (who may
 *   export, the audit, the ZIP); fhir-snapshot reads the rows, fhir-bundle assembles the Bundle.
 * - fhir-codes, fhir-people, fhir-reports, fhir-consents, fhir-audit-events: the FHIR mapping
 *   (resources built from the rows; stable ids and code systems).
 * - dicom: medical images (a study checked, stored and read back; decision 0039); dicom-instance
 *   (one instance's header and bytes), dicom-zip (a ZIP of one study), dicom-render (previews),
 *   dicom-pacs (the PACS hand-off).
 */
export {
  deleteStored,
  openDecrypted,
  storedExists,
  storeUpload,
  sweepLeftovers,
  type StoredFile,
} from "./files.server";
export { reportUploadMaxBytes, type UploadKind } from "./file-types.server";
export { deleteSegments } from "./upload-segments.server";
export {
  abandonUpload,
  appendToUpload,
  beginUpload,
  finishUpload,
  FINISHING,
  getUpload,
  sweepUploads,
  type UploadSession,
} from "./uploads.server";
export { exportBundle, exportOwnZip, exportZip, FHIR_CONTENT_TYPE } from "./fhir-export.server";
export { loadStudy, type Study } from "./dicom.server";
export { framePng, isPreset, type Preset } from "./dicom-render.server";
export { startPacsSender, stopPacsSender } from "./dicom-pacs.server";

// Offered to consultation/reports.server.ts and rights/consent.server.ts, which import them from the
// modules themselves: through this index their imports would close a circle (this index →
// uploads.server.ts and fhir-export.server.ts → consultation/reports.server.ts →
// rights/consent.server.ts → this index).
export { deleteObjects, deleteReportFileIfUnused } from "./files.server";
export { draftObjects, insertStudy, inspectStudy, studyObjects, type StudyDraft } from "./dicom.server";
export { kickPacsSender } from "./dicom-pacs.server";
