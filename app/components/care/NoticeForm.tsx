import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { FormError } from "~/components/ui/FormError";
import { FieldError } from "~/components/ui/Field";
import { useTranslation } from "~/i18n/useTranslation";

export type NoticeChoice = {
  noticeBy: "sms" | "call" | "both";
  callWindow: "morning" | "afternoon" | "evening";
  /** The number a call goes to, masked, or null. */
  phone: string | null;
  windows: Record<"morning" | "afternoon" | "evening", [number, number]>;
};

const BY = { sms: "calls.bySms", call: "calls.byCall", both: "calls.byBoth" } as const;
const WINDOWS = { morning: "calls.morning", afternoon: "calls.afternoon", evening: "calls.evening" } as const;

/**
 * "Call me" (decision 0080): SMS, a call or both, and the part of the day a call may come. The
 * person's Settings, the health worker's page of a centre patient and the family page (for each
 * member, with `patientId`) post it with `intent` "calls"; the server checks it (no zod in the page).
 */
export function NoticeForm({
  choice,
  lastResult,
  busy,
  headingId,
  patientId,
}: {
  choice: NoticeChoice;
  lastResult?: SubmissionResult<string[]>;
  busy: boolean;
  headingId: string;
  /** Whose choice it is, on a page that lists several people (the family page): then the
   * form speaks of "them", not "you". */
  patientId?: string;
}) {
  const { t } = useTranslation();
  const [form, fields] = useServerForm(lastResult, ["noticeBy", "callWindow"], {
    id: `${headingId}-form`,
    defaultValue: { noticeBy: choice.noticeBy, callWindow: choice.callWindow },
  });
  const by = (fields.noticeBy.initialValue as string | undefined) ?? choice.noticeBy;
  const when = (fields.callWindow.initialValue as string | undefined) ?? choice.callWindow;
  const hintId = `${headingId}-hint`;
  return (
    <Form method="post" {...form.props} noValidate aria-labelledby={headingId} className="space-y-4">
      <input type="hidden" name="intent" value="calls" />
      {patientId && <input type="hidden" name="patientId" value={patientId} />}
      <FormError id={form.errorId} errors={form.errors} />
      <fieldset
        aria-describedby={`${hintId}${fields.noticeBy.errors?.length ? ` ${fields.noticeBy.errorId}` : ""}`}
      >
        <legend className="field-label">{patientId ? t("calls.legendMember") : t("calls.legend")}</legend>
        <p id={hintId} className="mb-2 text-sm text-slate-600">
          {!choice.phone
            ? t("calls.noPhoneHint")
            : patientId
              ? t("calls.phoneHintMember", { phone: choice.phone })
              : t("calls.phoneHint", { phone: choice.phone })}
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
              {t(WINDOWS[w], { from: choice.windows[w][0], to: choice.windows[w][1] })}
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
  );
}
