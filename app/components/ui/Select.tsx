import { ariaFor, FieldError, FieldLabel, type FieldMeta } from "./Field";

export function SelectField({
  meta,
  label,
  options,
  defaultValue,
  required,
  className,
}: {
  meta: FieldMeta;
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
        {...ariaFor(meta, required)}
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
