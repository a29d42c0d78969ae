import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { SecondFactorField } from "~/components/AccountFields";
import { useDateText } from "~/components/reports/LocalDate";
import { FormError } from "~/components/ui/FormError";
import { PasswordField } from "~/components/ui/PasswordField";
import type { loader } from "./route";
import { MY_DATA, Section, useBusy } from "./Section";

/**
 * Erasure (actions: erasure.server.ts): the request with password (and second factor), or, while
 * one waits out its notice, its date and the button that cancels it.
 */
export function ErasureSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { erasure, notice, retention, twoStep } = useLoaderData<typeof loader>();
  const busy = useBusy("erasure");
  const cancelling = useBusy("cancel-erasure");
  const { dateTime } = useDateText();
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(lastResult, ["password", "proof"], { id: "erasure-form" });
  return (
    <Section id="erasure" title={t("rights.erasureTitle")} danger>
      {erasure ? (
        <div role="status" className="rounded-lg border border-red-300 bg-red-50 p-4 text-red-950">
          <p className="font-bold">{t("rights.erasurePending", { date: dateTime(erasure.dueAt!) })}</p>
          <p className="mt-1">{t("rights.erasurePendingText")}</p>
          <Form method="post" action={MY_DATA} className="mt-3">
            <input type="hidden" name="intent" value="cancel-erasure" />
            <button type="submit" className="btn-primary" disabled={cancelling}>
              {t("rights.erasureCancelButton")}
            </button>
          </Form>
        </div>
      ) : (
        <Form method="post" action={MY_DATA} {...form.props} noValidate aria-labelledby="erasure-title">
          <p className="max-w-prose text-slate-700">{t("rights.erasureText", { notice })}</p>
          <p className="mt-2 max-w-prose text-sm text-slate-600">{t("rights.erasureKept", { retention })}</p>
          <input type="hidden" name="intent" value="erasure" />
          <div className="mt-3">
            <FormError id={form.errorId} errors={form.errors} />
          </div>
          <div className="mt-2 max-w-sm">
            <PasswordField meta={fields.password} label={t("rights.erasurePassword")} />
          </div>
          {twoStep && (
            <div className="mt-2 max-w-sm">
              <SecondFactorField meta={fields.proof} />
            </div>
          )}
          <button type="submit" className="btn-danger mt-4" disabled={busy}>
            {t("rights.erasureButton", { notice })}
          </button>
        </Form>
      )}
    </Section>
  );
}
