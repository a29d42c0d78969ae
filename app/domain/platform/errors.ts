/** The one typed error every domain function throws; adapters map `code` to HTTP or to a toast. */
export type DomainErrorCode =
  | "not_authenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "invalid"
  | "too_large"
  | "unsupported_type"
  | "rate_limited"
  /** A part the app depends on (database, file store) cannot be reached now: try again (decision 0060). */
  | "unavailable"
  /** The server is out of space: nothing new can be stored (decision 0060). */
  | "insufficient_storage";

export class DomainError extends Error {
  constructor(
    public code: DomainErrorCode,
    /** An i18n key (or plain message) safe to show to the user. */
    message: string,
    public extra: {
      fieldErrors?: Record<string, string[]>;
      retryAfterSeconds?: number;
      /** Interpolation values for the message key. */
      values?: Record<string, string | number>;
    } = {},
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const HTTP_STATUS: Record<DomainErrorCode, number> = {
  not_authenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid: 400,
  too_large: 413,
  unsupported_type: 415,
  rate_limited: 429,
  unavailable: 503,
  insufficient_storage: 507,
};

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}

/** zod issues → `{ field: [messageKey] }` for a DomainError's fieldErrors. */
export function zodFieldErrors(error: {
  issues: { path: (string | number)[]; message: string }[];
}): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.join(".") || "_";
    (out[key] ??= []).push(issue.message);
  }
  return out;
}
