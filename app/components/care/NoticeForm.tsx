import type { SubmissionResult } from "@conform-to/react";
import type { TFunction } from "i18next";
import { Form, Link } from "@remix-run/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { FormError } from "~/components/ui/FormError";
import { FieldError } from "~/components/ui/Field";
import { useTranslation } from "~/i18n/useTranslation";

export type NoticeChoice = {
  noticeBy: "sms" | "call" | "both";
  callWindow: "morning" | "afternoon" | "evening";
  /** The number a call goes to, masked, or null. */
  phone: string | null;
  /** Whether it is proven to be theirs (decision 0102); a call is chosen only then. Absent: as before (proven). */
  phoneProven?: boolean;
  /** The clinic's number, for a missed call that proves it; null: none set. */
  clinicNumber?: string | null;
  windows: Record<"morning" | "afternoon" | "evening", [number, number]>;
};

const BY = { sms: "calls.bySms", call: "calls.byCall", both: "calls.byBoth" } as const;
const WINDOWS = { morning: "calls.morning", afternoon: "calls.afternoon", evening: "calls.evening" } as const;

/** A window as people say it (decision 0093): "शाम 5 से 8 बजे", "In the evening, 5 to 8" — not 17:00–20:00. */
export function windowWords(
  t: TFunction,
  lang: string,
  window: keyof typeof WINDOWS,
  [from, to]: [number, number],
): string {
  const digits = new Intl.NumberFormat(lang);
  const clock = (h: number) => digits.format(h % 12 || 12);
  return t(WINDOWS[window], { from: clock(from), to: clock(to) });
}

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
  addPhone,
}: {
  choice: NoticeChoice;
  lastResult?: SubmissionResult<string[]>;
  busy: boolean;
  headingId: string;
  /** Whose choice it is, on a page that lists several people (the family page): then the
   * form speaks of "them", not "you". */
  patientId?: string;
  /** Where a number for calls is added, linked while there is none (none: nowhere the actor can). */
  addPhone?: string;
}) {
  const { t, i18n } = useTranslation();
  const [form, fields] = useServerForm(lastResult, ["noticeBy", "callWindow"], {
    id: `${headingId}-form`,
    defaultValue: { noticeBy: choice.noticeBy, callWindow: choice.callWindow },
  });
  // Without a number only SMS can be chosen: the call choices are shown, but cannot be picked —
  // nor while the number is not proven to be theirs (decision 0102): then it can be proven below.
  const unproven = !!choice.phone && choice.phoneProven === false;
  const noPhone = !choice.phone || unproven;
  const by = noPhone ? "sms" : ((fields.noticeBy.initialValue as string | undefined) ?? choice.noticeBy);
  const when = (fields.callWindow.initialValue as string | undefined) ?? choice.callWindow;
  const hintId = `${headingId}-hint`;
  return (
    <>
      <Form
        method="post"
        {...form.props}
        aria-describedby={noPhone ? undefined : form.props["aria-describedby"]}
        noValidate
        aria-labelledby={headingId}
        className="space-y-4"
      >
        <input type="hidden" name="intent" value="calls" />
        {patientId && <input type="hidden" name="patientId" value={patientId} />}
        {/* Without a number, the hint says why a call cannot be chosen: not a second time above it. */}
        {!noPhone && <FormError id={form.errorId} errors={form.errors} />}
        <fieldset
          aria-describedby={`${hintId}${!noPhone && fields.noticeBy.errors?.length ? ` ${fields.noticeBy.errorId}` : ""}`}
        >
          <legend className="field-label">{patientId ? t("calls.legendMember") : t("calls.legend")}</legend>
          <p
            id={hintId}
            className={noPhone ? "mb-2 text-sm font-semibold text-amber-900" : "mb-2 text-sm text-slate-600"}
            data-testid={noPhone ? "no-phone" : undefined}
          >
            {unproven ? (
              t(patientId ? "calls.unprovenMember" : "calls.unprovenHint", { phone: choice.phone })
            ) : noPhone ? (
              <>
                {t(patientId ? "calls.noPhoneMember" : "calls.noPhoneHint")}
                {addPhone && (
                  <>
                    {" "}
                    <Link to={addPhone} className="underline underline-offset-2">
                      {t(patientId ? "calls.addPhoneFamily" : "calls.addPhone")}
                    </Link>
                  </>
                )}
              </>
            ) : patientId ? (
              t("calls.phoneHintMember", { phone: choice.phone })
            ) : (
              t("calls.phoneHint", { phone: choice.phone })
            )}
          </p>
          <div className="flex flex-wrap gap-x-6 gap-y-1">
            {(["sms", "call", "both"] as const).map((c) => (
              <label key={c} className="flex min-h-11 items-center gap-2">
                <input
                  type="radio"
                  name={fields.noticeBy.name}
                  value={c}
                  defaultChecked={by === c}
                  disabled={noPhone && c !== "sms"}
                  className="h-5 w-5"
                />
                {t(BY[c])}
              </label>
            ))}
          </div>
          {/* Said once: without a number the hint above says it, not an error below it too. */}
          {!noPhone && <FieldError meta={fields.noticeBy} />}
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
                {windowWords(t, i18n.language, w, choice.windows[w])}
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
      {unproven && <NumberProof choice={choice} headingId={headingId} patientId={patientId} />}
    </>
  );
}

/**
 * Proving the number a call would go to (decision 0102): a code sent to it by SMS and typed back,
 * or a missed call from it to the clinic. Two plain forms (`intent` proof-send, proof-check) posted
 * to the same page as the choice; the page answers with a toast.
 */
function NumberProof({
  choice,
  headingId,
  patientId,
}: {
  choice: NoticeChoice;
  headingId: string;
  patientId?: string;
}) {
  const { t } = useTranslation();
  const codeId = `${headingId}-code`;
  return (
    <div
      className="mt-4 space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-3"
      data-testid="number-proof"
    >
      <Form method="post" className="flex flex-wrap items-center gap-3">
        <input type="hidden" name="intent" value="proof-send" />
        {patientId && <input type="hidden" name="patientId" value={patientId} />}
        <button type="submit" className="btn-secondary">
          {t("calls.sendCode", { phone: choice.phone })}
        </button>
      </Form>
      <Form method="post" className="flex flex-wrap items-end gap-3">
        <input type="hidden" name="intent" value="proof-check" />
        {patientId && <input type="hidden" name="patientId" value={patientId} />}
        <div>
          <label htmlFor={codeId} className="field-label">
            {t("calls.codeLabel")}
          </label>
          <input
            id={codeId}
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            className="field-input w-40"
          />
        </div>
        <button type="submit" className="btn-primary">
          {t("calls.prove")}
        </button>
      </Form>
      {choice.clinicNumber && (
        <p className="text-sm text-slate-700">{t("calls.missedCallHint", { clinic: choice.clinicNumber })}</p>
      )}
    </div>
  );
}
