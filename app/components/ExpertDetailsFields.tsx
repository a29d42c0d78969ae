import { useTranslation } from "~/i18n/useTranslation";
import { COUNCIL_MAX, REGISTRATION_MAX } from "~/schemas/limits";
import { SPECIALTIES, SPECIALTY_KEYS } from "~/schemas/specialties";
import { describedBy, FieldError, TextField, type FieldMeta } from "./ui/Field";

type Fields = {
  specialties: FieldMeta;
  registrationNumber: FieldMeta;
  registrationCouncil: FieldMeta;
  yearsOfPractice: FieldMeta;
};

/** An expert's verification details (decision 0013): the same fields on signup and in Settings. */
export function ExpertDetailsFields({ fields }: { fields: Fields }) {
  const { t } = useTranslation();
  const chosen = new Set(
    ([] as unknown[])
      .concat(fields.specialties.initialValue ?? [])
      .filter((v): v is string => typeof v === "string"),
  );
  const hintId = `${fields.specialties.id}-hint`;
  return (
    <div className="space-y-4">
      <fieldset
        aria-describedby={[hintId, describedBy(fields.specialties)].filter(Boolean).join(" ")}
        aria-invalid={fields.specialties.errors?.length ? true : undefined}
      >
        <legend className="field-label">
          {t("experts.specialties")}
          <span aria-hidden="true" className="text-red-700">
            {" "}
            *
          </span>
        </legend>
        <p id={hintId} className="mb-2 text-sm text-slate-600">
          {t("experts.specialtiesHint")}
        </p>
        <div className="grid grid-cols-1 gap-1 min-[420px]:grid-cols-2 sm:grid-cols-3">
          {SPECIALTIES.map((s) => (
            <label
              key={s}
              className="flex min-h-11 cursor-pointer items-center gap-2 rounded-md border border-slate-200 px-2 has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50"
            >
              <input
                type="checkbox"
                name={fields.specialties.name}
                value={s}
                defaultChecked={chosen.has(s)}
                className="h-5 w-5 shrink-0 accent-brand-700"
              />
              <span className="text-slate-800">{t(SPECIALTY_KEYS[s])}</span>
            </label>
          ))}
        </div>
        <FieldError meta={fields.specialties} />
      </fieldset>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          meta={fields.registrationNumber}
          label={t("experts.registrationNumber")}
          hint={t("experts.registrationHint")}
          required
          maxLength={REGISTRATION_MAX}
          autoComplete="off"
        />
        <TextField
          meta={fields.yearsOfPractice}
          label={t("experts.yearsOfPractice")}
          type="number"
          inputMode="numeric"
          min={0}
          max={70}
          required
        />
      </div>
      <TextField
        meta={fields.registrationCouncil}
        label={t("experts.registrationCouncil")}
        hint={t("experts.councilHint")}
        required
        maxLength={COUNCIL_MAX}
      />
    </div>
  );
}
