/** The message keys of the viewer's named things, spelled out so each key is found where it is used. */
export const PRESET_LABELS = {
  default: "imaging.presets.default",
  lung: "imaging.presets.lung",
  bone: "imaging.presets.bone",
  soft: "imaging.presets.soft",
  brain: "imaging.presets.brain",
} as const;

export const PACS_LABELS: Record<string, string> = {
  queued: "imaging.pacs.queued",
  sending: "imaging.pacs.sending",
  sent: "imaging.pacs.sent",
  failed: "imaging.pacs.failed",
};

/** The personal DICOM fields a file may carry, as the patient reads them. */
export const FIELD_LABELS: Record<string, string> = {
  PatientName: "imaging.fields.PatientName",
  PatientID: "imaging.fields.PatientID",
  OtherPatientIDs: "imaging.fields.OtherPatientIDs",
  PatientBirthDate: "imaging.fields.PatientBirthDate",
  PatientSex: "imaging.fields.PatientSex",
  PatientAge: "imaging.fields.PatientAge",
  PatientAddress: "imaging.fields.PatientAddress",
  PatientTelephoneNumbers: "imaging.fields.PatientTelephoneNumbers",
  PatientMotherBirthName: "imaging.fields.PatientMotherBirthName",
  InstitutionName: "imaging.fields.InstitutionName",
  InstitutionAddress: "imaging.fields.InstitutionAddress",
  ReferringPhysicianName: "imaging.fields.ReferringPhysicianName",
  PerformingPhysicianName: "imaging.fields.PerformingPhysicianName",
  OperatorsName: "imaging.fields.OperatorsName",
  AccessionNumber: "imaging.fields.AccessionNumber",
};
