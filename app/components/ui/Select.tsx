import { describedBy, FieldError, FieldLabel } from "./Field";

type Meta = {
  id: string;
  name: string;
  errorId: string;
  descriptionId: string;
  errors?: string[];
  initialValue?: unknown;
};

export function SelectField({
  meta,
  label,
  options,
  defaultValue,
  required,
  className,
}: {
  meta: Meta;
  label: string;
  options: { value: string; label: string }[];
  defaultValue?: string;
  required?: boolean;
  className?: string;
}) {
  return (
    <div className={className}>
      <FieldLabel htmlFor={meta.id} label={label} required={required} />
      <select
        id={meta.id}
        name={meta.name}
        defaultValue={(meta.initialValue as string | undefined) ?? defaultValue}
        aria-invalid={meta.errors?.length ? true : undefined}
        aria-describedby={describedBy(meta)}
        aria-required={required || undefined}
        className="field-input"
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldError meta={meta} />
    </div>
  );
}
