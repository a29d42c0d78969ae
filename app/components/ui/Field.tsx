import { messageText } from "~/i18n/message";
import { useTranslation } from "~/i18n/useTranslation";

/** The Conform field metadata the controls read. */
export type FieldMeta = {
  id: string;
  name: string;
  errorId: string;
  descriptionId: string;
  errors?: string[];
  initialValue?: unknown;
};

/** Shows the first error: a key (from the shared zod schemas) translated, a server's sentence as is. */
export function FieldError({ meta }: { meta: Pick<FieldMeta, "errorId" | "errors"> }) {
  const { t } = useTranslation();
  if (!meta.errors?.length) return <div id={meta.errorId} />;
  return (
    <p id={meta.errorId} className="field-error" role="alert">
      {messageText(t, meta.errors[0], { max: 5000 })}
    </p>
  );
}

/** A field's label, with the red asterisk (hidden from screen readers, which hear aria-required). */
export function FieldLabel({
  htmlFor,
  label,
  required,
}: {
  htmlFor: string;
  label: string;
  required?: boolean;
}) {
  return (
    <label htmlFor={htmlFor} className="field-label">
      {label}
      {required && (
        <span aria-hidden="true" className="text-red-700">
          {" "}
          *
        </span>
      )}
    </label>
  );
}

/** The ARIA wiring every form control shares: invalid state, error/hint description, required. */
export function ariaFor(meta: FieldMeta, required?: boolean, hint?: boolean) {
  return {
    "aria-invalid": meta.errors?.length ? true : undefined,
    "aria-describedby": describedBy(meta, hint),
    "aria-required": required || undefined,
  } as const;
}

export function describedBy(meta: FieldMeta, hint?: boolean) {
  return (
    [meta.errors?.length ? meta.errorId : null, hint ? meta.descriptionId : null].filter(Boolean).join(" ") ||
    undefined
  );
}

export function TextField({
  meta,
  label,
  type = "text",
  hint,
  required,
  ...rest
}: {
  meta: FieldMeta;
  label: string;
  type?: string;
  hint?: string;
  required?: boolean;
} & Omit<React.InputHTMLAttributes<HTMLInputElement>, "type" | "name" | "id">) {
  return (
    <div>
      <FieldLabel htmlFor={meta.id} label={label} required={required} />
      <input
        id={meta.id}
        name={meta.name}
        type={type}
        defaultValue={(meta.initialValue as string | undefined) ?? undefined}
        {...ariaFor(meta, required, !!hint)}
        className="field-input"
        {...rest}
      />
      {hint && (
        <p id={meta.descriptionId} className="mt-1 text-sm text-slate-600">
          {hint}
        </p>
      )}
      <FieldError meta={meta} />
    </div>
  );
}

export function TextAreaField({
  meta,
  label,
  required,
  ...rest
}: { meta: FieldMeta; label: string; required?: boolean } & Omit<
  React.TextareaHTMLAttributes<HTMLTextAreaElement>,
  "name" | "id"
>) {
  return (
    <div>
      <FieldLabel htmlFor={meta.id} label={label} required={required} />
      <textarea
        id={meta.id}
        name={meta.name}
        defaultValue={(meta.initialValue as string | undefined) ?? undefined}
        {...ariaFor(meta, required)}
        className="field-input min-h-32"
        {...rest}
      />
      <FieldError meta={meta} />
    </div>
  );
}
