import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";
import type { TFunction } from "i18next";
import { DomainError, HTTP_STATUS, isDomainError } from "~/domain/platform/errors";

/**
 * The screens' mapping of a DomainError: field errors go to their fields (as i18n keys),
 * anything else becomes a form-level error; rate limits carry Retry-After.
 */
export function domainErrorReply(
  err: unknown,
  t: TFunction,
  reply: (opts: {
    formErrors?: string[];
    fieldErrors?: Record<string, string[]>;
  }) => SubmissionResult<string[]>,
) {
  if (!isDomainError(err)) throw err;
  const e = err as DomainError;
  const headers: Record<string, string> = {};
  if (e.code === "rate_limited" && e.extra.retryAfterSeconds)
    headers["Retry-After"] = String(e.extra.retryAfterSeconds);
  const message = t(e.message, e.extra.values ?? {});
  const result = e.extra.fieldErrors
    ? reply({ fieldErrors: e.extra.fieldErrors, formErrors: [message] })
    : reply({ formErrors: [message] });
  return data(result, { status: HTTP_STATUS[e.code], headers });
}
