import { databaseKind } from "~/config.server";
import * as pg from "./schema.pg";
import * as lite from "./schema.sqlite";

export * from "./types";

/**
 * The tables of the database DATABASE_URL selects, under one set of names and types, so every
 * domain module is written once. They are typed as the SQLite tables; the PostgreSQL ones
 * produce the same row values (tests/unit/schema-parity.test.ts keeps the two schemas equal).
 */
const active = (databaseKind() === "postgres" ? pg : lite) as unknown as typeof lite;

export const {
  users,
  profiles,
  verificationCodes,
  passwordResetTokens,
  sessions,
  reports,
  auditEvents,
  contactMessages,
  callbackRequests,
  rateLimits,
  reportFollowups,
  expertProfiles,
  expertSpecialties,
  smsMessages,
  mailMessages,
  uploadSessions,
  shareLinks,
  consentRecords,
  rightsRequests,
  nominees,
  totpFactors,
  recoveryCodes,
  mfaChallenges,
  centres,
  healthWorkers,
  patients,
  nextSteps,
  patientManagers,
  patientConsents,
  listCounts,
  serviceRequestMinutes,
  serviceGaugeMinutes,
  imagingStudies,
  imagingInstances,
  imagingPreviews,
  voiceNotes,
  takeOvers,
  idempotencyKeys,
  endedSessions,
  heldItems,
  backupRuns,
  recoverySheets,
  phoneCalls,
  phrases,
  builtInPhrases,
  callLines,
  labReads,
  labValues,
  workTurns,
  workFailures,
  previewCache,
  provenNumbers,
  labWords,
  jobs,
} = active;

export type UserRow = typeof lite.users.$inferSelect;
export type ReportRow = typeof lite.reports.$inferSelect;
export type PatientRow = typeof lite.patients.$inferSelect;
export type VoiceNoteRow = typeof lite.voiceNotes.$inferSelect;
export type TakeOverRow = typeof lite.takeOvers.$inferSelect;
export type CentreRow = typeof lite.centres.$inferSelect;
export type HeldItemRow = typeof lite.heldItems.$inferSelect;
export type PhoneCallRow = typeof lite.phoneCalls.$inferSelect;
export type PhraseRow = typeof lite.phrases.$inferSelect;
export type LabValueRow = typeof lite.labValues.$inferSelect;
export type BackupRunRow = typeof lite.backupRuns.$inferSelect;
export type JobRow = typeof lite.jobs.$inferSelect;
