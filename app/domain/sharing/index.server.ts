/**
 * Sharing: a patient's time-limited links that let a doctor without an account read one report.
 *
 * - share-links: the patient's side (create, list, revoke) and the links of a profile revoked with
 *   a family member's access.
 * - share-visit: the doctor's side (visit with the access code, open, the file and the letter).
 */
export {
  createShareLink,
  listShareLinks,
  revokeShareLink,
  shareScreen,
  type ApiShareLink,
} from "./share-links.server";
export {
  isShareRefusal,
  openShareLink,
  openSharedFile,
  sharedLetter,
  visitShareLink,
  type ShareGrant,
  type ShareLanding,
  type SharedView,
} from "./share-visit.server";
