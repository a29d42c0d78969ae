import type { TFunction } from "i18next";
import type { DomainError } from "~/domain/platform/errors";
import { log } from "~/lib/log.server";

/**
 * A refusal's words (decision 0059): the one place where a DomainError becomes text for a person,
 * for the API's error bodies and for screens (forms, toasts). Its message and every field error
 * are translated with the error's values (and the seconds of a rate limit); a text that would
 * still hold a placeholder (`{{max}}`: a key sent without its value) is never sent — the person
 * reads that the request could not be completed, and the log names the key.
 */

const PLACEHOLDER = /\{\{[^}]*\}\}/;

export type RefusalText = { message: string; fieldErrors?: Record<string, string[]> };

export function refusalValues(err: DomainError): Record<string, string | number> {
  const seconds = err.extra.retryAfterSeconds;
  return { ...(seconds ? { seconds } : {}), ...(err.extra.values ?? {}) };
}

/** One key of a refusal in the person's language, with the refusal's values; never a placeholder. */
export function refusalWords(
  t: TFunction,
  key: string | string[],
  values: Record<string, string | number>,
): string {
  const text = String(t(key as string, values));
  if (!PLACEHOLDER.test(text)) return text;
  log("error", "a refusal's text lacks a value", { key: String(key), text });
  return String(t("errors.requestRefused"));
}

export function refusalText(t: TFunction, err: DomainError, fallbackKey?: string): RefusalText {
  const values = refusalValues(err);
  const message = refusalWords(t, fallbackKey ? [err.message, fallbackKey] : err.message, values);
  const fieldErrors = err.extra.fieldErrors
    ? Object.fromEntries(
        Object.entries(err.extra.fieldErrors).map(([k, v]) => [k, v.map((m) => refusalWords(t, m, values))]),
      )
    : undefined;
  return { message, ...(fieldErrors ? { fieldErrors } : {}) };
}
