import type { SubmissionResult } from "@conform-to/react";
import { Form, useLoaderData } from "@remix-run/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { FormError } from "~/components/ui/FormError";
import { FieldError } from "~/components/ui/Field";
import { useTranslation } from "~/i18n/useTranslation";
import type { loader } from "./route";
import { Section, useBusyIntent } from "./Section";

const BY = { sms: "calls.bySms", call: "calls.byCall", both: "calls.byBoth" } as const;
const WINDOWS = { morning: "calls.morning", afternoon: "calls.afternoon", evening: "calls.evening" } as const;

/** Patients: "call me" (decision 0080) — SMS, a call or both, and the part of the day a call may come. */
export function CallSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { calls } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "calls";
  const [form, fields] = useServerForm(lastResult, ["noticeBy", "callWindow"], {
    id: "calls-form",
    defaultValue: { noticeBy: calls?.noticeBy ?? "sms", callWindow: calls?.callWindow ?? "morning" },
  });
  if (!calls) return null;
  const by = (fields.noticeBy.initialValue as string | undefined) ?? "sms";
  const when = (fields.callWindow.initialValue as string | undefined) ?? "morning";
  return (
    <Section id="calls-heading" title={t("calls.title")}>
      <Form method="post" {...form.props} noValidate aria-labelledby="calls-heading" className="space-y-4">
        <input type="hidden" name="intent" value="calls" />
        <FormError id={form.errorId} errors={form.errors} />
        <fieldset
          aria-describedby={`calls-hint${fields.noticeBy.errors?.length ? ` ${fields.noticeBy.errorId}` : ""}`}
        >
          <legend className="field-label">{t("calls.legend")}</legend>
          <p id="calls-hint" className="mb-2 text-sm text-slate-600">
            {calls.phone ? t("calls.phoneHint", { phone: calls.phone }) : t("calls.noPhoneHint")}
          </p>
          <div className="flex flex-wrap gap-x-6 gap-y-1">
            {(["sms", "call", "both"] as const).map((c) => (
              <label key={c} className="flex min-h-11 items-center gap-2">
                <input
                  type="radio"
                  name={fields.noticeBy.name}
                  value={c}
                  defaultChecked={by === c}
                  className="h-5 w-5"
                />
                {t(BY[c])}
              </label>
            ))}
          </div>
          <FieldError meta={fields.noticeBy} />
        </fieldset>
        <fieldset>
          <legend className="field-label">{t("calls.windowLegend")}</legend>
          <div className="flex flex-wrap gap-x-6 gap-y-1">
            {(["morning", "afternoon", "evening"] as const).map((w) => (
              <label key={w} className="flex min-h-11 items-center gap-2">
                <input
                  type="radio"
                  name={fields.callWindow.name}
                  value={w}
                  defaultChecked={when === w}
                  className="h-5 w-5"
                />
                {t(WINDOWS[w], { from: calls.windows[w][0], to: calls.windows[w][1] })}
              </label>
            ))}
          </div>
          <FieldError meta={fields.callWindow} />
        </fieldset>
        <div className="flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("profile.save")}
          </button>
        </div>
      </Form>
    </Section>
  );
}
