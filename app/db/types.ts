/** Values shared by both dialects' schemas and by code that must not import a driver (forms, OpenAPI). */
export const ACCOUNT_TYPES = ["Patient", "Expert", "Admin"] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export const REPORT_STATUSES = ["Pending", "Reviewed"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const SESSION_KINDS = ["web", "api"] as const;
export const NOTIFY_CHANNELS = ["email", "sms", "both"] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];
export const CODE_PURPOSES = ["signup", "login", "reset"] as const;
export const SMS_STATUSES = ["queued", "sending", "sent", "failed"] as const;
