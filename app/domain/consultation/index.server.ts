/**
 * Consultation: a report's way from upload to second opinion. What the context offers to routes,
 * utils, server, scripts, tests and other contexts is exactly what is named below; everything else
 * stays inside. Every rule of the API contract lives here once: screens and /api/v1 routes both
 * call these functions.
 *
 * Reports:
 * - api-report: the API shape `ApiReport` (and how a row becomes one), the file and letter addresses.
 * - report-upload: creating a report (who may upload and for whom).
 * - report-lists: the patient's and the expert's lists, the queue of pending reports, the reviewed
 *   lists — built from report-rows (the joined row), report-case (follow-ups and second opinions
 *   that come with a report), report-list-statements (each list's prepared statements and queue
 *   segments; PostgreSQL plan tuning in ~/db/literal-window) and report-list-paging.
 * - report-claims: claiming, renewing and releasing a report, its cap and cool-down.
 * - report-review: the opinion (`addReview`); review-screen: the add-review screen's report.
 * - report-files: opening the file with its access rule (`fileAccessRefusal`).
 * - report-deletion: deleting a report with its files.
 * - overdue-reports: when a pending report is overdue, and the overdue list.
 *
 * Around the report:
 * - followups: the patient's follow-up questions and the expert's answers.
 * - voice-notes: spoken descriptions, questions and explanations on a report (decision 0037).
 * - letters, letter-access, letter-pdf (with letter-layout, letter-fonts): the signed opinion
 *   letter (who may fetch it, /verify, the verification code, PDF rendering).
 * - imaging: the medical images of a report, under its file's rule.
 * - second-opinions: asking another specialty for a second opinion on a case (decision 0038).
 * - resumable-uploads: resumable upload sessions (begin, append, finish into a report, abandon,
 *   sweep; decision 0015).
 * - centre-figures: a centre's queue, turnaround, workers and overdue reports (the centres are care's).
 * - turnaround: how long opinions take (percentiles per expert) and the overdue digest.
 * - lab-words (with the browser-safe lab-words.ts): the lab words a patient reads in her language,
 *   reviewed and corrected by the clinic (decision 0108).
 * - next-steps-referral (with referral-pdf): a facility step's referral letter and the public
 *   /referral/{code} acknowledgement; next-steps-worklist: the centre's worklist, the weekly
 *   figures and CSV, the daily digest of urgent steps past due (decision 0114).
 * - next-steps: an opinion's next steps, signed with it; where each stands, who may see and close
 *   it (decision 0114).
 * - held-items, held-handover: what a suspended or moved health worker recorded offline, refused
 *   with the reason and kept for the centre until an admin hands it to another worker (0065).
 */
import "./call-sources.server";
export {
  letterVerifyUrl,
  opinionUrl,
  reportFileUrl,
  toApiReport,
  type ApiReport,
  type PatientReport,
} from "./api-report.server";
export { assertCanUpload, createReport, refuseReportUpload, uploadTarget } from "./report-upload.server";
export {
  listAllReviewed,
  listFollowUpThreads,
  listPatientReports,
  listPendingReports,
  listReviewedByExpert,
} from "./report-lists.server";
export { claimReport, releaseReport } from "./report-claims.server";
export { addReview } from "./report-review.server";
export {
  clinicDateAfter,
  clinicTodayDate,
  newReferralCode,
  normalReferralCode,
  requireStepAccess,
  setStepState,
  stepsFor,
  toApiStep,
  withSteps,
  type ApiNextStep,
  type StepAccess,
  type StepRow,
} from "./next-steps.server";
export { dueDay, spokenSteps, stepWords, type StepWords } from "./step-words.server";
export {
  acknowledgeReferral,
  openReferral,
  referralLetter,
  referralUrl,
  type ReferralView,
} from "./next-steps-referral.server";
export {
  centreWorklist,
  csvCell,
  sendStepsDigest,
  stepGaugeValues,
  stepWeeks,
  stepWeeksCsv,
  WORKLIST_WHEN,
  type StepWeek,
  type WorklistItem,
  type WorklistWhen,
} from "./next-steps-worklist.server";
export { reviewScreenReport } from "./review-screen.server";
export { openReportFile, reportPageImage } from "./report-files.server";
export { deleteReport } from "./report-deletion.server";
export { overdueReports, PRIORITIES } from "./overdue-reports.server";
export {
  answerFollowUp,
  askFollowUp,
  followUpsFor,
  reassignFollowUps,
  type ApiFollowUp,
} from "./followups.server";
export {
  addVoiceNote,
  listVoiceNotes,
  openVoiceNote,
  setHeardNote,
  voiceMaxBytes,
  voiceNotesFor,
  type ApiVoiceNote,
} from "./voice-notes.server";
export { letterFileName, opinionLetter, renderOpinionLetter } from "./letters.server";
export { reportForLetter, verifyLetter } from "./letter-access.server";
export {
  centreFigures,
  getTurnaround,
  inReviewByCentre,
  notDuePlaceholders,
  notDueValues,
  opinionTimes,
  queueCounts,
  queueFrom,
  sendOverdueDigest,
  turnaroundFigures,
  waitingColumns,
  type TurnaroundFigures,
} from "./turnaround.server";
export {
  centreOverdue,
  centreStats,
  getCentreWithStats,
  listCentres,
  type ApiCentreWithStats,
  type CentreStats,
} from "./centre-figures.server";
export { openReportStudy, openStudyFrame, studyForScreen } from "./imaging.server";
export { requestSecondOpinion } from "./second-opinions.server";
export {
  abandonUpload,
  appendToUpload,
  beginUpload,
  finishUpload,
  FINISHING,
  getUpload,
  sweepUploads,
  type UploadSession,
} from "./resumable-uploads.server";
export {
  holdBudget,
  holdItem,
  HELD_PER_WORKER,
  listHeldItems,
  outboxRefusal,
  MOVED_ITEMS_DAYS,
  type ApiHeldItem,
  type HeldKind,
  type OutboxRefusal,
} from "./held-items.server";
export { handOverHeldItem } from "./held-handover.server";
export { opinionsForCall } from "./phone-opinions.server";
export {
  addPhrase,
  checkPhraseIds,
  listPhrases,
  phraseBook,
  phrasePicker,
  phrasesFor,
  PHRASES_PER_OPINION,
  retirePhrase,
  reviewBuiltInPhrase,
  type Phrase,
  type PhraseChoice,
} from "./phrase-book.server";
export {
  addValue,
  checkValue,
  confirmedValues,
  labReview,
  type LabReading,
  observationsFor,
  valuesForReview,
  type ApiLabValue,
} from "./lab-values.server";
export { labSeries, repeatSeries, type LabPoint, type LabSeries } from "./lab-series.server";
export {
  confirmableInBulk,
  confirmValues,
  readWithDoubt,
  type ConfirmAllInput,
  type ConfirmAllResult,
} from "./lab-checks.server";
export {
  clinicToday,
  correctLabWord,
  labSentence,
  labWordList,
  labWordsFor,
  reviewLabWords,
  revertLabWord,
  testName,
  testNameAsPrinted,
  type LabWordEntry,
  type LabWords,
} from "./lab-words.server";
export {
  answerReminder,
  askForScan,
  readAnswer,
  reminderMoments,
  runStepReminders,
  scanStepReminders,
  setStepReminders,
  startStepReminders,
  stopStepReminders,
} from "./step-reminders.server";
export { attachRepeatReport, stepOffersFor, type StepOffer } from "./step-attach.server";
export { answerStepByCall, reminderCallStep } from "./step-reminder-calls.server";
