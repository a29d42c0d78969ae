import type { SubmissionResult } from "@conform-to/react";
import { useId } from "react";
import type { FieldMeta } from "./Field";

/**
 * Conform's form and field metadata for a form the server alone validates: the same ids, names,
 * errors and values as `useForm` gives, read from the action's reply, without Conform or zod in
 * the browser (about 23 KB of gzip JavaScript that public pages — home, log in — need not load:
 * a plain post is checked by the server's schema anyway, with or without JavaScript). Forms that
 * check as you type keep `useForm`.
 */
export function useServerForm<F extends string>(
  lastResult: SubmissionResult<string[]> | undefined | null,
  names: readonly F[],
  /** What the fields hold before the first answer (the server's reply then carries what was sent). */
  defaults: Partial<Record<F, unknown>> = {},
) {
  const formId = useId();
  const error = lastResult?.error ?? {};
  const initial = (lastResult?.initialValue ?? defaults) as Record<string, unknown>;
  const formErrors = error[""] ?? undefined;
  const form = {
    id: formId,
    errorId: `${formId}-error`,
    errors: formErrors,
    props: { id: formId, "aria-describedby": formErrors ? `${formId}-error` : undefined },
  };
  const fields = {} as Record<F, FieldMeta>;
  for (const name of names) {
    const id = `${formId}-${name}`;
    fields[name] = {
      id,
      name,
      errorId: `${id}-error`,
      descriptionId: `${id}-description`,
      errors: error[name] ?? undefined,
      initialValue: initial[name],
    };
  }
  return [form, fields] as const;
}
