import { getFormProps, useForm, type Submission, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { FilePicker } from "~/components/ui/FilePicker";
import { useTranslation } from "~/i18n/useTranslation";
import { PageHeader } from "~/components/reports/PageHeader";
import { FieldError, TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { LANGUAGES, languageNameKey } from "~/i18n/config";
import { FACILITATED_METHODS, METHOD_KEYS, registrationSchema } from "~/schemas/registration";
import { parseFormData } from "~/schemas/strict";
import { Radios } from "~/components/ui/Radios";
import { messageText } from "~/i18n/message";

/**
 * What the consent-first registration form shows (decision 0030): the centre, the consent text in
 * the patient's language `lang` (paragraphs, then the question), the text's version and its date
 * in words. `lastResult` is the server's answer to the last post (online) or the browser's own
 * check (offline).
 */
export type RegisterFormProps = {
  centreName: string;
  lang: string;
  consentText: string[];
  consentQuestion: string;
  textVersion: string;
  textDate: string;
  lastResult?: SubmissionResult<string[]> | null;
  offline?: OfflineRegister;
};

/**
 * Offline (the outbox screen, decision 0063): the form is checked in the browser with the same
 * schema and handed to `onSubmit` instead of being posted; the consent's language is a button.
 */
export type OfflineRegister = {
  onLanguage: (code: string) => void;
  onSubmit: (data: FormData) => void;
};

/** The form itself: the route (online, posted) and the offline app (kept in the outbox) both draw it. */
export function RegisterForm({
  centreName,
  lang,
  consentText,
  consentQuestion,
  textVersion,
  textDate,
  lastResult,
  offline,
}: RegisterFormProps) {
  const { t } = useTranslation();
  const [form, fields] = useForm<Record<string, string>>({
    id: "register-patient",
    lastResult,
    defaultValue: { preferredLanguage: lang, countryCode: "+91" },
    shouldValidate: "onSubmit",
    onValidate: offline
      ? ({ formData }) =>
          parseFormData(formData, { schema: registrationSchema }) as unknown as Submission<
            Record<string, string>
          >
      : undefined,
    onSubmit: offline
      ? (event, { formData, submission }) => {
          event.preventDefault();
          if (submission?.status === "success") offline.onSubmit(formData);
        }
      : undefined,
  });
  const refused = fields.consent.errors?.includes(t("registration.refusedWhatToDo"));
  // A language inside a sentence is named in the screen's language (the buttons name each in its own).
  const langOf = (code: string) => t(languageNameKey(code));
  return (
    <section className="mx-auto max-w-2xl">
      <PageHeader
        title={t("registration.registerTitle")}
        intro={t("registration.registerIntro", { centre: centreName })}
      />
      {refused && (
        <div
          role="alert"
          className="mb-5 rounded-lg border-2 border-amber-500 bg-amber-50 px-4 py-4 text-lg text-amber-950"
          data-testid="consent-refused"
        >
          <p className="font-bold">{t("registration.notRegistered")}</p>
          <p className="mt-1">{t("registration.refusedWhatToDo")}</p>
        </div>
      )}
      <Form
        method="post"
        encType="multipart/form-data"
        {...getFormProps(form)}
        className="space-y-6"
        noValidate
      >
        {!refused && <FormError id={form.errorId} errors={form.errors?.map((e) => messageText(t, e))} />}
        <input type="hidden" name="consentTextVersion" value={textVersion} />

        <section aria-labelledby="consent-heading" className="card space-y-4">
          <h2 id="consent-heading" className="text-xl font-bold text-slate-900">
            {t("registration.step1")}
          </h2>
          <nav aria-label={t("registration.readInLanguage")} className="flex flex-wrap items-center gap-2">
            <span className="text-slate-700">{t("registration.readInLanguage")}</span>
            {LANGUAGES.map((l) =>
              offline ? (
                <button
                  key={l.code}
                  type="button"
                  lang={l.code}
                  aria-pressed={l.code === lang}
                  className={l.code === lang ? "btn-primary" : "btn-secondary"}
                  onClick={() => offline.onLanguage(l.code)}
                >
                  {l.label}
                </button>
              ) : (
                <Link
                  key={l.code}
                  to={`?lang=${l.code}`}
                  lang={l.code}
                  aria-current={l.code === lang ? "true" : undefined}
                  className={l.code === lang ? "btn-primary" : "btn-secondary"}
                  preventScrollReset
                >
                  {l.label}
                </Link>
              ),
            )}
          </nav>
          <div
            lang={lang}
            className="space-y-3 rounded-lg border border-brand-600 bg-brand-50 p-4 text-xl leading-relaxed text-slate-900"
            data-testid="consent-text"
          >
            {consentText.map((p, i) => (
              <p key={i}>{p}</p>
            ))}
            <p className="font-bold">{consentQuestion}</p>
          </div>
          <p className="text-sm text-slate-600">
            {t("registration.textVersion", { date: textDate, language: langOf(lang) })}
          </p>
          <Radios
            meta={fields.consent}
            legend={t("registration.consentAnswer")}
            options={[
              { value: "granted", label: t("registration.consentGranted") },
              {
                value: "refused",
                label: t("registration.consentRefused"),
                hint: t("registration.consentRefusedHint"),
              },
            ]}
          />
          <Radios
            meta={fields.consentMethod}
            legend={t("registration.methodLabel")}
            options={FACILITATED_METHODS.map((m) => ({
              value: m,
              label: t(METHOD_KEYS[m].label),
              hint: t(METHOD_KEYS[m].hint),
            }))}
          />
          <TextField
            meta={fields.witnessName}
            label={t("registration.witnessLabel")}
            hint={t("registration.witnessHint")}
            maxLength={120}
            autoComplete="off"
          />
          <div>
            <label htmlFor="evidence" className="field-label">
              {t("registration.evidenceLabel")}
            </label>
            <FilePicker
              id="evidence"
              name="evidence"
              accept="image/png,image/jpeg,image/webp,image/gif"
              capture="environment"
              aria-describedby={`evidence-hint${fields.evidence.errors?.length ? " evidence-error" : ""}`}
            />
            <p id="evidence-hint" className="mt-1 text-sm text-slate-600">
              {t("registration.evidenceHint")}
            </p>
            {fields.evidence.errors?.length ? (
              <p id="evidence-error" className="field-error" role="alert">
                {messageText(t, fields.evidence.errors[0])}
              </p>
            ) : null}
          </div>
          <p className="text-sm text-slate-700">{t("registration.recordedBy")}</p>
        </section>

        <section aria-labelledby="details-heading" className="card space-y-4">
          <h2 id="details-heading" className="text-xl font-bold text-slate-900">
            {t("registration.step2")}
          </h2>
          <TextField
            meta={fields.firstName}
            label={t("registration.firstName")}
            required
            maxLength={100}
            autoComplete="off"
          />
          <TextField
            meta={fields.lastName}
            label={t("registration.lastName")}
            maxLength={100}
            autoComplete="off"
          />
          <Radios
            meta={fields.sex}
            legend={t("registration.sex")}
            options={[
              { value: "female", label: t("registration.sexes.female") },
              { value: "male", label: t("registration.sexes.male") },
              { value: "other", label: t("registration.sexes.other") },
            ]}
          />
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              meta={fields.age}
              label={t("registration.age")}
              type="number"
              inputMode="numeric"
              min={0}
              max={120}
              hint={t("registration.ageHint")}
            />
            <TextField
              meta={fields.birthYear}
              label={t("registration.birthYear")}
              type="number"
              inputMode="numeric"
              min={1890}
            />
          </div>
          <TextField meta={fields.locality} label={t("registration.locality")} required maxLength={200} />
          <div>
            <label htmlFor={fields.preferredLanguage.id} className="field-label">
              {t("registration.language")}
            </label>
            <select
              id={fields.preferredLanguage.id}
              name={fields.preferredLanguage.name}
              defaultValue={(fields.preferredLanguage.initialValue as string) ?? lang}
              className="field-input"
            >
              {LANGUAGES.map((l) => (
                <option key={l.code} value={l.code} lang={l.code}>
                  {l.label}
                </option>
              ))}
            </select>
            <FieldError meta={fields.preferredLanguage} />
          </div>
          <Radios
            meta={fields.phoneOwner}
            legend={t("registration.phoneOwner")}
            options={[
              { value: "self", label: t("registration.phoneOwners.self") },
              { value: "family", label: t("registration.phoneOwners.family") },
              { value: "none", label: t("registration.phoneOwners.none") },
            ]}
          />
          <input type="hidden" name="countryCode" value="+91" />
          <TextField
            meta={fields.phone}
            label={t("registration.phone")}
            type="tel"
            inputMode="tel"
            autoComplete="off"
            hint={t("registration.phoneHint")}
          />
          <TextField
            meta={fields.phoneRelationship}
            label={t("registration.phoneRelationship")}
            hint={t("registration.phoneRelationshipHint")}
            maxLength={60}
          />
        </section>

        <button type="submit" className="btn-primary w-full sm:w-auto">
          {t("registration.registerButton")}
        </button>
      </Form>
    </section>
  );
}
