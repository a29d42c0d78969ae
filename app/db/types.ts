/** Values shared by both dialects' schemas and by code that must not import a driver (forms, OpenAPI). */
export const ACCOUNT_TYPES = ["Patient", "Expert", "Admin"] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export const REPORT_STATUSES = ["Pending", "Reviewed"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const SESSION_KINDS = ["web", "api"] as const;
