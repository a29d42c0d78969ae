import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";
import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import type { Client } from "~/domain/platform/client";
import { HTTP_STATUS, isDomainError, type DomainError } from "~/domain/platform/errors";
import type { Locale } from "~/i18n/config";
import { pageQuery, pagination, type Paged, type PageQuery } from "~/web/api.server";
import { refusalText } from "~/web/refusal-text.server";
import { redirectWithError } from "~/web/toast.server";
import { asRefusal } from "./faults.server";

/**
 * The one way a screen fails. A domain refusal reaches the person in one of three places, and
 * each is one call here:
 * - on the form's fields and above the form: `formFailure` (an action answering with the form);
 * - as a toast on the screen it sends them back to: `toastFailure` (an action that redirects);
 * - as the not-found page when they asked for something that is not theirs: `pageError` (a loader).
 * All three translate the error's key with its values, keep its HTTP status, and send Retry-After
 * with a rate limit. Anything that is not a DomainError is a bug and is rethrown (the error
 * boundary shows it), never turned into a message.
 */

/** What a DomainError means to a screen: status, Retry-After, the translated message and field errors
 * (refusal-text.server.ts: each with the error's values, never a placeholder). */
export type ScreenFailure = {
  error: DomainError;
  status: number;
  headers: Record<string, string>;
  message: string;
  fieldErrors?: Record<string, string[]>;
};

/** Reads a DomainError for a screen; anything else is rethrown. `fallbackKey` is used when the
 * error's own key has no translation (a generic refusal made specific by the screen). */
export function screenFailure(thrown: unknown, t: TFunction, fallbackKey?: string): ScreenFailure {
  const err = asRefusal(thrown); // a database or store that is down: the form says so, keeps its input
  if (!isDomainError(err)) throw err;
  const headers: Record<string, string> = {};
  const seconds = err.extra.retryAfterSeconds;
  if (seconds) headers["Retry-After"] = String(seconds);
  const { message, fieldErrors } = refusalText(t, err, fallbackKey);
  return { error: err, status: HTTP_STATUS[err.code], headers, message, fieldErrors };
}

type Reply = (opts: {
  formErrors?: string[];
  fieldErrors?: Record<string, string[]>;
  hideFields?: string[];
}) => SubmissionResult<string[]>;

export type FormFailureOptions<W> = {
  /** The translation to use when the error's key has none. */
  fallbackKey?: string;
  /** Fields whose values are not sent back (passwords, codes). */
  hideFields?: string[];
  /** Field errors of the domain renamed to the form's own field names (e.g. code → proof). */
  renameFields?: Record<string, string>;
  /** Field errors only, without the message above the form (the fields say it all). */
  fieldsOnly?: boolean;
  /** Wraps the submission result when the action answers more than the form (e.g. `{ intent, result }`);
   * it gets the refusal too, for an answer that depends on which one it was. */
  wrap?: (result: SubmissionResult<string[]>, error: DomainError) => W;
  /** Refusals that concern one field rather than the form (e.g. the file of an upload, `when` says
   * which): the translated message goes under `field`, and `formKey`'s translation above the form. */
  onField?: { field: string; when: (err: DomainError) => boolean; formKey: string };
};

/**
 * An action's answer with the form: the domain's field errors on their fields (translated here, with
 * the error's values), its message above the form, the error's status and Retry-After.
 */
export function formFailure<W = SubmissionResult<string[]>>(
  err: unknown,
  t: TFunction,
  reply: Reply,
  options: FormFailureOptions<W> = {},
) {
  const f = screenFailure(err, t, options.fallbackKey);
  const own = options.onField?.when(f.error) ? options.onField : undefined;
  if (own) {
    const result = reply({
      fieldErrors: { [own.field]: [f.message] },
      formErrors: [t(own.formKey)],
      ...(options.hideFields ? { hideFields: options.hideFields } : {}),
    });
    const body = options.wrap ? options.wrap(result, f.error) : result;
    return data(body as W, { status: f.status, headers: f.headers });
  }
  let fieldErrors = f.fieldErrors;
  if (fieldErrors && options.renameFields) {
    fieldErrors = Object.fromEntries(
      Object.entries(fieldErrors).map(([k, v]) => [options.renameFields?.[k] ?? k, v]),
    );
  }
  const result = reply({
    ...(fieldErrors ? { fieldErrors } : {}),
    ...(fieldErrors && options.fieldsOnly ? {} : { formErrors: [f.message] }),
    ...(options.hideFields ? { hideFields: options.hideFields } : {}),
  });
  const body = options.wrap ? options.wrap(result, f.error) : result;
  return data(body as W, { status: f.status, headers: f.headers });
}

/**
 * For an action that answers some refusals on its form and the rest with a toast: true when the
 * form is the place — the domain points at fields, or asks the person to wait (a rate limit).
 */
export function refusalOnForm(err: unknown): boolean {
  return isDomainError(err) && (err.code === "rate_limited" || !!err.extra.fieldErrors);
}

export type ToastFailureOptions = {
  /** The translation to use when the error's key has none. */
  fallbackKey?: string;
  /** The form's field (or fields, in order): the first error the domain gives for one is the toast
   * instead of the error's own message (a small inline form whose refusal is shown as a toast). */
  field?: string | string[];
  /** A translated lead-in before the refusal, as "<lead-in>: <refusal>". */
  prefixKey?: string;
};

/** An action's answer as a redirect with the translated refusal as a toast (and Retry-After). */
export async function toastFailure(
  err: unknown,
  t: TFunction,
  to: string,
  options: ToastFailureOptions = {},
): Promise<Response> {
  const f = screenFailure(err, t, options.fallbackKey);
  const fields = options.field === undefined ? [] : [options.field].flat();
  const refusal = fields.map((k) => f.fieldErrors?.[k]?.[0]).find(Boolean) ?? f.message;
  const message = options.prefixKey ? `${t(options.prefixKey)}: ${refusal}` : refusal;
  return redirectWithError(to, message, { headers: f.headers });
}

export function notFound(): never {
  throw new Response("Not Found", { status: 404 });
}

/**
 * A domain refusal on a page load (another patient's reports, an unknown id) shows the
 * not-found page, so a screen never reveals whether a record exists.
 */
export function pageError(err: unknown): never {
  if (isDomainError(err) && (err.code === "forbidden" || err.code === "not_found")) notFound();
  throw err;
}

/** ?page=&pageSize= as the API reads them; a malformed value on a screen just means page 1. */
export function screenPage(request: Request): PageQuery {
  try {
    return pageQuery(request);
  } catch {
    return { page: 1, pageSize: 20 };
  }
}

export function pageInfo(p: Paged<unknown>) {
  return pagination(p);
}

/**
 * What a folder route's action has worked out once and hands to the handler of the form that
 * posted (decision 0028): who asks, in which language, from where, what was posted.
 */
export type IntentArgs = {
  actor: Actor;
  t: TFunction;
  locale: Locale;
  client: Client;
  formData: FormData;
};
