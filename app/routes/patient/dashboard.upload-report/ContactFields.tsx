import { useTranslation } from "~/i18n/useTranslation";
import { describedBy, FieldError, TextField, type FieldMeta } from "~/components/ui/Field";
import type { CountryCodeOption } from "~/lib/country-codes.server";

/** The number to call back on: the country code and the national number (the patient's, when sent for them). */
export function ContactFields({
  countryCode,
  phoneNumber,
  countryCodes,
  forPatient = false,
}: {
  countryCode: FieldMeta;
  phoneNumber: FieldMeta;
  countryCodes: CountryCodeOption[];
  /** The number is the patient's, not the sender's (a health worker or a family member sending). */
  forPatient?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-4 sm:grid-cols-[minmax(0,15rem)_minmax(0,1fr)]">
      <div className="min-w-0">
        <label htmlFor={countryCode.id} className="field-label">
          {t("reports.countryCodeLabel")}
          <span aria-hidden="true" className="text-red-700">
            {" "}
            *
          </span>
        </label>
        <select
          id={countryCode.id}
          name={countryCode.name}
          defaultValue={
            countryCode.errors?.length ? "" : ((countryCode.initialValue as string | undefined) ?? "+91")
          }
          aria-invalid={countryCode.errors?.length ? true : undefined}
          aria-describedby={describedBy(countryCode)}
          aria-required
          autoComplete="tel-country-code"
          className="field-input"
        >
          <option value="">{t("reports.countryCodeLabel")}</option>
          {countryCodes.map((c) => (
            <option key={c.country} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
        <FieldError meta={countryCode} />
      </div>
      <TextField
        meta={phoneNumber}
        label={t("reports.phoneLabel")}
        type="text"
        inputMode="tel"
        autoComplete="tel-national"
        hint={t(forPatient ? "reports.phoneHintPatient" : "reports.phoneHint")}
        required
        maxLength={20}
      />
    </div>
  );
}
