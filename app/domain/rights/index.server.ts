/**
 * Rights: what the patient decides about their data.
 *
 * - consent: consent records (review, calls, research), changing them, hiding the numbers of
 *   people who refuse calls.
 * - rights: the requests' shape, the grievance contact, the person's correction requests and list.
 * - erasure: the erasure request (with the cooling-off period and its cancel link) and the one
 *   erasure `eraseAccount`.
 * - nominee: the person's nominee.
 * - rights-admin: the admins' queue of requests and their answers.
 * - rights-job: the daily rights job (due erasures, audit retention, old SMS).
 */
export {
  changeConsent,
  consentOverview,
  hidePhonesOfFlagged,
  hidePhonesOfRefusers,
  HIDDEN_PHONE,
  profileConsents,
  refusesCallsColumn,
  reviewConsentForUpload,
  type ConsentState,
} from "./consent.server";
export {
  cancelErasure,
  cancelLinkLive,
  eraseAccount,
  erasedPseudonym,
  requestErasure,
} from "./erasure.server";
export { getNominee, removeNominee, setNominee } from "./nominee.server";
export {
  grievanceContact,
  listOwnRequests,
  openErasureOf,
  requestCorrection,
  type ApiRightsRequest,
} from "./rights.server";
export { listRightsRequests, resolveRightsRequest } from "./rights-admin.server";
export { rightsJob, runDueErasures, startRightsJob, stopRightsJob } from "./rights-job.server";
