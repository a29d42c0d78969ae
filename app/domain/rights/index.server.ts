/**
 * Rights: what the patient decides about their data.
 *
 * - consent: consent records (review, calls, research), changing them, hiding the numbers of
 *   people who refuse calls.
 * - rights: correction and erasure requests (with the cooling-off period and its cancel link),
 *   the one erasure `eraseAccount`, the nominee, the grievance contact, the daily rights job.
 */
export * from "./consent.server";
export * from "./rights.server";
