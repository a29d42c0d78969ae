import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { LocalDate, useDateText } from "~/components/reports/LocalDate";
import {
  REQUEST_STATUS_KEYS,
  REQUEST_STATUS_TONES,
  REQUEST_TYPE_KEYS,
  StatusPill,
} from "~/components/rights/StatusPill";
import { TextAreaField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { CORRECTION_MAX } from "~/schemas/limits";
import type { loader } from "./route";
import { MY_DATA, Section, useBusy } from "./Section";

/** The correction form (action: correction.server.ts) and the person's own requests with their answers. */

function CorrectionForm({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const busy = useBusy("correction");
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(lastResult, ["details"], { id: "correction-form" });
  return (
    <Form method="post" action={MY_DATA} {...form.props} noValidate aria-labelledby="correction-title">
      <h3 id="correction-title" className="text-lg font-bold text-slate-900">
        {t("rights.correctionTitle")}
      </h3>
      <p className="mt-1 mb-3 max-w-prose text-slate-700">{t("rights.correctionIntro")}</p>
      <input type="hidden" name="intent" value="correction" />
      <FormError id={form.errorId} errors={form.errors} />
      <TextAreaField
        meta={fields.details}
        label={t("rights.correctionLabel")}
        required
        maxLength={CORRECTION_MAX}
      />
      <p className="mt-1 text-sm text-slate-600">{t("rights.correctionHint", { max: CORRECTION_MAX })}</p>
      <div className="mt-3 flex justify-end">
        <button type="submit" className="btn-primary" disabled={busy}>
          {busy ? t("rights.sending") : t("rights.correctionSubmit")}
        </button>
      </div>
    </Form>
  );
}

export function RequestsSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { requests } = useLoaderData<typeof loader>();
  const location = useLocation();
  const { dateTime } = useDateText();
  return (
    <Section id="requests" title={t("rights.requestsTitle")}>
      <CorrectionForm key={location.key} lastResult={lastResult} />
      <h3 className="mt-6 text-lg font-bold text-slate-900">{t("rights.yourRequests")}</h3>
      {requests.length === 0 ? (
        <p className="mt-2 text-slate-700">{t("rights.noRequests")}</p>
      ) : (
        <ul className="mt-2 space-y-3">
          {requests.map((r) => (
            <li key={r._id} className="rounded-lg border border-slate-200 p-3" data-request={r._id}>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <p className="font-semibold">{t(REQUEST_TYPE_KEYS[r.type])}</p>
                <StatusPill tone={REQUEST_STATUS_TONES[r.status]}>
                  {t(REQUEST_STATUS_KEYS[r.status])}
                </StatusPill>
              </div>
              <p className="text-sm text-slate-600">
                {t("rights.askedOn", { date: dateTime(r.createdAt) })}
                {r.type === "erasure" && r.status === "open" && r.dueAt
                  ? ` · ${t("rights.dueOn", { date: dateTime(r.dueAt) })}`
                  : ""}
              </p>
              {r.details && (
                <p className="mt-2 break-words whitespace-pre-line text-slate-800">{r.details}</p>
              )}
              {r.response && (
                <div className="mt-2 rounded-lg bg-brand-50 p-3">
                  <p className="text-sm font-semibold text-brand-800">
                    {t("rights.answerLabel")}
                    {r.resolvedAt && (
                      <>
                        {" · "}
                        <LocalDate iso={r.resolvedAt} withTime />
                      </>
                    )}
                  </p>
                  <p className="mt-1 break-words whitespace-pre-line text-slate-900">{r.response}</p>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
