import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { FieldError, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import {
  SHARE_DAYS_DEFAULT,
  SHARE_DAYS_MAX,
  SHARE_LABEL_MAX,
  SHARE_MAX_OPENS_MAX,
  SHARE_PASSCODE_MAX,
} from "~/schemas/limits";

/** The form that makes a new link (action: create.server.ts): label, parts, days, opens, passcode. */
export function CreateForm({
  reviewed,
  lastResult,
}: {
  reviewed: boolean;
  lastResult?: SubmissionResult<string[]>;
}) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const { pathname } = useLocation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "create";
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(
    lastResult,
    ["expiresInDays", "includeFile", "includeLetter", "includeOpinion", "label", "maxOpens", "passcode"],
    {
      id: "share-form",
      defaultValue: {
        includeFile: "on",
        includeOpinion: reviewed ? "on" : "",
        includeLetter: reviewed ? "on" : "",
        expiresInDays: String(SHARE_DAYS_DEFAULT),
      },
    },
  );
  const parts = [
    { meta: fields.includeFile, label: t("share.partFile") },
    { meta: fields.includeOpinion, label: t("share.partOpinion") },
    { meta: fields.includeLetter, label: t("share.partLetter") },
  ];
  const partsError = fields.includeFile.errors?.length ? fields.includeFile : null;
  return (
    <section aria-labelledby="share-form-title" className="card">
      <h2 id="share-form-title" className="text-lg font-bold text-slate-900">
        {t("share.formTitle")}
      </h2>
      <Form
        method="post"
        action={pathname}
        {...form.props}
        noValidate
        className="mt-4 space-y-5"
        aria-labelledby="share-form-title"
      >
        <input type="hidden" name="intent" value="create" />
        <FormError id={form.errorId} errors={form.errors} />
        <TextField
          meta={fields.label}
          label={`${t("share.labelLabel")} ${t("common.optional")}`}
          hint={t("share.labelHint")}
          maxLength={SHARE_LABEL_MAX}
          autoComplete="off"
        />
        <fieldset aria-describedby={reviewed ? undefined : "share-parts-hint"}>
          <legend className="field-label">{t("share.partsLegend")}</legend>
          <div className="space-y-1">
            {parts.map(({ meta, label }) => (
              <label key={meta.name} className="flex min-h-11 cursor-pointer items-center gap-3">
                <input
                  type="checkbox"
                  name={meta.name}
                  id={meta.id}
                  defaultChecked={meta.initialValue === "on"}
                  aria-invalid={partsError ? true : undefined}
                  aria-describedby={partsError ? partsError.errorId : undefined}
                  className="h-5 w-5 shrink-0 accent-brand-700"
                />
                <span>{label}</span>
              </label>
            ))}
          </div>
          {!reviewed && (
            <p id="share-parts-hint" className="mt-1 text-sm text-slate-600">
              {t("share.partsPendingHint")}
            </p>
          )}
          <FieldError meta={fields.includeFile} />
        </fieldset>
        <TextField
          meta={fields.expiresInDays}
          label={t("share.daysLabel")}
          hint={t("share.daysHint")}
          type="number"
          inputMode="numeric"
          min={1}
          max={SHARE_DAYS_MAX}
          required
          className="field-input max-w-40"
        />
        <TextField
          meta={fields.maxOpens}
          label={`${t("share.maxOpensLabel")} ${t("common.optional")}`}
          hint={t("share.maxOpensHint")}
          type="number"
          inputMode="numeric"
          min={1}
          max={SHARE_MAX_OPENS_MAX}
          className="field-input max-w-40"
        />
        <TextField
          meta={fields.passcode}
          label={`${t("share.passcodeLabel")} ${t("common.optional")}`}
          hint={t("share.passcodeHint")}
          maxLength={SHARE_PASSCODE_MAX}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
        />
        <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
          {busy ? t("share.creating") : t("share.create")}
        </button>
      </Form>
    </section>
  );
}
