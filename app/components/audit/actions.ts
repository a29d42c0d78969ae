import type { AuditAction } from "~/domain/platform/index.server";

/**
 * Every action the audit trail records, with its label on the admin's audit log: the one list the
 * screen reads for the rows and for the filter's options. Typed by the domain's `AuditAction`, so
 * an action recorded without a label here fails `tsc`; tests/unit/audit-actions.test.ts checks
 * that each label reads in every language. It lives beside the screens, not in the domain, because
 * the browser translates the labels (the route's strings are found by following its imports:
 * scripts/i18n-route-keys.ts). Short past-tense phrases, never a sentence with a place to fill.
 */

/** Recorded once and no longer: their events stay in the trail until pruned, so they keep a label. */
export type PastAuditAction = "account.delete";

type Labelled = AuditAction | PastAuditAction;

type AreaOf<A> = A extends `${infer Area}.${string}` ? Area : never;
/** The area of an action: what comes before its dot ("centre", "patient"…). */
export type AuditArea = AreaOf<Labelled>;

/** The filter's groups, in the order it offers them, each with its label. */
export const AUDIT_AREAS: Record<AuditArea, string> = {
  report: "audit.areas.report",
  voice_note: "audit.areas.voiceNote",
  followup: "audit.areas.followup",
  share: "audit.areas.share",
  expert: "audit.areas.expert",
  patient: "audit.areas.patient",
  centre: "audit.areas.centre",
  account: "audit.areas.account",
  backup: "audit.areas.backup",
  job: "audit.areas.job",
  phrase: "audit.areas.phrase",
  lab_word: "audit.areas.labWord",
};

/** Each action's label, each area's actions in the order they happen. */
export const AUDIT_ACTIONS: Record<Labelled, string> = {
  "report.upload": "audit.actions.reportUpload",
  "report.file_open": "audit.actions.reportFileOpen",
  "report.study_open": "imaging.auditStudyOpen",
  "report.frame_open": "imaging.auditFrameOpen",
  "report.file_refused": "audit.actions.reportFileRefused",
  "report.claim": "audit.actions.reportClaim",
  "report.release": "audit.actions.reportRelease",
  "report.review": "audit.actions.reportReview",
  "report.letter_open": "audit.actions.reportLetterOpen",
  "report.second_opinion_request": "audit.actions.reportSecondOpinionRequest",
  "report.first_opinion_open": "audit.actions.reportFirstOpinionOpen",
  "report.overdue_notice": "audit.actions.reportOverdueNotice",
  "report.delete": "audit.actions.reportDelete",
  "voice_note.add": "audit.actions.voiceNoteAdd",
  "voice_note.open": "audit.actions.voiceNoteOpen",
  "voice_note.refused": "audit.actions.voiceNoteRefused",
  "voice_note.heard": "audit.actions.voiceNoteHeard",
  "followup.ask": "audit.actions.followupAsk",
  "followup.answer": "audit.actions.followupAnswer",
  "followup.reassign": "audit.actions.followupReassign",
  "share.create": "share.auditCreate",
  "share.open": "share.auditOpen",
  "share.file_open": "share.auditFileOpen",
  "share.letter_open": "share.auditLetterOpen",
  "share.passcode_fail": "share.auditPasscodeFail",
  "share.revoke": "share.auditRevoke",
  "expert.approve": "audit.actions.expertApprove",
  "expert.reject": "audit.actions.expertReject",
  "expert.details_review": "audit.actions.expertDetailsReview",
  "patient.registered": "audit.actions.patientRegistered",
  "patient.family_add": "audit.actions.patientFamilyAdd",
  "patient.opened": "audit.actions.patientOpened",
  "patient.reports_open": "audit.actions.patientReportsOpen",
  "patient.file_open": "audit.actions.patientFileOpen",
  "patient.letter_open": "audit.actions.patientLetterOpen",
  "patient.report_upload": "audit.actions.patientReportUpload",
  "patient.followup_ask": "audit.actions.patientFollowupAsk",
  "patient.voice_add": "audit.actions.patientVoiceAdd",
  "patient.voice_open": "audit.actions.patientVoiceOpen",
  "patient.voice_heard": "audit.actions.patientVoiceHeard",
  "patient.share_create": "audit.actions.patientShareCreate",
  "patient.share_revoke": "audit.actions.patientShareRevoke",
  "patient.fhir_export": "audit.actions.patientFhirExport",
  "patient.notice_set": "audit.actions.patientNoticeSet",
  "patient.call_heard": "audit.actions.patientCallHeard",
  "patient.number_proven": "audit.actions.patientNumberProven",
  "patient.step_state": "steps.auditState",
  "patient.step_reminded": "steps.auditReminded",
  "patient.step_answered": "steps.auditAnswered",
  "patient.step_reminders": "steps.auditReminders",
  "patient.step_attached": "steps.auditAttached",
  "patient.referral_seen": "steps.auditReferralSeen",
  "patient.call_unverified": "audit.actions.patientCallUnverified",
  "patient.manager_revoked": "audit.actions.patientManagerRevoked",
  "patient.centre_revoked": "audit.actions.patientCentreRevoked",
  "patient.slip_print": "audit.actions.patientSlipPrint",
  "patient.takeover_start": "audit.actions.patientTakeoverStart",
  "patient.takeover": "audit.actions.patientTakeover",
  "patient.takeover_report": "audit.actions.patientTakeoverReport",
  "patient.takeover_undo": "audit.actions.patientTakeoverUndo",
  "patient.takeover_clear": "audit.actions.patientTakeoverClear",
  "centre.create": "audit.actions.centreCreate",
  "centre.update": "audit.actions.centreUpdate",
  "centre.worker_approve": "audit.actions.centreWorkerApprove",
  "centre.worker_reject": "audit.actions.centreWorkerReject",
  "centre.worker_move": "audit.actions.centreWorkerMove",
  "centre.worker_suspend": "audit.actions.centreWorkerSuspend",
  "centre.worker_unsuspend": "audit.actions.centreWorkerUnsuspend",
  "centre.item_held": "audit.actions.centreItemHeld",
  "centre.held_handed": "audit.actions.centreHeldHanded",
  // Two-step login (decision 0017)
  "account.2fa_enable": "mfa.auditEnable",
  "account.2fa_disable": "mfa.auditDisable",
  "account.2fa_reset": "mfa.auditReset",
  "account.2fa_recovery_codes": "mfa.auditRecoveryCodes",
  "account.2fa_recovery_login": "mfa.auditRecoveryLogin",
  "account.consent_grant": "audit.actions.accountConsentGrant",
  "account.consent_withdraw": "audit.actions.accountConsentWithdraw",
  "account.nominee_add": "audit.actions.accountNomineeAdd",
  "account.nominee_change": "audit.actions.accountNomineeChange",
  "account.nominee_remove": "audit.actions.accountNomineeRemove",
  "account.correction_request": "audit.actions.accountCorrectionRequest",
  "account.data_export": "fhir.auditDataExport",
  "account.erasure_request": "audit.actions.accountErasureRequest",
  "account.erasure_cancel": "audit.actions.accountErasureCancel",
  "account.erasure": "audit.actions.accountErasure",
  "account.delete": "audit.actions.accountDelete",
  "account.request_resolve": "audit.actions.accountRequestResolve",
  "account.audit_prune": "audit.actions.accountAuditPrune",
  "backup.started": "audit.actions.backupStarted",
  "backup.restore_tested": "audit.actions.backupRestoreTested",
  "backup.recovery_sheet_printed": "audit.actions.backupRecoverySheetPrinted",
  "job.retried": "audit.actions.jobRetried",
  "job.dropped": "audit.actions.jobDropped",
  "phrase.add": "audit.actions.phraseAdd",
  "phrase.review": "audit.actions.phraseReview",
  "phrase.retire": "audit.actions.phraseRetire",
  "lab_word.review": "audit.actions.labWordReview",
  "lab_word.correct": "audit.actions.labWordCorrect",
  "lab_word.revert": "audit.actions.labWordRevert",
};

/** Whether `action` is one the screen knows (a query string may name anything). */
export function isLabelledAction(action: string): action is Labelled {
  return Object.hasOwn(AUDIT_ACTIONS, action);
}

/** The filter's options: each area (its label key) with its actions and their label keys. */
export const AUDIT_ACTION_GROUPS = (Object.entries(AUDIT_AREAS) as [AuditArea, string][]).map(
  ([area, label]) => ({
    area,
    label,
    actions: Object.entries(AUDIT_ACTIONS).filter(([action]) => action.startsWith(`${area}.`)),
  }),
);
