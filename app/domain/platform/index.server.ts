/**
 * Platform: what every context leans on.
 *
 * - errors: `DomainError`, the one typed error every domain function throws (safe in the browser).
 * - client, paging: who is asking (a plain value) and pages of lists (safe in the browser).
 * - ratelimit, budgets: rate limits and SMS budgets counted in the database.
 * - audit: the audit trail and who opened which file or link.
 * - list-counts, cursor: list totals kept as counters (decision 0031) and cursor pages.
 * - jobs: the one runner for background work (decision 0113); schedules: work on a clock, on it.
 * - turns: a fair share of a shared part, turns per account across nodes; work that ran out of time remembered (decision 0100).
 *
 * Platform depends on no other context (scripts/import-cycles.mjs checks it); start-up, gauges
 * and the Service screen's figures, which use every context, are in `operations`.
 */
export { DomainError, type DomainErrorCode, HTTP_STATUS, isDomainError, zodFieldErrors } from "./errors";
export { type Client, UNKNOWN_CLIENT } from "./client";
export { type Paged, type PageQuery } from "./paging";
export type { Actor } from "./actor";
export {
  answeredIdempotencyKey,
  claimIdempotencyKey,
  completeIdempotencyKey,
  keptIdempotencyKey,
  pruneIdempotencyKeys,
  releaseIdempotencyKey,
  type StoredAnswer,
} from "./idempotency.server";
export {
  addressKey,
  beginLogin,
  forgive,
  limit,
  limitSms,
  proofTries,
  pruneRateLimits,
  type SmsCeiling,
  takeMailPoint,
} from "./ratelimit.server";
export {
  accessTrailColumns,
  accessTrailFromColumns,
  accessTrailsForReports,
  type ApiAuditEvent,
  type AuditAction,
  audit,
  auditInsert,
  pruneAuditBefore,
  pseudonymiseInTrail,
  type FileView,
  labelLinkOpens,
  type LinkOpen,
  listAuditEvents,
  parseDetail,
  PATIENT_ACTIONS,
  type PatientAction,
} from "./audit.server";
export {
  cappedCount,
  centreKey,
  COUNT_KEYS,
  counterColumn,
  forgetPersonCounts,
  listCount,
  listCountsOf,
} from "./list-counts.server";
export {
  type CursorShape,
  type CursorValue,
  decodeCursor,
  encodeCursor,
  newestFirstWindow,
} from "./cursor.server";
export { backgroundLoop, type BackgroundLoop } from "./background-loop.server";
export {
  forgetFailures,
  rememberedFailure,
  rememberFailure,
  takeTurn,
  turnsNow,
  type Turn,
  type TurnKind,
  type TurnRule,
} from "./turns.server";
export {
  type Backoff,
  backoffWait,
  defineJobKind,
  type Enqueued,
  type EnqueueOptions,
  type JobContext,
  type JobFigures,
  jobById,
  jobFigures,
  type JobKind,
  jobKinds,
  type JobKindOptions,
  type JobRound,
  type JobState,
  JobInterrupted,
  PermanentJobError,
  retryDeadJob,
  startJobs,
  stopJobs,
  waitForJob,
} from "./jobs.server";
export type { TurnsBy } from "./jobs-claim.server";
export { countJobsAsked, deadJobs, dropDeadJob, pruneJobs } from "./jobs-rows.server";
export { defineSchedule, pruneScheduleJobs, type Schedule, type ScheduleOptions } from "./schedules.server";
