import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { FormError } from "~/components/ui/FormError";
import type { loader } from "./route";
import { Section, useBusyIntent } from "./Section";

const NOTIFY_LABELS = {
  email: "profile.notifyEmail",
  sms: "profile.notifySms",
  both: "profile.notifyBoth",
} as const;

/** Experts and admins: notifications by e-mail, SMS or both. */
export function NotifySection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { notify } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "notify";
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(lastResult, ["notify"], {
    id: "notify-form",
    defaultValue: { notify: notify?.channel ?? "email" },
  });
  const chosen = (fields.notify.initialValue as string | undefined) ?? "email";
  return (
    <Section id="notify-heading" title={t("profile.notifyTitle")}>
      <Form method="post" {...form.props} noValidate aria-labelledby="notify-heading">
        <input type="hidden" name="intent" value="notify" />
        <FormError id={form.errorId} errors={form.errors} />
        <fieldset aria-describedby="notify-hint">
          <legend className="field-label">{t("profile.notifyLegend")}</legend>
          <p id="notify-hint" className="mb-2 text-sm text-slate-600">
            {notify?.mobile
              ? t("profile.notifyHint", { mobile: notify.mobile })
              : t("profile.notifyNoMobile")}
          </p>
          <div className="flex flex-wrap gap-x-6 gap-y-1">
            {(["email", "sms", "both"] as const).map((c) => (
              <label key={c} className="flex min-h-11 items-center gap-2">
                <input
                  type="radio"
                  name={fields.notify.name}
                  value={c}
                  defaultChecked={chosen === c}
                  className="h-5 w-5"
                />
                {t(NOTIFY_LABELS[c])}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="mt-5 flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("profile.save")}
          </button>
        </div>
      </Form>
    </Section>
  );
}
