import type { SubmissionResult } from "@conform-to/react";
import { useEffect, useId } from "react";
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
  options: {
    /** The form's id (the fields' ids derive from it); a generated one when not given. */
    id?: string;
    /** What the fields hold before the first answer (the server's reply then carries what was sent). */
    defaultValue?: Partial<Record<F, unknown>>;
  } = {},
) {
  const generated = useId();
  const formId = options.id ?? generated;
  const error = lastResult?.error ?? {};
  const initial = (lastResult?.initialValue ?? options.defaultValue ?? {}) as Record<string, unknown>;
  // A reply made with `resetForm` (`initialValue: null`, e.g. after a link was made) empties what was
  // typed, as Conform's form does: the browser's own reset puts each field back to its default.
  const reset = lastResult != null && lastResult.initialValue === null;
  useEffect(() => {
    if (reset) (document.getElementById(formId) as HTMLFormElement | null)?.reset();
  }, [lastResult, reset, formId]);
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
