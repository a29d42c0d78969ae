import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";

export type { IntentArgs } from "~/web/screen.server";

/** The forms that answer with themselves (their errors); the others redirect with a toast. */
export type FormIntent = "correction" | "erasure" | "nominee";

/**
 * A form's answer with its errors, tagged with its intent so the page gives the result to that
 * form only (400: the input itself is wrong).
 */
export function formReply(intent: FormIntent, result: SubmissionResult<string[]>) {
  return data({ intent, result }, { status: 400 });
}

/** Wraps a refusal's submission result the same way, for `formFailure`. */
export function forIntent(intent: FormIntent) {
  return (result: SubmissionResult<string[]>) => ({ intent, result });
}
