/**
 * Sharing: a patient's time-limited links that let a doctor without an account read one report.
 *
 * - share-links: the patient's side (create, list, revoke) and the links of a profile revoked with
 *   a family member's access.
 * - share-visit: the doctor's side (visit with the access code, open, the file and the letter).
 */
export * from "./share-links.server";
export * from "./share-visit.server";
