import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { FormError } from "~/components/ui/FormError";
import { PasswordField } from "~/components/ui/PasswordField";
import { Section, useBusyIntent } from "./Section";

export function PasswordSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const busy = useBusyIntent() === "password";
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(lastResult, ["oldPassword", "newPassword", "confirmNewPassword"], {
    id: "password-form",
  });
  return (
    <Section id="password-heading" title={t("profile.passwordTitle")}>
      <Form method="post" {...form.props} noValidate aria-labelledby="password-heading">
        <input type="hidden" name="intent" value="password" />
        {/* Only an error of the whole form (e.g. too many tries); field errors sit at their fields. */}
        <FormError id={form.errorId} errors={form.errors} />
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="sm:col-span-2 sm:max-w-[calc(50%-0.5rem)]">
            <PasswordField
              meta={fields.oldPassword}
              label={t("profile.currentPassword")}
              autoComplete="current-password"
            />
          </div>
          <PasswordField
            meta={fields.newPassword}
            label={t("profile.newPassword")}
            autoComplete="new-password"
          />
          <PasswordField
            meta={fields.confirmNewPassword}
            label={t("profile.confirmNewPassword")}
            autoComplete="new-password"
          />
        </div>
        <div className="mt-5 flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("profile.changePassword")}
          </button>
        </div>
      </Form>
    </Section>
  );
}
