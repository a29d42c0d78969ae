import type { SubmissionResult } from "@conform-to/react";
import { Form, useActionData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { TextAreaField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { useServerForm } from "~/components/ui/useServerForm";
import { REVIEW_MAX } from "~/schemas/limits";
import { AgreementFields } from "./AgreementFields";
import { NextStepsFields, type StepAnalyte } from "./NextStepsFields";
import { PhrasePicker, type PhraseBookChoices } from "./PhrasePicker";
import type { action } from "./route";

/** The structured review (reviewAction): summary, findings, recommendations, "see a doctor soon"; a second opinion adds its agreement. */
export function ReviewForm({
  busyIntent,
  second = false,
  phrases = null,
  analytes = [],
}: {
  busyIntent: string | null;
  second?: boolean;
  phrases?: PhraseBookChoices | null;
  /** The lab catalogue for the next steps' tests (decision 0114). */
  analytes?: StepAnalyte[];
}) {
  const { t } = useTranslation();
  const answer = useActionData<typeof action>();
  // The form's answer: a refusal, or a next step added or removed (Conform's list intents, no status).
  const lastResult =
    answer && ("status" in answer || "intent" in answer) ? (answer as SubmissionResult<string[]>) : undefined;
  // Checked by the server alone: the review screen loads no zod (decision 0094).
  const [form, fields] = useServerForm(
    lastResult,
    [
      "review",
      "findings",
      "recommendations",
      "seeDoctorSoon",
      "phrases",
      "agreement",
      "agreementReason",
      "nextSteps",
    ],
    { id: "review" },
  );
  // The action's answer when another expert was first a moment ago.
  const conflict = !!(answer && "conflict" in answer && answer.conflict);
  return (
    <Form method="post" {...form.props} noValidate className="card space-y-4">
      <input type="hidden" name="intent" value="review" />
      {/* Enter in a field sends the opinion, never a step's add or remove button (the first submit button is the default). */}
      <button type="submit" className="sr-only" tabIndex={-1} aria-hidden="true" disabled={!!busyIntent} />
      <FormError id={form.errorId} errors={form.errors} />
      {conflict && <p className="sr-only">{t("reports.alreadyReviewed")}</p>}
      <div>
        <TextAreaField
          meta={fields.review}
          label={t("opinion.summary")}
          required
          maxLength={REVIEW_MAX}
          rows={5}
          aria-describedby={`${fields.review.id}-hint${fields.review.errors?.length ? ` ${fields.review.errorId}` : ""}`}
        />
        <p id={`${fields.review.id}-hint`} className="mt-1 text-sm text-slate-600">
          {t("reports.summaryHint")}
        </p>
      </div>
      <div>
        <TextAreaField
          meta={fields.findings}
          label={`${t("opinion.findings")} ${t("common.optional")}`}
          maxLength={REVIEW_MAX}
          rows={4}
          placeholder={t("reports.findingsHint")}
        />
      </div>
      <div>
        <TextAreaField
          meta={fields.recommendations}
          label={`${t("opinion.recommendations")} ${t("common.optional")}`}
          maxLength={REVIEW_MAX}
          rows={4}
          placeholder={t("reports.recommendationsHint")}
        />
      </div>
      {phrases && phrases.choices.length > 0 && (
        <PhrasePicker name={fields.phrases.name} phrases={phrases} errors={fields.phrases.errors} />
      )}
      {second && <AgreementFields agreement={fields.agreement} reason={fields.agreementReason} />}
      <NextStepsFields
        formId={form.id}
        initial={fields.nextSteps.initialValue}
        errors={lastResult?.error ?? {}}
        analytes={analytes}
        busy={!!busyIntent}
      />
      <label className="flex cursor-pointer items-start gap-3 rounded-lg border border-red-200 bg-red-50 p-3">
        <input
          type="checkbox"
          name={fields.seeDoctorSoon.name}
          id={fields.seeDoctorSoon.id}
          defaultChecked={fields.seeDoctorSoon.initialValue === "on"}
          className="mt-1 h-5 w-5 shrink-0 accent-red-700"
        />
        <span className="font-semibold text-red-950">{t("reports.seeDoctorSoonLabel")}</span>
      </label>
      <button type="submit" className="btn-primary w-full sm:w-auto" disabled={!!busyIntent}>
        {busyIntent === "review" ? t("reports.submitting") : t("reports.submitReview")}
      </button>
    </Form>
  );
}
