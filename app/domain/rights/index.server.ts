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
export * from "./consent.server";
export * from "./rights.server";
export * from "./erasure.server";
export * from "./nominee.server";
export * from "./rights-admin.server";
export * from "./rights-job.server";
