/**
 * Records: the files themselves and the patient's data as a record.
 *
 * - files: encrypted storage of uploads (AES-256-GCM before bytes reach the local folder or the
 *   bucket), type sniffing, safe names, segments of resumable uploads, the leftover sweep.
 * - uploads: resumable upload sessions (begin, append, finish, abandon, sweep).
 * - fhir: the patient's data as a FHIR R4 Bundle and as a zip with the files.
 * - dicom: medical images (a study's metadata, previews, the PACS hand-off; decision 0039).
 */
export * from "./files.server";
export * from "./uploads.server";
export * from "./fhir.server";
export * from "./dicom.server";
export * from "./dicom-render.server";
export * from "./dicom-pacs.server";
