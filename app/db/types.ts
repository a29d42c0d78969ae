/** Values shared by both dialects' schemas and by code that must not import a driver (forms, OpenAPI). */
/** HealthWorker: a CHO, ANM, ASHA, VLE or doctor at a centre who registers patients and submits for them. */
export const ACCOUNT_TYPES = ["Patient", "Expert", "Admin", "HealthWorker"] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export const REPORT_STATUSES = ["Pending", "Reviewed"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
/** The second expert's view of the first opinion (decision 0038). */
export const AGREEMENTS = ["agree", "partly", "disagree"] as const;
export type Agreement = (typeof AGREEMENTS)[number];
export const SESSION_KINDS = ["web", "api"] as const;
export const NOTIFY_CHANNELS = ["email", "sms", "both"] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];
/** "takeover": a code sent to the number of someone taking over their patient profile (care/takeover). */
/** "prove": a number proven to be a profile's before it is called (decision 0102); its payload is the profile's id. */
export const CODE_PURPOSES = ["signup", "login", "reset", "takeover", "prove"] as const;
export const SMS_STATUSES = ["queued", "sending", "sent", "failed"] as const;
/** The mail outbox (decision 0061): "expired": a code or link mail not sent before its code or link ran out. */
export const MAIL_STATUSES = ["queued", "sending", "sent", "failed", "expired"] as const;
/**
 * A background job's state (decision 0113): waiting its turn (or its next attempt), held by one
 * runner under a lease, finished, or given up after its kind's last attempt (its last error kept).
 */
export const JOB_STATES = ["queued", "running", "done", "dead"] as const;
/**
 * An opinion's next steps (decision 0114): repeat tests (lab catalogue analytes), see a specialist,
 * or go to a facility; how soon a specialist or facility is wanted; and where a step stands.
 */
export const STEP_KINDS = ["tests", "specialist", "facility"] as const;
export type StepKind = (typeof STEP_KINDS)[number];
export const STEP_URGENCIES = ["today", "week", "weeks"] as const;
export type StepUrgency = (typeof STEP_URGENCIES)[number];
/** open: not yet closed; done: the tests or visit happened (a repeat report attached, or marked); visited: the health worker saw her; declined (with a reason); unreachable. */
export const STEP_STATES = ["open", "done", "visited", "declined", "unreachable"] as const;
export type StepState = (typeof STEP_STATES)[number];
/** How a patient is reminded of a step that falls due (decision 0114). */
export const REMIND_BY = ["sms", "call", "email", "none"] as const;
export type RemindBy = (typeof REMIND_BY)[number];
/** What an SMS is for (sms.server SmsPurpose); "erased": the last message to an erased person, never kept. */
export const SMS_PURPOSES = [
  "signup-code",
  "login-code",
  "reset-code",
  "takeover-code",
  "proof-code",
  "opinion-ready",
  "followup-answered",
  "notice",
  "step-reminder",
  "erased",
] as const;

/** What a patient consents to, each recorded separately with the text version shown (decision 0019). */
export const CONSENT_PURPOSES = ["review", "contact", "statistics"] as const;
export type ConsentPurpose = (typeof CONSENT_PURPOSES)[number];
/** Requests a person makes about their data; admins act on them in a queue (decision 0019). */
export const RIGHTS_REQUEST_TYPES = ["correction", "erasure"] as const;
export const RIGHTS_REQUEST_STATUSES = ["open", "done", "rejected", "cancelled"] as const;
/** Second-factor challenges wait for a code after a right password (web or API login; decision 0017). */
export const MFA_KINDS = ["web", "api"] as const;

/** Where a health worker works (decision 0030): Health & Wellness Centre, PHC, CHC, clinic, Common Service Centre. */
export const CENTRE_KINDS = ["hwc", "phc", "chc", "clinic", "csc"] as const;
export type CentreKind = (typeof CENTRE_KINDS)[number];
/** A health worker's role at their centre. */
export const HEALTH_WORKER_ROLES = ["cho", "anm", "asha", "vle", "doctor", "other"] as const;
export type HealthWorkerRole = (typeof HEALTH_WORKER_ROLES)[number];
/** A patient profile's sex as registered. */
export const SEXES = ["female", "male", "other"] as const;
/** Whose phone a patient profile's number is: the patient's own, a family member's, or none. */
export const PHONE_OWNERS = ["self", "family", "none"] as const;
export type PhoneOwner = (typeof PHONE_OWNERS)[number];
/** Consent given for someone else: at a centre (facilitated) or by a guardian for a minor dependant. */
export const PATIENT_CONSENT_KINDS = ["facilitated", "guardian", "family"] as const;
/** How a facilitated consent was taken (Telemedicine Practice Guidelines 2020: explicit consent). */
export const CONSENT_METHODS = ["verbal", "witnessed", "signature", "thumbprint", "online"] as const;
export type ConsentMethod = (typeof CONSENT_METHODS)[number];

/** A voice note's part (decision 0037): the patient's description of a report, a follow-up question, the expert's explanation. */
export const VOICE_NOTE_KINDS = ["description", "question", "explanation"] as const;
export type VoiceNoteKind = (typeof VOICE_NOTE_KINDS)[number];

/** How a patient profile hears that an opinion is ready (decision 0080): a text, a phone call, or both. */
export const NOTICE_BY = ["sms", "call", "both"] as const;
export type NoticeBy = (typeof NOTICE_BY)[number];
/** The part of the day a "call me" profile is called in (decision 0080), in the clinic's time zone. */
export const CALL_WINDOWS = ["morning", "afternoon", "evening"] as const;
export type CallWindow = (typeof CALL_WINDOWS)[number];
/** A phone call's place in the call queue (decision 0080); what happened on it is its `outcome`. */
export const CALL_STATUSES = ["queued", "calling", "done", "failed"] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
/** The phrase book's two lists (decision 0081). */
export const PHRASE_KINDS = ["finding", "advice"] as const;
export type PhraseKind = (typeof PHRASE_KINDS)[number];
