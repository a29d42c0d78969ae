import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";
import type { TFunction } from "i18next";
import type { DomainError } from "~/domain/platform/errors";

/** A DomainError's message key, translated, falling back to a screen-specific message. */
export function domainMessage(err: DomainError, t: TFunction, fallbackKey: string) {
  return t([err.message, fallbackKey], err.extra.values ?? {});
}

/** A rate limit as a screen answer: 429, Retry-After, and the translated message as the form's error. */
export function rateLimitedReply<I extends string>(
  intent: I,
  err: DomainError,
  t: TFunction,
  reply: (o: { formErrors: string[] }) => SubmissionResult<string[]>,
) {
  const seconds = err.extra.retryAfterSeconds;
  return data(
    { intent, result: reply({ formErrors: [t(err.message, err.extra.values ?? {})] }) },
    { status: 429, headers: seconds ? { "Retry-After": String(seconds) } : {} },
  );
}
