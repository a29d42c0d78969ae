import { randomBytes, randomInt } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { z } from "zod";
import { getCountries } from "libphonenumber-js";
import { applyRateLimits, type Budgets } from "./budgets";
import { site } from "./site";
import { voiceConfig, voiceEnv, type VoiceConfig } from "./config-phone-line.server";

const DEFAULT_TIME_ZONE = "Asia/Kolkata";

/**
 * The one place environment variables are read. Everything is validated with zod
 * at start-up; a bad value stops the server with a message naming the variable.
 */
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).optional(),
  TRUST_PROXY: z
    .string()
    .regex(
      /^(false|\d+|[0-9a-fA-F.:/]+(\s*,\s*[0-9a-fA-F.:/]+)*|(loopback|uniquelocal|linklocal)(\s*,\s*[\w.:/]+)*)$/,
      "a hop count, or a comma-separated list of proxy addresses/CIDRs (or loopback, uniquelocal, linklocal)",
    )
    .optional(),
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  BODY_LIMIT_KB: z.coerce.number().int().min(1).max(10_240).default(64),
  /** Set by our server for the processes it starts; remix-serve leaves it unset ("basic"). */
  CAREBRIDGE_ROLE: z.enum(["basic", "single", "primary", "worker"]).default("basic"),
  DATA_DIR: z.string().min(1).default("data"),
  /** A SQLite file path (the default, data/app.db) or postgres://user:pass@host:port/db (decision 0010). */
  DATABASE_URL: z.string().min(1).optional(),
  /** PostgreSQL connections per process (each node runs WEB_CONCURRENCY processes); default: poolMaxFor(). */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).optional(),
  /**
   * The longest a serving process waits for one statement on PostgreSQL before it gives up the
   * connection and answers 503 (decision 0075); 0 turns the bound off. Jobs and migrations are not bounded.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** Unset: encrypted files in UPLOADS_DIR. s3://bucket[/prefix]?endpoint=…&region=…: an S3-compatible store. */
  STORAGE_URL: z
    .string()
    .regex(
      /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^?#]*)?(\?.*)?$/,
      "must look like s3://bucket[/prefix]?endpoint=…&region=…",
    )
    .optional(),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  AWS_SESSION_TOKEN: z.string().min(1).optional(),
  AWS_REGION: z.string().min(1).optional(),
  /**
   * An S3 request's longest wait for the store (connecting, the answer's first byte, or bytes moving
   * either way) before it counts as hung and is answered 503 (decision 0075).
   */
  STORE_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(4_000),
  UPLOADS_DIR: z.string().min(1).default("uploads"),
  APP_URL: z.string().url().optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
    .optional(),
  MAIL_FROM: z.string().min(3).default("CareBridge <no-reply@carebridge.local>"),
  MAX_UPLOAD_MB: z.coerce.number().positive().max(1024).default(10),
  /** Medical images (a DICOM file or a ZIP of one study) may be larger than other report files. */
  MAX_STUDY_MB: z.coerce.number().positive().max(4096).default(200),
  /** DICOMweb root of a PACS that receives every uploaded study by STOW-RS (e.g. http://pacs/dicom-web). */
  PACS_URL: z.string().url().optional(),
  /** The lab reader's OCR of pictures and scans (decision 0082); 0 reads text-layer PDFs only. */
  LAB_OCR: z
    .enum(["0", "1", "true", "false"])
    .default("1")
    .transform((v) => v === "1" || v === "true"),
  /** The longest a lab read (decision 0082) and a page preview (decision 0100) may take; past it, the file is not tried again. */
  LAB_READ_SECONDS: z.coerce.number().int().min(2).max(600).default(60),
  PREVIEW_RENDER_SECONDS: z.coerce.number().int().min(1).max(120).default(20),
  /** The page previews kept of one file, and of one profile's files together, MB (decision 0100). */
  PREVIEW_CACHE_FILE_MB: z.coerce.number().int().min(2).max(4096).default(16),
  PREVIEW_CACHE_PROFILE_MB: z.coerce.number().int().min(2).max(65536).default(48),
  /** An OHIF viewer that opens studies from that PACS; the review page links to it. */
  OHIF_URL: z.string().url().optional(),
  /** The longest voice note accepted, in seconds (decision 0037). */
  VOICE_MAX_SECONDS: z.coerce.number().int().min(5).max(600).default(120),
  /** Free space (MB) below which /healthz says "degraded" and admins see a warning (decision 0060). */
  DISK_LOW_MB: z.coerce.number().min(0).default(500),
  /** Space (MB) kept for sign-in, reading and deleting: new files are refused (507) below it (decision 0060). */
  DISK_RESERVE_MB: z.coerce.number().min(0).max(4096).default(32),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)")
    .optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").max(128).optional(),
  RATE_LIMIT_DISABLED: z
    .enum(["0", "1", "true", "false"])
    .optional()
    .transform((v) => v === "1" || v === "true"),
  /** Where rate-limit counters live: the database (shared by every worker) or this process's memory. */
  RATE_LIMIT_STORE: z.enum(["database", "memory"]).default("database"),
  /** Ceiling on code/reset/alert mails sent per hour, all senders together. */
  MAIL_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(500),
  LOG_LEVEL: z.enum(["silent", "info"]).default("info"),
  /** Argon2id memory (KiB) and passes; defaults are OWASP's (19 MiB, 2 passes). Tests lower them. */
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(64).max(4_194_304).default(19_456),
  ARGON2_TIME_COST: z.coerce.number().int().min(1).max(100).default(2),
  /** Idle timeout: a session or API token not used for this long ends (experts and admins / patients). */
  SESSION_IDLE_MINUTES_STAFF: z.coerce.number().positive().max(525_600).default(30),
  SESSION_IDLE_MINUTES_PATIENT: z.coerce.number().positive().max(525_600).default(720),
  /** How long an expert's claim on a report ("Start review") lasts unless released or submitted. */
  CLAIM_TTL_MINUTES: z.coerce.number().positive().max(10_080).default(120),
  /** Live claims one expert may hold at once, and how often one claim may be renewed before it lapses. */
  CLAIM_MAX: z.coerce.number().int().min(1).max(1_000).default(3),
  CLAIM_RENEW_MAX: z.coerce.number().int().min(0).max(100).default(2),
  /** Turnaround targets: a report waiting longer is overdue (routine / urgent). */
  REVIEW_TARGET_HOURS: z.coerce.number().positive().max(8_760).default(48),
  REVIEW_TARGET_HOURS_URGENT: z.coerce.number().positive().max(8_760).default(12),
  /** Kannel's sendsms URL with credentials, e.g. http://app:secret@127.0.0.1:13013/cgi-bin/sendsms?from=CareBridge; unset: SMS are written to data/sms-outbox/. */
  SMS_URL: z
    .string()
    .regex(/^https?:\/\//, "must start with http:// or https://")
    .optional(),
  /** Reminders of an opinion's next steps (decision 0114): this many days before the due date (and on it). */
  REMIND_DAYS_BEFORE: z.coerce.number().int().min(1).max(30).default(3),
  /** At most this many reminders reach one patient in a clinic day, whatever the number of steps. */
  REMIND_DAILY_CAP: z.coerce.number().int().min(1).max(10).default(2),
  /** How often the reminders due are looked for (each node; a slot is scanned once). */
  REMIND_SCAN_SECONDS: z.coerce.number().int().min(1).max(3_600).default(300),
  /** The secret Kannel's sms-service get-url passes (`key=`) with a patient's reply; unset: replies are refused. */
  SMS_INBOUND_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  /** Ceiling on SMS sent per hour, all senders together (SMS cost money). */
  SMS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(200),
  /** The countries (ISO 3166 codes, comma-separated) whose mobile numbers may get SMS. */
  SMS_COUNTRIES: z
    .string()
    .transform((v) =>
      v
        .toUpperCase()
        .split(/[\s,]+/)
        .filter(Boolean),
    )
    .refine((list) => list.length > 0, "at least one country code, e.g. IN or IN,BD,NP")
    .superRefine((list, ctx) => {
      const known = new Set<string>(getCountries());
      const bad = list.filter((c) => !known.has(c));
      if (bad.length)
        ctx.addIssue({
          code: "custom",
          message: `unknown country code ${bad.join(", ")} (two-letter ISO 3166 codes, e.g. IN,BD,NP)`,
        });
    })
    .default("IN"),
  /** Rate-limit budgets overriding the defaults (JSON; see README and app/budgets.ts). */
  RATE_LIMITS: z
    .string()
    .superRefine((v, ctx) => {
      const r = applyRateLimits(v);
      if ("error" in r) ctx.addIssue({ code: "custom", message: r.error });
    })
    .optional(),
  /** Follow-up questions a patient may ask about an opinion, and for how long after it. */
  FOLLOWUP_MAX: z.coerce.number().int().min(0).max(50).default(3),
  FOLLOWUP_DAYS: z.coerce.number().positive().max(3_650).default(14),
  /** Two-step login (decision 0017): admins must set it up before they get a session. Default on; test servers turn it off. */
  MFA_REQUIRED_FOR_ADMINS: z
    .enum(["0", "1", "true", "false"])
    .default("true")
    .transform((v) => v === "1" || v === "true"),
  /** Notice before an erasure request is carried out (cancellable meanwhile; decision 0019); SECONDS overrides (tests). */
  ERASURE_NOTICE_HOURS: z.coerce.number().positive().max(8_760).default(48),
  ERASURE_NOTICE_SECONDS: z.coerce.number().positive().max(31_536_000).optional(),
  /** How often due erasures are carried out and old audit events pruned (hourly by default). */
  RIGHTS_JOB_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3_600),
  /** How often each serving process adds its request counts to the Service screen's rollups (decision 0034). */
  SERVICE_ROLLUP_FLUSH_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  /** How often the product's gauges (queue sizes) are sampled for the Service screen (one process does it). */
  SERVICE_SAMPLE_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  /** Audit events older than this are pruned; at least a year (the DPDP Rules keep logs that long). */
  AUDIT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(365, "must be at least 365 (logs are kept for a year at least)")
    .max(36_500)
    .default(1_095),
  /** Sent (and failed) SMS older than this are deleted by the rights job. */
  SMS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /** The mail outbox (decision 0061): the first wait after a failed send (then doubled, at most an hour). */
  MAIL_RETRY_SECONDS: z.coerce.number().min(0.1).max(3_600).default(30),
  /** A mail still unsent this long after it was queued is given up (marked failed). */
  MAIL_MAX_AGE_HOURS: z.coerce.number().min(0.01).max(720).default(48),
  /** The grievance officer shown on My data and Contact Us (defaults in app/site.ts). */
  /**
   * The clinic's time zone (decision 0092), an IANA name: every schedule of an hour of the day
   * (BACKUP_AT, the call windows) and the Service screen's times follow it, whatever the server's own zone.
   */
  CLINIC_TIME_ZONE: z
    .string()
    .trim()
    .refine(isTimeZone, "a time zone name such as Asia/Kolkata (the IANA names: timedatectl list-timezones)")
    .default(DEFAULT_TIME_ZONE),
  /** The clinic's name on the recovery sheet (decision 0091); unset: the host name of APP_URL. */
  CLINIC_NAME: z.string().trim().min(1).max(200).optional(),
  /**
   * How an operator runs the app's scripts here (decision 0091): the command ops/install.sh installs
   * (its unit sets it), so the recovery sheet gives `sudo <command> restore …`; unset: `npm run restore`.
   */
  CAREBRIDGE_COMMAND: z.string().trim().startsWith("/", "an absolute path").optional(),
  GRIEVANCE_NAME: z.string().trim().min(1).max(200).optional(),
  GRIEVANCE_EMAIL: z.string().trim().email().max(254).optional(),
  GRIEVANCE_PHONE: z
    .string()
    .trim()
    .regex(/^\+?[0-9][0-9 ()-]{5,24}$/, "a phone number such as +91 1800 123 4567")
    .optional(),
  /** Prometheus metrics on their own listener (the cluster primary's; never the public port). */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** With it, /metrics is also served on the main port to `Authorization: Bearer <token>`; without it that path is a 404. */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** OpenTelemetry traces go to this OTLP/HTTP collector when set; unset, the SDK is never loaded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** Scheduled backups (decision 0067): the clinic's time (CLINIC_TIME_ZONE) of the daily backup, or "off" (a timer outside the app runs `npm run backup`). */
  BACKUP_AT: z
    .string()
    .regex(/^(off|([01]?\d|2[0-3]):[0-5]\d)$/, 'a time of day such as 02:30, or "off"')
    .default("02:30"),
  /** Back up every N hours (from BACKUP_AT) instead of once a day. */
  BACKUP_EVERY_HOURS: z.coerce.number().int().min(1).max(24).optional(),
  /** The restic repository: a folder (a USB disk), sftp:user@host:/path or s3:https://host/bucket/prefix. Unset: DATA_DIR/backups/restic, on this machine. */
  BACKUP_REPOSITORY: z.string().trim().min(1).optional(),
  /** The file holding the repository's password; unset: DATA_DIR/secrets/backup-password, generated. */
  BACKUP_PASSWORD_FILE: z.string().min(1).optional(),
  BACKUP_KEEP_DAILY: z.coerce.number().int().min(1).max(366).default(7),
  BACKUP_KEEP_WEEKLY: z.coerce.number().int().min(0).max(520).default(4),
  BACKUP_KEEP_MONTHLY: z.coerce.number().int().min(0).max(240).default(6),
  /** The share of the repository's data `restic check` reads after each backup. */
  BACKUP_CHECK_SHARE: z
    .string()
    .regex(/^(100|[1-9]\d?)(\.\d+)?%$/, "a percentage such as 10%")
    .default("10%"),
  /** Files decrypted from each backup and compared with what the database records. */
  BACKUP_VERIFY_FILES: z.coerce.number().int().min(0).max(10_000).default(20),
  ...voiceEnv,
});

export type Config = {
  nodeEnv: "development" | "production" | "test";
  port: number;
  host: string | undefined;
  trustProxy: string | undefined;
  webConcurrency: number;
  bodyLimitBytes: number;
  serverRole: "basic" | "single" | "primary" | "worker";
  dataDir: string;
  /** "sqlite": `databaseUrl` is a file path; "postgres": a connection URL. */
  databaseKind: DatabaseKind;
  databaseUrl: string;
  databasePoolMax: number;
  /** DATABASE_STATEMENT_TIMEOUT_MS (0: unbounded). */
  databaseStatementTimeoutMs: number;
  storage: StorageConfig;
  /** STORE_TIMEOUT_MS. */
  storeTimeoutMs: number;
  uploadsDir: string;
  outboxDir: string;
  appUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** MAIL_RETRY_SECONDS: the first wait after a failed send; doubled each time, at most an hour. */
  mailRetryMs: number;
  /** MAIL_MAX_AGE_HOURS: an unsent mail older than this is marked failed. */
  mailMaxAgeMs: number;
  maxUploadBytes: number;
  /** Limit for a DICOM file or a ZIP of one study (MAX_STUDY_MB). */
  maxStudyBytes: number;
  pacsUrl: string | undefined;
  /** LAB_OCR: pictures and scanned PDFs are OCR'd (else they fail as "OCR not available"). */
  labOcr: boolean;
  /** LAB_READ_SECONDS, PREVIEW_RENDER_SECONDS, as ms: a read or render past it fails for good (decision 0100). */
  labReadMs: number;
  previewRenderMs: number;
  /** PREVIEW_CACHE_FILE_MB, PREVIEW_CACHE_PROFILE_MB, as bytes. */
  previewFileBytes: number;
  previewProfileBytes: number;
  ohifUrl: string | undefined;
  voiceMaxSeconds: number;
  diskLowBytes: number;
  diskReserveBytes: number;
  sessionSecret: string;
  encryptionKey: Buffer;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  rateLimitDisabled: boolean;
  rateLimitStore: "database" | "memory";
  mailPerHour: number;
  logLevel: "silent" | "info";
  argon2MemoryKib: number;
  argon2TimeCost: number;
  sessionIdleMsStaff: number;
  sessionIdleMsPatient: number;
  smsUrl: string | undefined;
  smsOutboxDir: string;
  smsPerHour: number;
  /** ISO 3166 codes of the countries whose mobile numbers may get SMS. */
  smsCountries: string[];
  /** Every rate-limit budget, RATE_LIMITS applied. */
  budgets: Budgets;
  claimTtlMs: number;
  claimMax: number;
  claimRenewMax: number;
  reviewTargetMs: number;
  reviewTargetUrgentMs: number;
  followupMax: number;
  followupWindowMs: number;
  mfaRequiredForAdmins: boolean;
  erasureNoticeMs: number;
  rightsJobMs: number;
  serviceFlushMs: number;
  serviceSampleMs: number;
  auditRetentionMs: number;
  smsRetentionMs: number;
  grievance: { name: string; email: string; phone: string };
  /** The clinic (decisions 0091, 0092): its name on the recovery sheet and the time zone of its schedules. */
  clinic: { name: string; timeZone: string };
  /** Next steps' reminders (decision 0114). */
  reminders: { daysBefore: number; dailyCap: number; scanMs: number; inboundKey: string | undefined };
  /** The operator's command for the app's scripts (ops/install.sh's `carebridge`); undefined: npm run. */
  operatorCommand: string | undefined;
  /** Metrics (decision 0033): on for the process when either a port or a token is set. */
  metrics: { port: number | undefined; host: string; token: string | undefined; enabled: boolean };
  /** The OTLP endpoint traces are sent to; undefined: tracing off and its SDK not loaded. */
  otelEndpoint: string | undefined;
  backup: BackupConfig;
  /** Phone calls (decision 0080). */
  voice: VoiceConfig;
};

/** Scheduled, verified backups into a restic repository (decision 0067). */
export type BackupConfig = {
  /** Minutes after midnight, clinic time (CLINIC_TIME_ZONE), of the first backup of a day; null: no schedule in the app. */
  atMinute: number | null;
  /** BACKUP_AT as given ("02:30" or "off"). */
  at: string;
  everyHours: number;
  repository: string;
  /** True when BACKUP_REPOSITORY names a place (a copy may leave the machine); false: DATA_DIR/backups/restic. */
  configured: boolean;
  passwordFile: string;
  /** Where the backup folder is put together before restic stores it (the same path every time). */
  stagingDir: string;
  cacheDir: string;
  keep: { daily: number; weekly: number; monthly: number };
  checkShare: string;
  verifyFiles: number;
};

export type DatabaseKind = "sqlite" | "postgres";

export type StorageConfig =
  | { kind: "local"; dir: string }
  | {
      kind: "s3";
      bucket: string;
      /** Key prefix inside the bucket ("" or ending in "/"). */
      prefix: string;
      endpoint: string | undefined;
      region: string;
      forcePathStyle: boolean;
      credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
    };

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * PostgreSQL connections per process when DATABASE_POOL_MAX is unset. One process is one event
 * loop: a statement holds its connection for one round trip (well under a millisecond for the
 * lists), so a handful keep a worker from queueing behind its own queries, and more only add
 * backends that compete for the same cores. A node keeps about 8 in all, at least 2 per process
 * and at most 8: 8 for one worker, 4 for two, 3 for three, 2 from four up. (Two workers at 32
 * connections on two cores: 4 per worker answered the pending API 1,153 times a second, 8 per
 * worker 1,041 — docs/performance-history.md, "PostgreSQL at parity".)
 */
export function poolMaxFor(workers: number): number {
  return Math.min(8, Math.max(2, Math.ceil(8 / workers)));
}

/**
 * Which database DATABASE_URL selects, read without validating the rest of the configuration:
 * the schema module picks its dialect's tables with it when it is first imported.
 */
export function databaseKind(env: Record<string, string | undefined> = process.env): DatabaseKind {
  return POSTGRES_URL.test(env.DATABASE_URL ?? "") ? "postgres" : "sqlite";
}

function parseStorage(
  url: string | undefined,
  uploadsDir: string,
  e: z.infer<typeof envSchema>,
): StorageConfig {
  if (!url) return { kind: "local", dir: uploadsDir };
  const u = new URL(url);
  const q = u.searchParams;
  const endpoint = q.get("endpoint") || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint)) {
    throw new ConfigError(
      "Invalid configuration:\n  STORAGE_URL: endpoint must start with http:// or https://",
    );
  }
  const prefix = decodeURIComponent(u.pathname.replace(/^\/+/, ""));
  return {
    kind: "s3",
    bucket: u.hostname,
    prefix: prefix && !prefix.endsWith("/") ? `${prefix}/` : prefix,
    endpoint,
    region: q.get("region") || e.AWS_REGION || "us-east-1",
    // MinIO, Ceph RGW and most self-hosted stores want path-style requests; AWS and R2 accept both.
    forcePathStyle: q.has("forcePathStyle") ? q.get("forcePathStyle") !== "false" : !!endpoint,
    credentials:
      e.AWS_ACCESS_KEY_ID && e.AWS_SECRET_ACCESS_KEY
        ? {
            accessKeyId: e.AWS_ACCESS_KEY_ID,
            secretAccessKey: e.AWS_SECRET_ACCESS_KEY,
            ...(e.AWS_SESSION_TOKEN ? { sessionToken: e.AWS_SESSION_TOKEN } : {}),
          }
        : undefined,
  };
}

export class ConfigError extends Error {}

/** True when this Node knows the time zone (an IANA name such as Asia/Kolkata). */
function isTimeZone(name: string): boolean {
  // The default needs no check: the first date format loads ICU's zone data, 30–50 ms of every
  // start, paid later by the first request that shows a date (decision 0123).
  if (name === DEFAULT_TIME_ZONE) return true;
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Creates a folder only its owner can enter (0700), tightening one left wider by an older version. */
export function privateDir(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {
    /* not ours (e.g. a mounted volume): leave it */
  }
}

/** The secrets a restore brings from its backup (decision 0091), used where the settings give none. */
let provided: Partial<Record<"session-secret" | "encryption-key", string>> = {};

/**
 * For the restore (decision 0091): the backup's session secret and encryption key, standing in for
 * SESSION_SECRET and ENCRYPTION_KEY where those are unset — on PostgreSQL or a bucket a new machine
 * has only the recovery sheet. Called before the configuration is first read.
 */
export function provideSecrets(secrets: { sessionSecret?: string; encryptionKey?: string }): void {
  if (cached) throw new Error("provideSecrets() must come before the configuration is read");
  provided = {
    ...(secrets.sessionSecret ? { "session-secret": secrets.sessionSecret } : {}),
    ...(secrets.encryptionKey ? { "encryption-key": secrets.encryptionKey } : {}),
  };
}

/** A secret in the data folder, if one is there (never made). */
function storedSecret(dataDir: string, name: string): string | undefined {
  const file = path.join(dataDir, "secrets", name);
  return (existsSync(file) && readFileSync(file, "utf8").trim()) || undefined;
}

/** Reads a generated secret from the data folder, creating it (mode 0600) on first use. */
function persistentSecret(dataDir: string, name: string, make: () => string): string {
  const file = path.join(dataDir, "secrets", name);
  if (existsSync(file)) {
    const value = readFileSync(file, "utf8").trim();
    if (value) return value;
  }
  privateDir(path.dirname(file));
  const value = make();
  writeFileSync(file, value + "\n", { mode: 0o600, flag: "w" });
  chmodSync(file, 0o600);
  return value;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings count as unset, so `FOO= npm start` behaves like no FOO at all.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  if ((e.ADMIN_EMAIL && !e.ADMIN_PASSWORD) || (!e.ADMIN_EMAIL && e.ADMIN_PASSWORD)) {
    throw new ConfigError("Invalid configuration:\n  ADMIN_EMAIL/ADMIN_PASSWORD: set both or neither");
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT) {
    throw new ConfigError(
      "Invalid configuration:\n  METRICS_PORT: must differ from PORT (it is a listener of its own; for /metrics on the main port set METRICS_TOKEN)",
    );
  }
  const dataDir = path.resolve(e.DATA_DIR);
  privateDir(dataDir);
  const uploadsDir = path.resolve(e.UPLOADS_DIR);
  privateDir(uploadsDir);
  const outboxDir = path.join(dataDir, "outbox");
  // With PostgreSQL or a bucket nothing is generated: a secret made in one machine's data folder
  // would sign cookies differently on another node and could not decrypt the files in the shared
  // store. The values come from SESSION_SECRET/ENCRYPTION_KEY, or from DATA_DIR/secrets where a
  // restore put the backup's (decision 0091), or — during that restore — from the backup itself.
  const shared = databaseKind(cleaned) === "postgres" || !!e.STORAGE_URL;
  const secret = (name: "session-secret" | "encryption-key", given: string | undefined) =>
    given ??
    provided[name] ??
    (shared
      ? storedSecret(dataDir, name)
      : persistentSecret(dataDir, name, () => randomBytes(32).toString("hex")));
  const sessionSecret = secret("session-secret", e.SESSION_SECRET);
  const encryptionKeyHex = secret("encryption-key", e.ENCRYPTION_KEY);
  if (!sessionSecret || !encryptionKeyHex || !/^[0-9a-fA-F]{64}$/.test(encryptionKeyHex)) {
    throw new ConfigError(
      "Invalid configuration:\n  SESSION_SECRET/ENCRYPTION_KEY: set both when DATABASE_URL is PostgreSQL or STORAGE_URL is set — every node must use the same values (docs/scale-out.md). On a machine restored from a backup they are in DATA_DIR/secrets.",
    );
  }
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    trustProxy: e.TRUST_PROXY,
    webConcurrency: e.WEB_CONCURRENCY ?? availableParallelism(),
    bodyLimitBytes: e.BODY_LIMIT_KB * 1024,
    serverRole: e.CAREBRIDGE_ROLE,
    dataDir,
    databaseKind: databaseKind(cleaned),
    databaseUrl:
      databaseKind(cleaned) === "postgres"
        ? e.DATABASE_URL!
        : path.resolve((e.DATABASE_URL ?? path.join(dataDir, "app.db")).replace(/^file:/, "")),
    databasePoolMax: e.DATABASE_POOL_MAX ?? poolMaxFor(e.WEB_CONCURRENCY ?? availableParallelism()),
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    storage: parseStorage(e.STORAGE_URL, uploadsDir, e),
    storeTimeoutMs: e.STORE_TIMEOUT_MS,
    uploadsDir,
    outboxDir,
    appUrl: (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailRetryMs: Math.round(e.MAIL_RETRY_SECONDS * 1000),
    mailMaxAgeMs: Math.round(e.MAIL_MAX_AGE_HOURS * 3_600_000),
    maxUploadBytes: Math.round(e.MAX_UPLOAD_MB * 1024 * 1024),
    maxStudyBytes: Math.round(e.MAX_STUDY_MB * 1024 * 1024),
    pacsUrl: e.PACS_URL?.replace(/\/+$/, ""),
    labOcr: e.LAB_OCR,
    labReadMs: e.LAB_READ_SECONDS * 1000,
    previewRenderMs: e.PREVIEW_RENDER_SECONDS * 1000,
    previewFileBytes: e.PREVIEW_CACHE_FILE_MB * 1024 * 1024,
    previewProfileBytes: e.PREVIEW_CACHE_PROFILE_MB * 1024 * 1024,
    ohifUrl: e.OHIF_URL?.replace(/\/+$/, ""),
    voiceMaxSeconds: e.VOICE_MAX_SECONDS,
    diskLowBytes: Math.round(e.DISK_LOW_MB * 1024 * 1024),
    diskReserveBytes: Math.round(e.DISK_RESERVE_MB * 1024 * 1024),
    sessionSecret,
    encryptionKey: Buffer.from(encryptionKeyHex, "hex"),
    adminEmail: e.ADMIN_EMAIL?.trim().toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    rateLimitDisabled: e.RATE_LIMIT_DISABLED,
    rateLimitStore: e.RATE_LIMIT_STORE,
    mailPerHour: e.MAIL_PER_HOUR,
    logLevel: e.LOG_LEVEL,
    argon2MemoryKib: e.ARGON2_MEMORY_KIB,
    argon2TimeCost: e.ARGON2_TIME_COST,
    sessionIdleMsStaff: Math.round(e.SESSION_IDLE_MINUTES_STAFF * 60_000),
    sessionIdleMsPatient: Math.round(e.SESSION_IDLE_MINUTES_PATIENT * 60_000),
    smsUrl: e.SMS_URL,
    smsOutboxDir: path.join(dataDir, "sms-outbox"),
    smsPerHour: e.SMS_PER_HOUR,
    smsCountries: e.SMS_COUNTRIES as string[],
    budgets: (applyRateLimits(e.RATE_LIMITS) as { budgets: Budgets }).budgets,
    claimTtlMs: Math.round(e.CLAIM_TTL_MINUTES * 60_000),
    claimMax: e.CLAIM_MAX,
    claimRenewMax: e.CLAIM_RENEW_MAX,
    reviewTargetMs: Math.round(e.REVIEW_TARGET_HOURS * 3_600_000),
    reviewTargetUrgentMs: Math.round(e.REVIEW_TARGET_HOURS_URGENT * 3_600_000),
    followupMax: e.FOLLOWUP_MAX,
    followupWindowMs: Math.round(e.FOLLOWUP_DAYS * 86_400_000),
    mfaRequiredForAdmins: e.MFA_REQUIRED_FOR_ADMINS,
    erasureNoticeMs: Math.round(
      e.ERASURE_NOTICE_SECONDS !== undefined
        ? e.ERASURE_NOTICE_SECONDS * 1000
        : e.ERASURE_NOTICE_HOURS * 3_600_000,
    ),
    rightsJobMs: e.RIGHTS_JOB_SECONDS * 1000,
    serviceFlushMs: e.SERVICE_ROLLUP_FLUSH_MS,
    serviceSampleMs: e.SERVICE_SAMPLE_MS,
    auditRetentionMs: e.AUDIT_RETENTION_DAYS * 86_400_000,
    smsRetentionMs: e.SMS_RETENTION_DAYS * 86_400_000,
    clinic: {
      name: e.CLINIC_NAME ?? new URL(e.APP_URL ?? `http://localhost:${e.PORT}`).hostname,
      timeZone: e.CLINIC_TIME_ZONE,
    },
    reminders: {
      daysBefore: e.REMIND_DAYS_BEFORE,
      dailyCap: e.REMIND_DAILY_CAP,
      scanMs: e.REMIND_SCAN_SECONDS * 1000,
      inboundKey: e.SMS_INBOUND_KEY,
    },
    operatorCommand: e.CAREBRIDGE_COMMAND,
    grievance: {
      name: e.GRIEVANCE_NAME ?? site.grievance.name,
      email: e.GRIEVANCE_EMAIL ?? site.grievance.email,
      phone: e.GRIEVANCE_PHONE ?? site.grievance.phone,
    },
    metrics: {
      port: e.METRICS_PORT,
      host: e.METRICS_HOST,
      token: e.METRICS_TOKEN,
      enabled: e.METRICS_PORT !== undefined || e.METRICS_TOKEN !== undefined,
    },
    otelEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    backup: backupConfig(e, dataDir),
    voice: {
      ...voiceConfig(e, dataDir),
      // Signs the addresses a voice provider calls back (answer, digits, status, audio), decision 0080.
      webhookSecret:
        e.VOICE_URL && !e.VOICE_URL.startsWith("sip")
          ? persistentSecret(dataDir, "voice-webhook-secret", () => randomBytes(32).toString("hex"))
          : sessionSecret,
    },
  };
}

/**
 * A password someone can type from the printed recovery sheet (decision 0068): 30 characters of
 * an alphabet without look-alikes (no 0/o, 1/l/i), in groups of five — about 148 bits.
 */
function typeablePassword(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  const chars = Array.from({ length: 30 }, () => alphabet[randomInt(alphabet.length)]);
  return Array.from({ length: 6 }, (_, i) => chars.slice(i * 5, i * 5 + 5).join("")).join("-");
}

/** restic's repository kinds other than a plain folder. */
const RESTIC_BACKENDS = /^(sftp|s3|rest|b2|azure|gs|swift|rclone):/;

function backupConfig(e: z.infer<typeof envSchema>, dataDir: string): BackupConfig {
  const [h, m] = e.BACKUP_AT === "off" ? [] : e.BACKUP_AT.split(":").map(Number);
  const backups = path.join(dataDir, "backups");
  if (!e.BACKUP_PASSWORD_FILE) persistentSecret(dataDir, "backup-password", typeablePassword);
  else if (!existsSync(e.BACKUP_PASSWORD_FILE))
    throw new ConfigError(
      `Invalid configuration:\n  BACKUP_PASSWORD_FILE: ${e.BACKUP_PASSWORD_FILE} does not exist`,
    );
  const repo = e.BACKUP_REPOSITORY;
  return {
    atMinute: h === undefined ? null : h * 60 + m,
    at: e.BACKUP_AT,
    everyHours: e.BACKUP_EVERY_HOURS ?? 24,
    // A plain folder is made absolute (restic is run from another working directory in tests and scripts).
    repository: repo
      ? RESTIC_BACKENDS.test(repo)
        ? repo
        : path.resolve(repo)
      : path.join(backups, "restic"),
    configured: !!repo,
    passwordFile: path.resolve(e.BACKUP_PASSWORD_FILE ?? path.join(dataDir, "secrets", "backup-password")),
    stagingDir: path.join(backups, ".staging", "carebridge-backup"),
    cacheDir: path.join(backups, ".restic-cache"),
    keep: { daily: e.BACKUP_KEEP_DAILY, weekly: e.BACKUP_KEEP_WEEKLY, monthly: e.BACKUP_KEEP_MONTHLY },
    checkShare: e.BACKUP_CHECK_SHARE,
    verifyFiles: e.BACKUP_VERIFY_FILES,
  };
}

let cached: Config | undefined;

/** The validated configuration; the first call validates and prints a clear error on failure. */
export function config(): Config {
  if (!cached) {
    try {
      cached = loadConfig();
    } catch (err) {
      if (err instanceof ConfigError) {
        console.error(err.message);
        process.exit(1);
      }
      throw err;
    }
  }
  return cached;
}
