import type { SubmissionResult } from "@conform-to/react";
import { Form, useLoaderData } from "@remix-run/react";
import { FormError } from "~/components/ui/FormError";
import { useServerForm } from "~/components/ui/useServerForm";
import { useTranslation } from "~/i18n/useTranslation";
import type { loader } from "./route";
import { Section, useBusyIntent } from "./Section";

/** Each way of being reminded, by its label. */
const BY_LABEL = {
  sms: "reminders.by.sms",
  call: "reminders.by.call",
  email: "reminders.by.email",
  none: "reminders.by.none",
} as const;

const CHANNELS = ["sms", "call", "email", "none"] as const;
const HOURS = Array.from({ length: 16 }, (_, i) => i + 6);

/** Patients: how and at what hour of the clinic's day they are reminded of their next steps (decision 0114). */
export function RemindersSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { reminders } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "reminders";
  const [form, fields] = useServerForm(lastResult, ["remindBy", "remindHour"], {
    id: "reminders-form",
    defaultValue: { remindBy: reminders?.remindBy ?? "sms", remindHour: String(reminders?.remindHour ?? 9) },
  });
  if (!reminders) return null;
  const chosen = (fields.remindBy.initialValue as string | undefined) ?? reminders.remindBy;
  const hour = (fields.remindHour.initialValue as string | undefined) ?? String(reminders.remindHour);
  return (
    <Section id="reminders-heading" title={t("reminders.title")}>
      <Form method="post" {...form.props} noValidate aria-labelledby="reminders-heading">
        <input type="hidden" name="intent" value="reminders" />
        <p className="mb-3 text-sm text-slate-600">{t("reminders.intro")}</p>
        <FormError id={form.errorId} errors={form.errors} />
        <fieldset aria-describedby="reminders-hint" className="mb-4">
          <legend className="field-label">{t("reminders.byLabel")}</legend>
          <div id="reminders-hint" className="mb-2 space-y-1 text-sm text-slate-600">
            <p>
              {reminders.phone ? t("reminders.phone", { phone: reminders.phone }) : t("reminders.noPhoneYet")}
            </p>
            {reminders.phone && !reminders.phoneProven && <p>{t("reminders.callNeedsProof")}</p>}
          </div>
          <div className="flex flex-wrap gap-x-6 gap-y-1">
            {CHANNELS.map((c) => (
              <label key={c} className="flex min-h-11 items-center gap-2">
                <input
                  type="radio"
                  name={fields.remindBy.name}
                  value={c}
                  defaultChecked={chosen === c}
                  className="h-5 w-5"
                  aria-invalid={fields.remindBy.errors ? true : undefined}
                />
                {t(BY_LABEL[c])}
              </label>
            ))}
          </div>
          {fields.remindBy.errors?.map((e) => (
            <p key={e} className="mt-1 text-sm text-red-700" role="alert">
              {t(e)}
            </p>
          ))}
        </fieldset>
        <label htmlFor="remind-hour" className="field-label">
          {t("reminders.hourLabel")}
        </label>
        <select
          id="remind-hour"
          name={fields.remindHour.name}
          defaultValue={hour}
          className="field-input w-40"
          aria-invalid={fields.remindHour.errors ? true : undefined}
        >
          {HOURS.map((h) => (
            <option key={h} value={String(h)}>
              {t("reminders.hourValue", { hour: String(h).padStart(2, "0") })}
            </option>
          ))}
        </select>
        {fields.remindHour.errors?.map((e) => (
          <p key={e} className="mt-1 text-sm text-red-700" role="alert">
            {t(e)}
          </p>
        ))}
        <p className="mt-3 text-sm text-slate-600">{t("reminders.answerHint")}</p>
        <div className="mt-5 flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("reminders.save")}
          </button>
        </div>
      </Form>
    </Section>
  );
}
