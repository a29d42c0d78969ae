/**
 * Interop: the patient's data for other systems and for the patient to keep (decision 0018).
 *
 * - fhir-export: the patient's data as a FHIR R4 Bundle and as a zip with the files (who may
 *   export, the audit, the ZIP); fhir-snapshot reads the rows, fhir-bundle assembles the Bundle.
 * - fhir-codes, fhir-people, fhir-reports, fhir-consents, fhir-audit-events: the FHIR mapping
 *   (resources built from the rows; stable ids and code systems).
 *
 * It reads every context that holds a part of the record; nothing in the domain depends on it.
 */
export { exportBundle, exportOwnZip, exportZip, FHIR_CONTENT_TYPE } from "./fhir-export.server";
