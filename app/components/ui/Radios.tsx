import { FieldError, describedBy, type FieldMeta } from "./Field";

/** A required-or-not group of large radio cards with a legend, hints and the field's error. */
export function Radios({
  meta,
  legend,
  options,
  required = true,
}: {
  meta: FieldMeta;
  legend: string;
  options: { value: string; label: string; hint?: string }[];
  required?: boolean;
}) {
  return (
    <fieldset aria-describedby={describedBy(meta)}>
      <legend className="field-label">
        {legend}
        {required && (
          <span aria-hidden="true" className="text-red-700">
            {" "}
            *
          </span>
        )}
      </legend>
      <div className="mt-1 grid gap-2 sm:grid-cols-2">
        {options.map((o) => (
          <label
            key={o.value}
            className="flex min-h-11 cursor-pointer items-start gap-3 rounded-lg border border-slate-300 bg-white px-3 py-2"
          >
            <input
              type="radio"
              name={meta.name}
              value={o.value}
              defaultChecked={meta.initialValue === o.value}
              aria-invalid={meta.errors?.length ? true : undefined}
              className="mt-1 h-5 w-5 shrink-0 accent-brand-700"
            />
            <span>
              <span className="font-medium text-slate-900">{o.label}</span>
              {o.hint && <span className="block text-sm text-slate-600">{o.hint}</span>}
            </span>
          </label>
        ))}
      </div>
      <FieldError meta={meta} />
    </fieldset>
  );
}
