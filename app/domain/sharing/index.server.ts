/**
 * Sharing: a patient's time-limited links that let a doctor without an account read one report
 * (create, list, revoke, visit with the access code, open the file and the letter).
 */
export * from "./share-links.server";
