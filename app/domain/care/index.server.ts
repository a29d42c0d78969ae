/**
 * Care: the people CareBridge serves and who acts for them (decision 0030).
 *
 * - patients: patient profiles apart from logins, the one rule of who may act for a profile
 *   (self, family manager, centre, admin), the access trail, short IDs.
 * - family: a patient account's dependants (added with a guardian's or the person's consent).
 * - takeover: a dependant or a centre's patient taking their profile over with their own number;
 *   takeover-notice announces it, takeover-review: "this was not me", the admins' undo and review.
 * - registration: a centre registers a patient after the facilitated consent; one patient's page.
 * - centre-queue: a centre's patients with where their reports stand.
 * - centres: the admin's centres, their figures (turnaround, overdue) and the public directory.
 * - workers: health workers' approval, rejection, moves and suspension.
 * - call-preferences, proven-numbers: "call me", and the number a call goes to, proven to be hers
 *   (a code by SMS or a missed call, decision 0102) before it is called.
 *
 * Other contexts and the adapters import from here (ESLint refuses another context's module).
 */
import "./call-sources.server";
export {
  familyProfiles,
  accessTo,
  findPatient,
  hasConsentFor,
  normalShortId,
  patientAccess,
  type PatientAccess,
  requirePatientAccess,
  requirePatientAccessKind,
  toApiPatient,
  traceAccess,
  workerCentreId,
} from "./patients.server";
export { notifyOpinionReady } from "./notices.server";
export {
  addFamilyMember,
  type ApiFamilyMember,
  listFamily,
  MEMBER_CONSENT_VERSION,
  type WhoseOption,
  whoseOptions,
} from "./family.server";
export { completeTakeOver, startTakeOver, takeOverTarget } from "./takeover.server";
export { type PrintedSlip, printSlip, slipPrinted } from "./slip.server";
export {
  assertMayDeleteReports,
  clearTakeOver,
  listTakeOvers,
  reportTakeOver,
  takeOverByToken,
  undoTakeOver,
  type ApiTakeOver,
} from "./takeover-review.server";
export {
  getCarePatient,
  registerPatient,
  requireWorkerCentre,
  withRegistrationBudget,
} from "./registration.server";
export { centreQueue } from "./centre-queue.server";
export {
  centreDirectory,
  createCentre,
  getCentre,
  requireCentre,
  requireCentreAdmin,
  toApiCentre,
  type ApiCentre,
  type PublicCentre,
  updateCentre,
} from "./centres.server";
export {
  type ApiHealthWorker,
  approveHealthWorker,
  findHealthWorker,
  listHealthWorkers,
  ownHealthWorker,
  rejectHealthWorker,
  updateHealthWorker,
} from "./workers.server";
export { accessHolders, accessTrail, revokeCentreAccess, revokeManager } from "./access.server";
export {
  familyNoticePreferences,
  noticePreference,
  setNoticePreference,
  type NoticePreference,
} from "./call-preferences.server";
export { checkNumberProof, proveByMissedCall, sendNumberProof } from "./proven-numbers.server";
export {
  profilesAtNumber,
  reminderContact,
  reminderPreference,
  setReminderPreference,
  type ReminderContact,
  type ReminderPreference,
} from "./reminder-preferences.server";
