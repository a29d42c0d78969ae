import type { SubmissionResult } from "@conform-to/react";
import { Form, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { FieldError, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { SelectField } from "~/components/ui/Select";
import { LANGUAGES } from "~/i18n/config";
import { useServerForm } from "~/components/ui/useServerForm";
import { FAMILY_NAME_MAX as NAME_MAX, FAMILY_RELATIONSHIPS } from "~/schemas/limits";
import { site } from "~/site";

const REL_LABEL: Record<(typeof FAMILY_RELATIONSHIPS)[number], string> = {
  daughter: "family.relDaughter",
  son: "family.relSon",
  father: "family.relFather",
  mother: "family.relMother",
  spouse: "family.relSpouse",
  other: "family.relOther",
};

/**
 * Adds a family member (action: add.server.ts); every field kept when something is wrong. Checked
 * by the server alone (useServerForm: the family screen loads no zod, decision 0094).
 */
export function AddMemberForm({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t, i18n } = useTranslation();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const [form, fields] = useServerForm(
    lastResult,
    [
      "firstName",
      "lastName",
      "sex",
      "birthYear",
      "age",
      "relationship",
      "preferredLanguage",
      "guardianConsent",
      "memberConsent",
    ],
    { id: "family-add", defaultValue: { preferredLanguage: i18n.language } },
  );
  const sexes = [
    { value: "female", label: t("family.sexFemale") },
    { value: "male", label: t("family.sexMale") },
    { value: "other", label: t("family.sexOther") },
  ];
  const consents = [
    { meta: fields.guardianConsent, label: t("family.guardianConsent", { product: site.productName }) },
    { meta: fields.memberConsent, label: t("family.memberConsent", { product: site.productName }) },
  ];
  return (
    <section aria-labelledby="family-add-title" className="card min-w-0">
      <h2 id="family-add-title" className="text-lg font-bold text-slate-900">
        {t("family.addTitle")}
      </h2>
      <Form
        method="post"
        action="/dashboard/family"
        {...form.props}
        noValidate
        className="mt-4 space-y-5"
        aria-labelledby="family-add-title"
      >
        <FormError id={form.errorId} errors={form.errors} />
        <TextField meta={fields.firstName} label={t("family.firstName")} maxLength={NAME_MAX} required />
        <TextField
          meta={fields.lastName}
          label={`${t("family.lastName")} ${t("common.optional")}`}
          maxLength={NAME_MAX}
        />
        <fieldset aria-describedby={fields.sex.errors?.length ? fields.sex.errorId : undefined}>
          <legend className="field-label">
            {t("family.sex")}
            <span aria-hidden="true" className="text-red-700">
              {" "}
              *
            </span>
          </legend>
          <div className="flex flex-wrap gap-x-6">
            {sexes.map((s) => (
              <label key={s.value} className="flex min-h-11 cursor-pointer items-center gap-2">
                <input
                  type="radio"
                  name={fields.sex.name}
                  value={s.value}
                  defaultChecked={fields.sex.initialValue === s.value}
                  aria-invalid={fields.sex.errors?.length ? true : undefined}
                  className="h-5 w-5 accent-brand-700"
                />
                <span>{s.label}</span>
              </label>
            ))}
          </div>
          <FieldError meta={fields.sex} />
        </fieldset>
        <div>
          <div className="grid grid-cols-2 items-end gap-3">
            <TextField
              meta={fields.birthYear}
              label={t("family.birthYear")}
              type="number"
              inputMode="numeric"
              min={1900}
              max={2100}
              className="field-input"
            />
            <TextField
              meta={fields.age}
              label={t("family.age")}
              type="number"
              inputMode="numeric"
              min={0}
              max={120}
              className="field-input"
            />
          </div>
          <p className="mt-1 text-sm text-slate-600">{t("family.ageHint")}</p>
        </div>
        <SelectField
          meta={fields.relationship}
          label={t("family.relationship")}
          required
          options={[
            { value: "", label: t("family.choose") },
            ...FAMILY_RELATIONSHIPS.map((r) => ({ value: r, label: t(REL_LABEL[r]) })),
          ]}
        />
        <SelectField
          meta={fields.preferredLanguage}
          label={t("family.language")}
          required
          options={LANGUAGES.map((l) => ({ value: l.code, label: l.label }))}
        />
        <fieldset>
          <legend className="field-label">{t("family.consentLegend")}</legend>
          <p className="mb-2 text-sm text-slate-600">{t("family.consentHint")}</p>
          <div className="space-y-3">
            {consents.map(({ meta, label }) => (
              <div key={meta.name}>
                <label className="flex cursor-pointer items-start gap-3">
                  <input
                    type="checkbox"
                    name={meta.name}
                    id={meta.id}
                    defaultChecked={meta.initialValue === "on"}
                    aria-invalid={meta.errors?.length ? true : undefined}
                    aria-describedby={meta.errors?.length ? meta.errorId : undefined}
                    className="mt-1 h-5 w-5 shrink-0 accent-brand-700"
                  />
                  <span>{label}</span>
                </label>
                <FieldError meta={meta} />
              </div>
            ))}
          </div>
        </fieldset>
        <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
          {busy ? t("family.adding") : t("family.add")}
        </button>
      </Form>
    </section>
  );
}
