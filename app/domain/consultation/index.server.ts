/**
 * Consultation: a report's way from upload to second opinion.
 *
 * - reports: creating a report, the patient's and the expert's lists, the queue of pending
 *   reports, claiming and releasing one, the opinion (`addReview`), deletion, opening the file
 *   with its access rule, overdue reports, the API shape `ApiReport`.
 * - followups: the patient's follow-up questions and the expert's answers.
 * - voice-notes: spoken descriptions, questions and explanations on a report (decision 0037).
 * - letters, letter-pdf: the signed opinion letter (data, verification code, PDF rendering).
 * - second-opinions: asking another specialty for a second opinion on a case (decision 0038).
 * - turnaround: how long opinions take (percentiles per expert) and the overdue digest.
 */
export * from "./reports.server";
export * from "./followups.server";
export * from "./voice-notes.server";
export * from "./letters.server";
export * from "./letter-pdf.server";
export * from "./turnaround.server";
export * from "./imaging.server";
export * from "./second-opinions.server";
