import { useTranslation } from "~/i18n/useTranslation";
import type { CountryCodeOption } from "~/lib/country-codes.server";
import { describedBy, FieldError, FieldLabel, type FieldMeta } from "./ui/Field";

/**
 * A mobile number (decision 0020): the country's dial code (about 200, named in the UI language) and
 * the number as people type it; the server turns both into E.164.
 */
export function MobileNumberField({
  code,
  number,
  options,
  label,
  required = true,
}: {
  code: FieldMeta;
  number: FieldMeta;
  options: CountryCodeOption[];
  label?: string;
  required?: boolean;
}) {
  const { t } = useTranslation();
  const chosen = (code.initialValue as string | undefined) || "+91";
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-3 min-[420px]:grid-cols-[minmax(0,11rem)_minmax(0,1fr)]">
      <div className="min-w-0">
        <FieldLabel htmlFor={code.id} label={t("accounts.mobileCountry")} required={required} />
        <select
          id={code.id}
          name={code.name}
          defaultValue={chosen}
          autoComplete="tel-country-code"
          aria-describedby={describedBy(code)}
          className="field-input"
        >
          {options.map((o) => (
            <option key={o.country} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        <FieldError meta={code} />
      </div>
      <div className="min-w-0">
        <FieldLabel htmlFor={number.id} label={label ?? t("accounts.mobileNumber")} required={required} />
        <input
          id={number.id}
          name={number.name}
          type="text"
          inputMode="tel"
          autoComplete="tel-national"
          maxLength={20}
          defaultValue={(number.initialValue as string | undefined) ?? undefined}
          aria-invalid={number.errors?.length ? true : undefined}
          aria-describedby={describedBy(number)}
          aria-required={required || undefined}
          className="field-input"
        />
        <FieldError meta={number} />
      </div>
    </div>
  );
}
