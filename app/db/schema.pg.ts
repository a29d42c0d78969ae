import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import {
  ACCOUNT_TYPES,
  CODE_PURPOSES,
  NOTIFY_CHANNELS,
  REPORT_STATUSES,
  AGREEMENTS,
  SESSION_KINDS,
  SMS_STATUSES,
  MAIL_STATUSES,
  JOB_STATES,
  CONSENT_PURPOSES,
  RIGHTS_REQUEST_TYPES,
  RIGHTS_REQUEST_STATUSES,
  MFA_KINDS,
  CENTRE_KINDS,
  HEALTH_WORKER_ROLES,
  SEXES,
  PHONE_OWNERS,
  PATIENT_CONSENT_KINDS,
  CONSENT_METHODS,
  VOICE_NOTE_KINDS,
  NOTICE_BY,
  CALL_WINDOWS,
  CALL_STATUSES,
  PHRASE_KINDS,
  STEP_KINDS,
  STEP_URGENCIES,
  STEP_STATES,
  REMIND_BY,
} from "./types";

/**
 * The PostgreSQL schema: the same tables, columns, indexes and constraints as
 * `schema.sqlite.ts`, in PostgreSQL's types (timestamps as `timestamptz(3)`, flags as
 * `boolean`). Rows read through either come out as the same JavaScript values (Date, boolean,
 * number, string), so the domain is written once. tests/unit/schema-parity.test.ts fails when
 * the two drift; migrations are generated per dialect (`npm run db:generate`).
 */

const ms = (name: string) => timestamp(name, { mode: "date", withTimezone: true, precision: 3 });
const createdAt = () =>
  ms("created_at")
    .notNull()
    .default(sql`now()`);
const updatedAt = () =>
  ms("updated_at")
    .notNull()
    .default(sql`now()`);

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    /** Lower-cased; "" for a patient who signed up with a mobile number only. */
    email: text("email").notNull(),
    /** A verified mobile number in E.164 (+919876543210): a patient's identity, or where SMS go. */
    phone: text("phone"),
    passwordHash: text("password_hash").notNull(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull().default(""),
    accountType: text("account_type", { enum: ACCOUNT_TYPES }).notNull(),
    countryCode: text("country_code").notNull().default("+91"),
    contactNumber: text("contact_number").notNull().default(""),
    image: text("image"),
    approved: boolean("approved").notNull().default(false),
    locale: text("locale").notNull().default("en"),
    /** How notifications reach this account: "email", "sms" or "both" (patients with a phone get SMS too). */
    notify: text("notify", { enum: NOTIFY_CHANNELS }).notNull().default("email"),
    suspendedAt: ms("suspended_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One account per address; phone-only accounts have none ("").
    uniqueIndex("users_email_uq")
      .on(t.email)
      .where(sql`${t.email} <> ''`),
    uniqueIndex("users_phone_uq").on(t.phone),
    index("users_type_approved_created_idx").on(t.accountType, t.approved, t.createdAt, t.id),
    index("users_type_created_idx").on(t.accountType, t.createdAt, t.id),
    index("users_created_idx").on(t.createdAt, t.id),
    // The avatar route and the file sweep ask whether a stored file is someone's picture.
    index("users_image_idx").on(t.image),
  ],
);

export const profiles = pgTable("profiles", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  about: text("about"),
  gender: text("gender"),
  dateOfBirth: text("date_of_birth"),
  contactNumber: text("contact_number"),
  updatedAt: updatedAt(),
});

export const verificationCodes = pgTable(
  "verification_codes",
  {
    id: text("id").primaryKey(),
    /** The e-mail the code was mailed to, or "" when it went by SMS to `phone`. */
    email: text("email").notNull(),
    phone: text("phone"),
    purpose: text("purpose", { enum: CODE_PURPOSES }).notNull(),
    codeHash: text("code_hash").notNull(),
    payload: text("payload"),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: ms("expires_at").notNull(),
    consumedAt: ms("consumed_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("verification_codes_email_idx").on(t.email, t.purpose, t.createdAt),
    index("verification_codes_expires_idx").on(t.expiresAt),
    index("verification_codes_phone_idx").on(t.phone, t.purpose, t.createdAt),
  ],
);

export const passwordResetTokens = pgTable(
  "password_reset_tokens",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: ms("expires_at").notNull(),
    usedAt: ms("used_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("password_reset_tokens_hash_uq").on(t.tokenHash),
    index("password_reset_tokens_user_idx").on(t.userId),
  ],
);

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: SESSION_KINDS }).notNull(),
    userAgent: text("user_agent"),
    ip: text("ip"),
    createdAt: createdAt(),
    lastSeenAt: ms("last_seen_at")
      .notNull()
      .default(sql`now()`),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("sessions_token_hash_uq").on(t.tokenHash),
    index("sessions_user_idx").on(t.userId, t.lastSeenAt),
    index("sessions_expires_idx").on(t.expiresAt),
  ],
);

export const reports = pgTable(
  "reports",
  {
    id: text("id").primaryKey(),
    patientId: text("patient_id")
      .notNull()
      .references((): AnyPgColumn => patients.id, { onDelete: "cascade" }),
    reportType: text("report_type").notNull(),
    description: text("description"),
    phoneNumber: text("phone_number").notNull(),
    fileKey: text("file_key").notNull(),
    fileName: text("file_name").notNull(),
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    consentAt: ms("consent_at").notNull(),
    status: text("status", { enum: REPORT_STATUSES }).notNull().default("Pending"),
    review: text("review"),
    expertId: text("expert_id").references(() => users.id, { onDelete: "set null" }),
    reviewedAt: ms("reviewed_at"),
    /** Queue order: 0 urgent, 1 routine (the patient marks a report urgent at upload). */
    priority: integer("priority").notNull().default(1),
    urgentReason: text("urgent_reason"),
    /** The expert who started the review; the claim lapses at claimExpiresAt or when released. */
    claimedBy: text("claimed_by").references(() => users.id, { onDelete: "set null" }),
    claimedAt: ms("claimed_at"),
    claimExpiresAt: ms("claim_expires_at"),
    /** How often the claimant renewed the claim (at most CLAIM_RENEW_MAX, then it lapses; decision 0023). */
    claimRenewals: integer("claim_renewals").notNull().default(0),
    /** The structured opinion: `review` is its summary. */
    findings: text("findings"),
    recommendations: text("recommendations"),
    seeDoctorSoon: boolean("see_doctor_soon").notNull().default(false),
    /** The phrase-book entries the expert chose (decision 0081), a JSON array of their ids, in order. */
    phraseIds: text("phrase_ids"),
    /** Printed on the opinion letter; /verify/{code} confirms it. */
    letterCode: text("letter_code"),
    /** The signer as the letter prints them, copied at signing, so a later change of name does not rewrite a signed letter (decision 0023): /verify and the PDF read these. */
    signerFirstName: text("signer_first_name"),
    signerLastName: text("signer_last_name"),
    signerRegistrationNumber: text("signer_registration_number"),
    signerRegistrationCouncil: text("signer_registration_council"),
    /** Who answers follow-up questions: the reviewer, or another expert an admin reassigned them to. */
    followupExpertId: text("followup_expert_id").references(() => users.id, { onDelete: "set null" }),
    /** When admins were told (in the hourly digest) that this report is overdue. */
    /**
     * A second opinion (decision 0038): the first report of the case it belongs to. Such a row shares
     * the first report's stored file and patient, is routed by `second_specialty`, and is shown inside
     * the first report's case, never as an entry of its own in the patient's list.
     */
    secondOf: text("second_of").references((): AnyPgColumn => reports.id, { onDelete: "cascade" }),
    /** The specialty asked for; its experts review it. */
    secondSpecialty: text("second_specialty"),
    /** Why the second opinion was asked for (shown to the second expert). */
    secondNote: text("second_note"),
    secondRequestedBy: text("second_requested_by").references(() => users.id, { onDelete: "set null" }),
    /** The second expert's view of the first opinion: agree, partly or disagree, and why. */
    agreement: text("agreement", { enum: AGREEMENTS }),
    agreementReason: text("agreement_reason"),
    overdueNotifiedAt: ms("overdue_notified_at"),
    /**
     * The centre that registered the report's patient profile, copied from it by a trigger when the
     * report is written (a profile's centre never changes): a centre's figures come from counters
     * and short index walks on it, never from its patients' whole archive.
     */
    centreId: text("centre_id").references((): AnyPgColumn => centres.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("reports_patient_created_idx").on(t.patientId, t.createdAt, t.id),
    index("reports_status_created_idx").on(t.status, t.createdAt, t.id),
    index("reports_status_type_created_idx").on(t.status, t.reportType, t.createdAt, t.id),
    index("reports_expert_reviewed_idx").on(t.expertId, t.reviewedAt, t.id),
    index("reports_status_reviewed_idx").on(t.status, t.reviewedAt, t.id),
    // The file sweep asks which stored files a report refers to.
    index("reports_file_key_idx").on(t.fileKey),
    // The review queues: urgent first, then oldest (optionally of one type).
    index("reports_queue_idx").on(t.status, t.priority, t.createdAt, t.id),
    index("reports_queue_type_idx").on(t.status, t.reportType, t.priority, t.createdAt, t.id),
    index("reports_followup_expert_idx").on(t.followupExpertId, t.reviewedAt, t.id),
    uniqueIndex("reports_letter_code_uq").on(t.letterCode),
    // An expert's live claims are counted against CLAIM_MAX (decision 0023).
    index("reports_claimed_by_idx").on(t.claimedBy, t.claimExpiresAt),
    index("reports_second_of_idx").on(t.secondOf),
    // The claims still running (the "in review" figures): few, whatever the size of the archive.
    index("reports_live_claims_idx").on(t.status, t.claimExpiresAt),
    // A centre's queue (its overdue list, its newest pending) and its recent opinions (turnaround).
    index("reports_centre_queue_idx")
      .on(t.centreId, t.status, t.priority, t.createdAt, t.id)
      .where(sql`${t.centreId} is not null`),
    index("reports_centre_reviewed_idx")
      .on(t.centreId, t.status, t.reviewedAt)
      .where(sql`${t.centreId} is not null`),
    // The second-opinion queue of a specialty, in queue order (urgent first, then oldest).
    index("reports_second_queue_idx").on(t.status, t.secondSpecialty, t.priority, t.createdAt, t.id),
    // One open request per case and specialty: two simultaneous requests cannot both be filed.
    uniqueIndex("reports_second_open_uq")
      .on(t.secondOf, t.secondSpecialty)
      .where(sql`${t.status} = 'Pending' and ${t.secondOf} is not null`),
  ],
);

/** Follow-up questions a patient asks about an opinion, and the expert's answers. */
export const reportFollowups = pgTable(
  "report_followups",
  {
    id: text("id").primaryKey(),
    reportId: text("report_id")
      .notNull()
      .references(() => reports.id, { onDelete: "cascade" }),
    question: text("question").notNull(),
    askedAt: ms("asked_at").notNull(),
    answer: text("answer"),
    answeredBy: text("answered_by").references(() => users.id, { onDelete: "set null" }),
    answeredAt: ms("answered_at"),
  },
  (t) => [index("report_followups_report_idx").on(t.reportId, t.askedAt, t.id)],
);

/** Spoken notes on a report (decision 0037); see schema.sqlite.ts. */
export const voiceNotes = pgTable(
  "voice_notes",
  {
    id: text("id").primaryKey(),
    reportId: text("report_id")
      .notNull()
      .references(() => reports.id, { onDelete: "cascade" }),
    followupId: text("followup_id").references(() => reportFollowups.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: VOICE_NOTE_KINDS }).notNull(),
    authorId: text("author_id").references(() => users.id, { onDelete: "set null" }),
    language: text("language").notNull().default("en"),
    fileKey: text("file_key").notNull(),
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    durationMs: integer("duration_ms").notNull(),
    heardNote: text("heard_note"),
    heardBy: text("heard_by").references(() => users.id, { onDelete: "set null" }),
    /** The telephone copy (decision 0080): 8 kHz mono 16-bit WAV, encrypted like the note; made once. */
    phoneFileKey: text("phone_file_key"),
    phoneDurationMs: integer("phone_duration_ms"),
    createdAt: createdAt(),
  },
  (t) => [
    index("voice_notes_report_idx").on(t.reportId, t.createdAt, t.id),
    index("voice_notes_file_key_idx").on(t.fileKey),
  ],
);

/** What makes an expert account verifiable: registration, council, experience; the admin's decision. */
export const expertProfiles = pgTable("expert_profiles", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  registrationNumber: text("registration_number").notNull().default(""),
  registrationCouncil: text("registration_council").notNull().default(""),
  yearsOfPractice: integer("years_of_practice"),
  approvedBy: text("approved_by").references(() => users.id, { onDelete: "set null" }),
  approvedAt: ms("approved_at"),
  rejectedAt: ms("rejected_at"),
  rejectionReason: text("rejection_reason"),
  updatedAt: updatedAt(),
});

/** An expert's specialties (one row each): new reports are routed by them. */
export const expertSpecialties = pgTable(
  "expert_specialties",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    specialty: text("specialty").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.specialty] }),
    index("expert_specialties_specialty_idx").on(t.specialty, t.userId),
  ],
);

export const auditEvents = pgTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    actorId: text("actor_id"),
    action: text("action").notNull(),
    subjectType: text("subject_type").notNull(),
    subjectId: text("subject_id"),
    detail: text("detail"),
    ip: text("ip"),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_events_created_idx").on(t.createdAt, t.id),
    index("audit_events_action_created_idx").on(t.action, t.createdAt, t.id),
    index("audit_events_subject_idx").on(t.subjectType, t.subjectId, t.createdAt, t.id),
    // Pseudonymising or erasing one person's events finds them without walking the trail.
    index("audit_events_actor_idx").on(t.actorId, t.createdAt, t.id),
  ],
);

/**
 * Totals of the lists, one row per list (e.g. `r:s:Pending`, `r:p:<patient id>`, `a:all`), kept
 * exact by triggers written in the migrations of both dialects (drizzle/sqlite, drizzle/pg: list_counts), so
 * every write path — the domain, cascades of an erasure, scripts — keeps them right and a list
 * reads its total from one row instead of counting the archive. Keys: docs/decisions/0031.
 */
export const listCounts = pgTable("list_counts", {
  key: text("key").primaryKey(),
  n: bigint("n", { mode: "number" }).notNull().default(0),
});

export const contactMessages = pgTable(
  "contact_messages",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    message: text("message").notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("contact_messages_created_idx").on(t.createdAt, t.id)],
);

export const callbackRequests = pgTable(
  "callback_requests",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    countryCode: text("country_code").notNull(),
    phoneNumber: text("phone_number").notNull(),
    message: text("message"),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("callback_requests_created_idx").on(t.createdAt, t.id)],
);

/** rate-limiter-flexible's PostgreSQL layout (key, points, expire in epoch ms), in this column order. */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").primaryKey(),
    points: integer("points").notNull().default(0),
    expire: bigint("expire", { mode: "number" }),
  },
  (t) => [index("rate_limits_expire_idx").on(t.expire)],
);

/**
 * Outgoing SMS, a persisted queue (decision 0014): a request only adds a row; a background sender in
 * every process claims due rows one at a time (a conditional update), sends them through the SMS
 * gateway and retries failures with backoff, so a message is never lost and never blocks a request.
 */
export const smsMessages = pgTable(
  "sms_messages",
  {
    id: text("id").primaryKey(),
    /** E.164. */
    to: text("to").notNull(),
    text: text("text").notNull(),
    /** What it is for (code, reset, opinion ready, …): shown to admins, never the text's secrets. */
    purpose: text("purpose").notNull(),
    status: text("status", { enum: SMS_STATUSES }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    /** A sender holds the row until then (a crashed sender's row is taken again after it). */
    lockedUntil: ms("locked_until"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    sentAt: ms("sent_at"),
  },
  (t) => [
    index("sms_messages_due_idx").on(t.status, t.nextAttemptAt, t.id),
    index("sms_messages_created_idx").on(t.createdAt, t.id),
  ],
);

/**
 * The mail outbox (decision 0061): every mail is a row until it is settled, sent by the sender
 * loop (mail-outbox.server.ts) of any process, claimed with one conditional update so it goes
 * once, retried with backoff. The subject and bodies are blanked once it is sent, failed or
 * expired: codes and links never stay here.
 */
export const mailMessages = pgTable(
  "mail_messages",
  {
    id: text("id").primaryKey(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    /** What it is for ("code", "reset-link", "notice"): shown to admins, never the content. */
    purpose: text("purpose").notNull(),
    status: text("status", { enum: MAIL_STATUSES }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    /** A sender holds the row until then (a crashed sender's row is taken again after it). */
    lockedUntil: ms("locked_until"),
    /** A mail carrying a code or a link that runs out: never sent after this (marked expired). */
    expiresAt: ms("expires_at"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    sentAt: ms("sent_at"),
  },
  (t) => [
    index("mail_messages_due_idx").on(t.status, t.nextAttemptAt, t.id),
    index("mail_messages_created_idx").on(t.createdAt, t.id),
  ],
);

/**
 * Resumable uploads in progress (tus, decision 0015): whose, how long, how far, the report's fields.
 * The bytes are encrypted segments in the blob store; any node can continue an upload.
 */
export const uploadSessions = pgTable(
  "upload_sessions",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Declared total length in bytes. */
    length: integer("length").notNull(),
    /** Bytes received so far (the sum of the stored segments). */
    received: integer("received").notNull().default(0),
    segments: integer("segments").notNull().default(0),
    /** The report's fields sent with the upload (JSON). */
    metadata: text("metadata").notNull(),
    reportId: text("report_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("upload_sessions_owner_idx").on(t.ownerId, t.createdAt),
    index("upload_sessions_updated_idx").on(t.updatedAt),
  ],
);

// ---------------------------------------------------------------------------------------------
// The patient's data in the patient's hands (decisions 0016, 0018, 0019)

/**
 * Sharing links (modelled on SMART Health Links): a patient shares one report with a doctor who
 * has no account. The token is long and random and only its hash is kept; an optional passcode
 * (hashed) is told to the doctor separately. Opens are counted here and written to the audit log.
 */
export const shareLinks = pgTable(
  "share_links",
  {
    id: text("id").primaryKey(),
    /** SHA-256 of the token (base64url); the token itself is shown to the patient once. */
    tokenHash: text("token_hash").notNull(),
    reportId: text("report_id")
      .notNull()
      .references(() => reports.id, { onDelete: "cascade" }),
    patientId: text("patient_id")
      .notNull()
      .references((): AnyPgColumn => patients.id, { onDelete: "cascade" }),
    /** Who it is for, in the patient's words ("Dr. Rao, PHC Hosur"); shown to the patient only. */
    label: text("label").notNull().default(""),
    /** What the link shows: the report's file, the written opinion, the opinion letter PDF. */
    includeFile: boolean("include_file").notNull().default(true),
    includeOpinion: boolean("include_opinion").notNull().default(true),
    includeLetter: boolean("include_letter").notNull().default(true),
    /** Argon2id hash of the passcode, or null when the link has none. */
    passcodeHash: text("passcode_hash"),
    /** Wrong passcodes so far (the link locks after a few). */
    passcodeFailures: integer("passcode_failures").notNull().default(0),
    expiresAt: ms("expires_at").notNull(),
    /** At most this many opens (null: no limit besides the expiry). */
    maxOpens: integer("max_opens"),
    opens: integer("opens").notNull().default(0),
    lastOpenedAt: ms("last_opened_at"),
    /** Who made the link: the person, or a family member acting for them (their links end with their access). */
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    revokedAt: ms("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("share_links_token_uq").on(t.tokenHash),
    index("share_links_patient_idx").on(t.patientId, t.createdAt, t.id),
    index("share_links_report_idx").on(t.reportId),
  ],
);

/**
 * Consent records: one row per grant or withdrawal, never updated, so the history is the proof.
 * A person's current consent for a purpose is their newest row for it.
 */
export const consentRecords = pgTable(
  "consent_records",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: CONSENT_PURPOSES }).notNull(),
    granted: boolean("granted").notNull(),
    /** The version of the consent text the person was shown (e.g. "review-2026-11"). */
    textVersion: text("text_version").notNull(),
    /** The language the text was shown in. */
    locale: text("locale").notNull().default("en"),
    /** Where it was given: "signup", "settings", "api". */
    via: text("via").notNull().default("settings"),
    createdAt: createdAt(),
  },
  (t) => [index("consent_records_user_idx").on(t.userId, t.purpose, t.createdAt, t.id)],
);

/**
 * Requests about one's data (correction, erasure) and their handling by admins. An erasure is
 * carried out after `dueAt` (48 hours' notice) unless cancelled with the link mailed to the person.
 * The row outlives the account (userId set null) as the record of what was done.
 */
export const rightsRequests = pgTable(
  "rights_requests",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    type: text("type", { enum: RIGHTS_REQUEST_TYPES }).notNull(),
    status: text("status", { enum: RIGHTS_REQUEST_STATUSES }).notNull().default("open"),
    /** What the person asked (a correction's details); never medical findings of the report. */
    details: text("details").notNull().default(""),
    /** When an erasure is carried out unless cancelled. */
    dueAt: ms("due_at"),
    /** SHA-256 of the cancel link's token (erasure). */
    cancelTokenHash: text("cancel_token_hash"),
    /** The admin's answer, shown to the person. */
    response: text("response").notNull().default(""),
    resolvedBy: text("resolved_by").references(() => users.id, { onDelete: "set null" }),
    resolvedAt: ms("resolved_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("rights_requests_status_idx").on(t.status, t.createdAt, t.id),
    index("rights_requests_user_idx").on(t.userId, t.createdAt, t.id),
    index("rights_requests_due_idx").on(t.type, t.status, t.dueAt),
  ],
);

/** The person a patient names to act for them (DPDP nominee): one per account. */
export const nominees = pgTable("nominees", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  relationship: text("relationship").notNull().default(""),
  /** A phone number or e-mail address to reach them. */
  contact: text("contact").notNull(),
  updatedAt: updatedAt(),
});

/**
 * Two-factor login (TOTP, RFC 6238). The secret is encrypted with the deployment's key; the last
 * accepted time step is kept so a code cannot be used twice.
 */
export const totpFactors = pgTable("totp_factors", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** The shared secret, encrypted (AES-256-GCM under ENCRYPTION_KEY), base64url. */
  secretEnc: text("secret_enc").notNull(),
  /** Null while being set up (the first right code confirms it). */
  confirmedAt: ms("confirmed_at"),
  /** The newest time step a code was accepted for: codes of that step or older are refused. */
  lastStep: integer("last_step"),
  createdAt: createdAt(),
});

/** One-time recovery codes for a lost authenticator, hashed; each works once. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: ms("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("recovery_codes_user_idx").on(t.userId)],
);

/**
 * A login half done: the password was right and a second factor is awaited. The browser holds
 * the token in a short cookie, an API client in the login answer; only the hash is kept.
 */
export const mfaChallenges = pgTable(
  "mfa_challenges",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: MFA_KINDS }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: ms("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("mfa_challenges_token_uq").on(t.tokenHash),
    index("mfa_challenges_expires_idx").on(t.expiresAt),
  ],
);

// ---------------------------------------------------------------------------------------------
// Care through centres and families (decision 0030)

/** A place health workers register and submit for patients (Health & Wellness Centre, PHC, …). */
export const centres = pgTable(
  "centres",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    kind: text("kind", { enum: CENTRE_KINDS }).notNull(),
    district: text("district").notNull().default(""),
    state: text("state").notNull().default(""),
    pinCode: text("pin_code").notNull().default(""),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("centres_name_idx").on(t.name, t.id)],
);

/** A health worker's place and role; the account is approved (users.approved) by an admin like an expert. */
export const healthWorkers = pgTable(
  "health_workers",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    centreId: text("centre_id")
      .notNull()
      .references(() => centres.id),
    role: text("role", { enum: HEALTH_WORKER_ROLES }).notNull(),
    /** Their government or programme ID (e.g. an ASHA ID), as they gave it. */
    workerId: text("worker_id").notNull().default(""),
    updatedAt: updatedAt(),
  },
  (t) => [index("health_workers_centre_idx").on(t.centreId, t.userId)],
);

/**
 * The person whose health it is. Reports, opinions, consents and sharing links belong to a patient
 * profile; a login manages it. A patient account's own profile has the account's id (so the API's
 * patientId is unchanged); a dependant or a centre's patient has none until they take it over.
 */
export const patients = pgTable(
  "patients",
  {
    id: text("id").primaryKey(),
    /** The login that is this person (their own account), if any. */
    accountId: text("account_id").references(() => users.id, { onDelete: "cascade" }),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull().default(""),
    sex: text("sex", { enum: SEXES }),
    birthYear: integer("birth_year"),
    /** The year of birth was worked out from an age the patient gave. */
    birthYearEstimated: boolean("birth_year_estimated").notNull().default(false),
    locality: text("locality").notNull().default(""),
    /** The language letters and messages for this person are in. */
    locale: text("locale").notNull().default("en"),
    /** E.164, where notices about this person may go (never naming them), or null. */
    phone: text("phone"),
    phoneOwner: text("phone_owner", { enum: PHONE_OWNERS }).notNull().default("none"),
    /** Whose phone it is when it is a family member's ("son", "husband"). */
    phoneRelationship: text("phone_relationship").notNull().default(""),
    /** The centre that registered them, whose health workers may act for them (unless revoked). */
    centreId: text("centre_id").references(() => centres.id, { onDelete: "set null" }),
    centreAccessRevokedAt: ms("centre_access_revoked_at"),
    registeredBy: text("registered_by").references(() => users.id, { onDelete: "set null" }),
    /** A short human-readable ID printed on the slip (CB-7K4M-2Q). */
    shortId: text("short_id"),
    /**
     * The take-over code printed only on the latest slip handed to the person (decision 0073): its
     * SHA-256 (with the profile's id), when and by whom that slip was printed, how many were printed.
     */
    slipCodeHash: text("slip_code_hash"),
    slipPrintedAt: ms("slip_printed_at"),
    slipPrintedBy: text("slip_printed_by"),
    slipPrints: integer("slip_prints").notNull().default(0),
    takenOverAt: ms("taken_over_at"),
    /** How this person hears that an opinion is ready (decision 0080), and when a call may come. */
    noticeBy: text("notice_by", { enum: NOTICE_BY }).notNull().default("sms"),
    callWindow: text("call_window", { enum: CALL_WINDOWS }).notNull().default("morning"),
    /** How she is reminded of an opinion's next steps (decision 0114), and at what hour (clinic time). */
    remindBy: text("remind_by", { enum: REMIND_BY }).notNull().default("sms"),
    remindHour: integer("remind_hour").notNull().default(9),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("patients_account_uq").on(t.accountId),
    uniqueIndex("patients_short_id_uq").on(t.shortId),
    index("patients_centre_created_idx").on(t.centreId, t.createdAt, t.id),
    index("patients_phone_idx").on(t.phone),
  ],
);

/** A login that manages someone else's profile (a family member); access ends when revoked. */
export const patientManagers = pgTable(
  "patient_managers",
  {
    patientId: text("patient_id")
      .notNull()
      .references(() => patients.id, { onDelete: "cascade" }),
    managerId: text("manager_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The dependant as seen from the manager ("daughter", "father"). */
    relationship: text("relationship").notNull().default(""),
    createdAt: createdAt(),
    revokedAt: ms("revoked_at"),
  },
  (t) => [
    primaryKey({ columns: [t.patientId, t.managerId] }),
    index("patient_managers_manager_idx").on(t.managerId, t.createdAt),
  ],
);

/**
 * A completed take-over (decision 0055): who started it, what the profile's number and access were
 * before (so an admin can undo it for 7 days), the hash of the "this was not me" link announced to
 * the previous number, the managers and the centre, and where an admin's review stands.
 */
export const takeOvers = pgTable(
  "take_overs",
  {
    id: text("id").primaryKey(),
    patientId: text("patient_id")
      .notNull()
      .references(() => patients.id, { onDelete: "cascade" }),
    startedBy: text("started_by").references(() => users.id, { onDelete: "set null" }),
    /** How the starter could act for the profile: "manager" or "centre". */
    startedAs: text("started_as").notNull(),
    /** The number the account was made with. */
    phone: text("phone").notNull(),
    /** JSON: the profile's phone, phoneOwner, phoneRelationship before, the managers and centre access it ended. */
    previous: text("previous").notNull().default("{}"),
    keepAccess: boolean("keep_access").notNull().default(false),
    /** sha256 of the "this was not me" link's token. */
    reportTokenHash: text("report_token_hash").notNull(),
    reportedAt: ms("reported_at"),
    /** Why an admin should look at it: reported, or its starter was suspended, moved or declined. */
    flag: text("flag"),
    reviewedAt: ms("reviewed_at"),
    reviewedBy: text("reviewed_by").references(() => users.id, { onDelete: "set null" }),
    undoneAt: ms("undone_at"),
    undoneBy: text("undone_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("take_overs_token_uq").on(t.reportTokenHash),
    index("take_overs_patient_idx").on(t.patientId, t.createdAt),
    index("take_overs_started_by_idx").on(t.startedBy),
    index("take_overs_created_idx").on(t.createdAt, t.id),
  ],
);

/**
 * Consent given for a patient by someone else: at a centre (facilitated, the worker reading the
 * text aloud), or a guardian's for a minor. Never updated; the newest row is the one in force.
 */
export const patientConsents = pgTable(
  "patient_consents",
  {
    id: text("id").primaryKey(),
    patientId: text("patient_id")
      .notNull()
      .references(() => patients.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: PATIENT_CONSENT_KINDS }).notNull(),
    granted: boolean("granted").notNull().default(true),
    textVersion: text("text_version").notNull(),
    locale: text("locale").notNull().default("en"),
    method: text("method", { enum: CONSENT_METHODS }).notNull(),
    witnessName: text("witness_name"),
    /** A photo of the signature or thumbprint, stored encrypted like a report's file. */
    evidenceKey: text("evidence_key"),
    /** Who recorded it (the health worker or the guardian), and their name as it was then. */
    recordedBy: text("recorded_by").references(() => users.id, { onDelete: "set null" }),
    recordedByName: text("recorded_by_name").notNull().default(""),
    centreId: text("centre_id").references(() => centres.id, { onDelete: "set null" }),
    /** The guardian's relationship, for a minor. */
    relationship: text("relationship").notNull().default(""),
    /** When the consent text was read aloud, when that was before it was recorded (offline, decision 0064). */
    shownAt: ms("shown_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("patient_consents_patient_idx").on(t.patientId, t.createdAt, t.id),
    index("patient_consents_evidence_idx").on(t.evidenceKey),
  ],
);

/** The Service screen's request rollups (decision 0034); see schema.sqlite.ts. */
export const serviceRequestMinutes = pgTable(
  "service_request_minutes",
  {
    minute: integer("minute").notNull(),
    routeGroup: text("route_group").notNull(),
    statusClass: text("status_class").notNull(),
    count: integer("count").notNull().default(0),
    le5: integer("le_5").notNull().default(0),
    le10: integer("le_10").notNull().default(0),
    le25: integer("le_25").notNull().default(0),
    le50: integer("le_50").notNull().default(0),
    le100: integer("le_100").notNull().default(0),
    le250: integer("le_250").notNull().default(0),
    le500: integer("le_500").notNull().default(0),
    le1000: integer("le_1000").notNull().default(0),
    le2500: integer("le_2500").notNull().default(0),
    le5000: integer("le_5000").notNull().default(0),
    leInf: integer("le_inf").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.minute, t.routeGroup, t.statusClass] })],
);

/** The Service screen's gauge samples (decision 0034); see schema.sqlite.ts. */
export const serviceGaugeMinutes = pgTable(
  "service_gauge_minutes",
  {
    minute: integer("minute").notNull(),
    name: text("name").notNull(),
    value: integer("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.name] })],
);

/** See schema.sqlite.ts (decision 0039). */
export const imagingStudies = pgTable(
  "imaging_studies",
  {
    reportId: text("report_id")
      .primaryKey()
      .references(() => reports.id, { onDelete: "cascade" }),
    studyUid: text("study_uid").notNull(),
    modality: text("modality"),
    bodyPart: text("body_part"),
    studyDate: text("study_date"),
    description: text("description"),
    personalFields: text("personal_fields").notNull(),
    pacsStatus: text("pacs_status").notNull().default("none"),
    pacsAttempts: integer("pacs_attempts").notNull().default(0),
    pacsNextAt: ms("pacs_next_at"),
    pacsLockedUntil: ms("pacs_locked_until"),
    pacsError: text("pacs_error"),
    pacsSentAt: ms("pacs_sent_at"),
    createdAt: createdAt(),
  },
  (t) => [index("imaging_studies_pacs_due_idx").on(t.pacsStatus, t.pacsNextAt, t.reportId)],
);

export const imagingInstances = pgTable(
  "imaging_instances",
  {
    id: text("id").primaryKey(),
    reportId: text("report_id")
      .notNull()
      .references(() => reports.id, { onDelete: "cascade" }),
    fileKey: text("file_key").notNull(),
    seriesUid: text("series_uid").notNull(),
    seriesNumber: integer("series_number"),
    seriesDescription: text("series_description"),
    modality: text("modality"),
    instanceNumber: integer("instance_number"),
    sopInstanceUid: text("sop_instance_uid").notNull(),
    rows: integer("rows").notNull(),
    columns: integer("columns").notNull(),
    frames: integer("frames").notNull(),
    transferSyntax: text("transfer_syntax").notNull(),
    size: integer("size").notNull(),
  },
  (t) => [
    index("imaging_instances_report_idx").on(t.reportId, t.seriesUid, t.instanceNumber, t.id),
    index("imaging_instances_file_key_idx").on(t.fileKey),
  ],
);

export const imagingPreviews = pgTable(
  "imaging_previews",
  {
    key: text("key").primaryKey(),
    instanceId: text("instance_id")
      .notNull()
      .references(() => imagingInstances.id, { onDelete: "cascade" }),
    frame: integer("frame").notNull(),
    preset: text("preset").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("imaging_previews_uq").on(t.instanceId, t.frame, t.preset)],
);

/**
 * Idempotency keys (decision 0062): one row per (account, key) — a "pending" row is inserted before
 * a create runs (the unique pair makes a second request with the key lose), then the first answer
 * (status, a few headers, body) is kept for at least 7 days and replayed to a retry.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    /** Null while the first request runs. */
    status: integer("status"),
    headers: text("headers"),
    body: text("body"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("idempotency_keys_account_key_uq").on(t.accountId, t.key),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

/**
 * A web session that ended because its account was suspended (decision 0065): kept for a while so
 * the app's offline outbox can still be told why, and hand in what it recorded — never to act.
 */
export const endedSessions = pgTable(
  "ended_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    endedAt: ms("ended_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [index("ended_sessions_user_idx").on(t.userId), index("ended_sessions_expires_idx").on(t.expiresAt)],
);

/**
 * Held items (decision 0065): an offline action refused because its worker was suspended or moved,
 * kept for the centre it was recorded at until an admin hands it to another worker there.
 */
export const heldItems = pgTable(
  "held_items",
  {
    id: text("id").primaryKey(),
    centreId: text("centre_id")
      .notNull()
      .references(() => centres.id, { onDelete: "cascade" }),
    workerId: text("worker_id").references(() => users.id, { onDelete: "set null" }),
    workerName: text("worker_name").notNull(),
    kind: text("kind").notNull(),
    /** The outbox item's Idempotency-Key: one held item per (worker, key). */
    idemKey: text("idem_key").notNull(),
    /** Why it was refused: "suspended" or "moved". */
    reason: text("reason").notNull(),
    /** JSON: the request's fields (and, for a follow-up, its report). */
    fields: text("fields").notNull(),
    fileKey: text("file_key"),
    fileName: text("file_name"),
    fileType: text("file_type"),
    fileSize: integer("file_size"),
    /** held, handing (an admin's hand-over under way) or handed. */
    status: text("status").notNull().default("held"),
    handedTo: text("handed_to").references(() => users.id, { onDelete: "set null" }),
    handedBy: text("handed_by").references(() => users.id, { onDelete: "set null" }),
    handedAt: ms("handed_at"),
    resultId: text("result_id"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("held_items_worker_key_uq").on(t.workerId, t.idemKey),
    index("held_items_centre_idx").on(t.centreId, t.createdAt, t.id),
    index("held_items_worker_status_idx").on(t.workerId, t.status),
  ],
);

/** See schema.sqlite.ts (decision 0067). */
export const backupRuns = pgTable(
  "backup_runs",
  {
    id: text("id").primaryKey(),
    slot: ms("slot"),
    trigger: text("trigger").notNull(),
    status: text("status").notNull().default("running"),
    node: text("node").notNull(),
    repository: text("repository").notNull(),
    startedAt: ms("started_at").notNull(),
    finishedAt: ms("finished_at"),
    durationMs: integer("duration_ms"),
    snapshotId: text("snapshot_id"),
    /** When restic took the snapshot (a backup's, or the one a restore test brought back; decision 0091). */
    snapshotAt: ms("snapshot_at"),
    sizeBytes: bigint("size_bytes", { mode: "number" }),
    addedBytes: bigint("added_bytes", { mode: "number" }),
    files: integer("files"),
    reason: text("reason"),
    alertedAt: ms("alerted_at"),
  },
  (t) => [uniqueIndex("backup_runs_slot_uq").on(t.slot), index("backup_runs_started_idx").on(t.startedAt)],
);

/** See schema.sqlite.ts (decision 0068). */
export const recoverySheets = pgTable(
  "recovery_sheets",
  {
    id: text("id").primaryKey(),
    printedBy: text("printed_by").references(() => users.id, { onDelete: "set null" }),
    repository: text("repository").notNull(),
    passwordTag: text("password_tag").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("recovery_sheets_repository_idx").on(t.repository, t.passwordTag)],
);

/**
 * Phone calls (decision 0080): the missed calls that came in and the calls CareBridge places, one
 * durable queue like the SMS outbox. A row never holds what was said, only what happened.
 */
export const phoneCalls = pgTable(
  "phone_calls",
  {
    id: text("id").primaryKey(),
    /** "in": a missed call to the clinic's number; "out": a call CareBridge places. */
    direction: text("direction").notNull(),
    /** The other party's number, E.164. */
    number: text("number").notNull(),
    /** Whose profile the number belongs to (null: an unknown caller). */
    patientId: text("patient_id").references((): AnyPgColumn => patients.id, { onDelete: "cascade" }),
    /** missed-call, callback, opinion-ready or general (an unknown caller's short message). */
    purpose: text("purpose").notNull(),
    locale: text("locale").notNull().default("en"),
    status: text("status", { enum: CALL_STATUSES }).notNull().default("queued"),
    /** What happened: heard, not-verified, no-answer, busy, hung-up, rejected, … (never content). */
    outcome: text("outcome"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    lockedUntil: ms("locked_until"),
    lastError: text("last_error"),
    /** The provider's or SIP stack's id of the current attempt. */
    providerRef: text("provider_ref"),
    /** Where the call is in its menu between a provider's requests (decision 0080): keys, never content. */
    /** A next step's reminder call (decision 0115): the step it reminds of. */
    stepId: text("step_id"),
    ivrState: text("ivr_state"),
    answeredAt: ms("answered_at"),
    /** When the person proved who she is with the keypad. */
    verifiedAt: ms("verified_at"),
    endedAt: ms("ended_at"),
    durationMs: integer("duration_ms"),
    createdAt: createdAt(),
  },
  (t) => [
    index("phone_calls_due_idx").on(t.status, t.nextAttemptAt, t.id),
    index("phone_calls_created_idx").on(t.createdAt, t.id),
    index("phone_calls_number_idx").on(t.number, t.createdAt),
    index("phone_calls_patient_idx").on(t.patientId, t.createdAt),
    uniqueIndex("phone_calls_provider_ref_uq").on(t.providerRef),
  ],
);

/**
 * Phrases an admin added to the phrase book (decision 0081); the built-in ones ship in code. Every
 * language's text is written and reviewed by a person, never machine-translated.
 */
export const phrases = pgTable(
  "phrases",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: PHRASE_KINDS }).notNull(),
    en: text("en").notNull(),
    hi: text("hi").notNull(),
    bn: text("bn").notNull(),
    ta: text("ta").notNull(),
    /** Who reviewed the translations (a name and qualification, as the admin typed it). */
    reviewedBy: text("reviewed_by").notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    /** A retired phrase is no longer offered; opinions that chose it still show it. */
    retiredAt: ms("retired_at"),
    createdAt: createdAt(),
  },
  (t) => [index("phrases_created_idx").on(t.createdAt, t.id)],
);

/**
 * What admins recorded about the built-in phrases (decision 0094), which ship in code: who reviewed a
 * sentence's translations, with a hash of the four texts they saw (a sentence changed in code since is
 * not checked any more), or that it is retired (no longer offered; opinions that chose it still show it).
 */
export const builtInPhrases = pgTable("built_in_phrases", {
  id: text("id").primaryKey(),
  /** Who reviewed the translations (a name and qualification, as the admin typed it), or null. */
  reviewedBy: text("reviewed_by"),
  textsHash: text("texts_hash"),
  reviewedAt: ms("reviewed_at"),
  recordedBy: text("recorded_by").references(() => users.id, { onDelete: "set null" }),
  retiredAt: ms("retired_at"),
  updatedAt: updatedAt(),
});

/**
 * The clinic's phone line as each node's call sender last saw it (decision 0093): a SIP line's
 * registration with the trunk, for the admins' Calls tab. One row per node, refreshed every minute.
 */
export const callLines = pgTable("call_lines", {
  node: text("node").primaryKey(),
  /** registering, registered, not-registered, no-registration (register=no), not-running. */
  state: text("state").notNull(),
  /** The trunk's answer (e.g. "403 Forbidden") or why the line is not running. */
  detail: text("detail"),
  changedAt: ms("changed_at").notNull(),
  seenAt: ms("seen_at").notNull(),
});

/**
 * The lab reader's job for one report (decision 0082): durable, claimed by one process at a time
 * like the SMS queue. status: queued, reading, done, not-lab (left alone), failed.
 */
export const labReads = pgTable(
  "lab_reads",
  {
    reportId: text("report_id")
      .primaryKey()
      .references(() => reports.id, { onDelete: "cascade" }),
    status: text("status").notNull().default("queued"),
    /** "text": the PDF's text layer; "ocr": Tesseract on the image or rendered page. */
    source: text("source"),
    /**
     * The sample's date printed on the report (ISO, YYYY-MM-DD): its collection date, else the day
     * it was received, else the report's date (decision 0089); null when none was read.
     */
    sampleDate: text("sample_date"),
    attempts: integer("attempts").notNull().default(0),
    /** The account that uploaded the report: reads are shared out by it (decision 0100); null before. */
    account: text("account"),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    lockedUntil: ms("locked_until"),
    lastError: text("last_error"),
    durationMs: integer("duration_ms"),
    finishedAt: ms("finished_at"),
    createdAt: createdAt(),
  },
  (t) => [index("lab_reads_due_idx").on(t.status, t.nextAttemptAt, t.reportId)],
);

/**
 * A value read from a report, or added by the expert (decision 0082). A patient sees it only once an
 * expert confirmed or corrected it (status confirmed, corrected or added), never as read.
 */
export const labValues = pgTable(
  "lab_values",
  {
    id: text("id").primaryKey(),
    reportId: text("report_id")
      .notNull()
      .references(() => reports.id, { onDelete: "cascade" }),
    /** The catalogue's LOINC code of the analyte. */
    loinc: text("loinc").notNull(),
    printedName: text("printed_name").notNull().default(""),
    /**
     * The value in the analyte's UCUM unit, and as printed; null for a text result, which
     * `value_text` holds instead (never both: decision 0098).
     */
    value: doublePrecision("value"),
    unit: text("unit").notNull(),
    /** A text result ("Reactive", "Nil", "++", "1:80"), as printed or typed; its reference is `range_text`. */
    valueText: text("value_text"),
    printedValue: text("printed_value").notNull().default(""),
    printedUnit: text("printed_unit"),
    /**
     * The reference range printed on the report (in `unit`), never one we invent; for a text result
     * the printed reference as text ("Non-reactive").
     */
    rangeText: text("range_text"),
    rangeLow: doublePrecision("range_low"),
    rangeHigh: doublePrecision("range_high"),
    /** H or L, printed or worked out from the printed range only. */
    flag: text("flag"),
    /** Where it was found: the page (1-based) and the box as fractions of the page, JSON [x, y, w, h]. */
    page: integer("page"),
    box: text("box"),
    confidence: doublePrecision("confidence"),
    /** read (not checked), confirmed, corrected, removed, added (by the expert). */
    status: text("status").notNull().default("read"),
    /** A removed value's status before its removal, which an undo gives back (decision 0090). */
    removedFrom: text("removed_from"),
    checkedBy: text("checked_by").references(() => users.id, { onDelete: "set null" }),
    checkedAt: ms("checked_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("lab_values_report_idx").on(t.reportId, t.page, t.id),
    index("lab_values_loinc_idx").on(t.loinc, t.reportId),
  ],
);
/**
 * A turn at a part every account shares (decision 0100): page renders, lab reads. A row is one
 * account's job waiting for, or holding, a turn on one node (the host); `leased_until` ends a turn
 * whose process died. Turns go to accounts in order, one running per account across the cluster.
 */
export const workTurns = pgTable(
  "work_turns",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    account: text("account").notNull(),
    node: text("node").notNull(),
    /** waiting, running. */
    state: text("state").notNull(),
    leasedUntil: ms("leased_until").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("work_turns_kind_idx").on(t.kind, t.state, t.node),
    index("work_turns_account_idx").on(t.kind, t.account),
  ],
);

/**
 * Work that ran out of time, remembered (decision 0100): the same job on the same file is refused
 * at once until the file changes (`subject` names the file and the part of it, e.g. a page).
 */
export const workFailures = pgTable(
  "work_failures",
  {
    kind: text("kind").notNull(),
    subject: text("subject").notNull(),
    reason: text("reason").notNull(),
    failedAt: ms("failed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.subject] })],
);

/**
 * The page previews kept in the store (decision 0100), counted against the file's owner: the bytes
 * each holds, so a quota per file and per account is known before a render starts.
 */
export const previewCache = pgTable(
  "preview_cache",
  {
    key: text("key").primaryKey(),
    fileKey: text("file_key").notNull(),
    owner: text("owner").notNull(),
    bytes: integer("bytes").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("preview_cache_owner_idx").on(t.owner, t.createdAt),
    index("preview_cache_file_idx").on(t.fileKey),
  ],
);

/**
 * A phone number proven to be a profile's (decision 0102): a code sent to it by SMS and typed back,
 * or a missed call from it. Only a proven number is called.
 */
export const provenNumbers = pgTable(
  "proven_numbers",
  {
    id: text("id").primaryKey(),
    number: text("number").notNull(),
    patientId: text("patient_id")
      .notNull()
      .references(() => patients.id, { onDelete: "cascade" }),
    /** sms-code, missed-call. */
    how: text("how").notNull(),
    provenAt: ms("proven_at").notNull(),
  },
  (t) => [uniqueIndex("proven_numbers_uq").on(t.patientId, t.number)],
);

/**
 * A patient-facing lab word in one language as the clinic checked it (decision 0108): a test's name
 * (`name.<LOINC>`) or a sentence of the labs catalogue (`labs.<key>`) in Hindi, Bengali or Tamil.
 * The correction, when there is one, is shown wherever the word is (the catalogue's text stays the
 * fallback); a review says who checked the text (name and qualification, as the admin typed them)
 * and on which day, and holds only while the English and the text are the ones the hash was made of.
 */
export const labWords = pgTable(
  "lab_words",
  {
    locale: text("locale").notNull(),
    word: text("word").notNull(),
    correction: text("correction"),
    correctedBy: text("corrected_by").references(() => users.id, { onDelete: "set null" }),
    correctedAt: ms("corrected_at"),
    reviewedBy: text("reviewed_by"),
    /** The day of the review (YYYY-MM-DD, the clinic's calendar). */
    reviewedOn: text("reviewed_on"),
    /** SHA-256 of the English and the text the reviewer read. */
    reviewedHash: text("reviewed_hash"),
    recordedBy: text("recorded_by").references(() => users.id, { onDelete: "set null" }),
    recordedAt: ms("recorded_at"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.locale, t.word] })],
);

/**
 * One runner for all background work (decision 0113): a job of a kind with a JSON payload, asked
 * for once per (kind, key) — asking again gives the same job. One runner holds it at a time under a
 * lease (a holder that died loses it when the lease ends); a failed attempt waits its kind's
 * backoff, and after its kind's last attempt the job is dead, keeping its last error.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    /** The idempotency key: the same work asked for twice is one job. */
    key: text("key").notNull(),
    /** JSON. */
    payload: text("payload").notNull(),
    state: text("state", { enum: JOB_STATES }).notNull().default("queued"),
    /** Attempts begun (a claim counts one, so an attempt whose runner died counts too). */
    attempts: integer("attempts").notNull().default(0),
    /** Attempts that ended in an error (the failures figure). */
    failures: integer("failures").notNull().default(0),
    /** Not taken before this (the next attempt's time after a failure). */
    runAt: ms("run_at").notNull(),
    /** The runner holding it (a fresh token per claim) and until when; a renewal moves it on. */
    holder: text("holder"),
    leasedUntil: ms("leased_until"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    finishedAt: ms("finished_at"),
  },
  (t) => [
    uniqueIndex("jobs_kind_key_uq").on(t.kind, t.key),
    index("jobs_kind_state_idx").on(t.kind, t.state, t.runAt, t.id),
    index("jobs_state_lease_idx").on(t.state, t.leasedUntil),
  ],
);

/**
 * An opinion's next steps (decision 0114), signed with it and never rewritten: repeat tests (LOINC
 * codes of the lab catalogue, a JSON array), see a specialist, or go to a facility, each due `in_days`
 * after the opinion (`due_on`, the clinic's date). Where it stands, who closed it and why; the repeat
 * report attached; a facility step's referral code and the facility's acknowledgement; reminders sent.
 */
export const nextSteps = pgTable(
  "next_steps",
  {
    id: text("id").primaryKey(),
    reportId: text("report_id")
      .notNull()
      .references((): AnyPgColumn => reports.id, { onDelete: "cascade" }),
    patientId: text("patient_id")
      .notNull()
      .references((): AnyPgColumn => patients.id, { onDelete: "cascade" }),
    /** The centre of the patient's profile, copied at signing (a profile's centre never changes). */
    centreId: text("centre_id").references((): AnyPgColumn => centres.id, { onDelete: "set null" }),
    /** The expert who asked for it (the opinion's signer). */
    expertId: text("expert_id").references((): AnyPgColumn => users.id, { onDelete: "set null" }),
    position: integer("position").notNull(),
    kind: text("kind", { enum: STEP_KINDS }).notNull(),
    /** tests: the analytes' LOINC codes, a JSON array. */
    loincs: text("loincs"),
    /** specialist: one of SPECIALTIES. */
    specialty: text("specialty"),
    /** facility: its name as the expert wrote it; null: the nearest hospital. */
    facility: text("facility"),
    urgency: text("urgency", { enum: STEP_URGENCIES }),
    /** facility: why (as the expert wrote it). */
    reason: text("reason"),
    inDays: integer("in_days").notNull(),
    /** YYYY-MM-DD in the clinic's time zone. */
    dueOn: text("due_on").notNull(),
    state: text("state", { enum: STEP_STATES }).notNull().default("open"),
    stateReason: text("state_reason"),
    stateAt: ms("state_at"),
    stateBy: text("state_by").references((): AnyPgColumn => users.id, { onDelete: "set null" }),
    /** The repeat report that closed a tests step. */
    attachedReportId: text("attached_report_id").references((): AnyPgColumn => reports.id, {
      onDelete: "set null",
    }),
    /** facility: the code on the referral letter that the facility opens at /referral/{code}. */
    referralCode: text("referral_code"),
    referralSeenAt: ms("referral_seen_at"),
    referralNote: text("referral_note"),
    /** The patient switched reminders off for this step. */
    remindOff: boolean("remind_off").notNull().default(false),
    /** "Remind me later": no reminder before this date (YYYY-MM-DD). */
    snoozedUntil: text("snoozed_until"),
    remindersSent: integer("reminders_sent").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("next_steps_report_idx").on(t.reportId, t.position),
    index("next_steps_patient_idx").on(t.patientId, t.dueOn, t.id),
    index("next_steps_centre_idx").on(t.centreId, t.state, t.dueOn, t.id),
    index("next_steps_state_due_idx").on(t.state, t.dueOn, t.id),
    index("next_steps_expert_idx").on(t.expertId, t.state, t.dueOn, t.id),
    uniqueIndex("next_steps_referral_code_uq").on(t.referralCode),
  ],
);
