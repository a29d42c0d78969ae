import type { SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { messageText } from "~/i18n/message";
import { FieldError, TextAreaField, TextField, type FieldMeta } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { useServerForm } from "~/components/ui/useServerForm";
import type { LabWordLocale } from "~/domain/consultation/lab-words";
import type { WordsScreen } from "./route";
import { PLACE_LABEL, Said } from "./WordTables";

type Reply = SubmissionResult<string[]> | undefined;

/** Who reviewed (name and qualification) and on which day: never after the clinic's today. */
function ReviewerFields({
  reviewedBy,
  reviewedOn,
  label,
  today,
}: {
  reviewedBy: FieldMeta;
  reviewedOn: FieldMeta;
  label: string;
  today: string;
}) {
  const { t } = useTranslation();
  return (
    <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_14rem]">
      <TextField
        meta={reviewedBy}
        label={label}
        hint={t("labWords.reviewerHint")}
        required
        maxLength={200}
        autoComplete="off"
      />
      <TextField meta={reviewedOn} type="date" label={t("labWords.reviewedOn")} required max={today} />
    </div>
  );
}

/**
 * "Record a review": who reviewed the words ticked in the lists (their checkboxes belong to this
 * form) and on which day. Checked by the server alone (decision 0094).
 */
export function ReviewForm({
  language,
  today,
  reply,
  busy,
}: {
  language: LabWordLocale;
  today: string;
  reply: Reply;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const [form, fields] = useServerForm(reply, ["reviewedBy", "reviewedOn", "words"], {
    id: "lab-review",
    defaultValue: { reviewedOn: today },
  });
  return (
    <Form
      method="post"
      {...form.props}
      noValidate
      className="card space-y-3"
      aria-labelledby="lab-review-title"
      data-testid="lab-review-form"
    >
      <h2 id="lab-review-title" className="text-lg font-bold text-slate-900">
        {t("labWords.reviewTitle")}
      </h2>
      <p className="max-w-prose text-sm text-slate-700">{t("labWords.reviewHint")}</p>
      <input type="hidden" name="intent" value="review" />
      <input type="hidden" name="locale" value={language} />
      <FormError id={form.errorId} errors={form.errors?.map((e) => messageText(t, e))} />
      <FieldError meta={fields.words} />
      <ReviewerFields
        reviewedBy={fields.reviewedBy}
        reviewedOn={fields.reviewedOn}
        label={t("labWords.reviewer")}
        today={today}
      />
      <button type="submit" className="btn-primary" disabled={busy}>
        {t("labWords.recordReview")}
      </button>
    </Form>
  );
}

/**
 * One word corrected: the English and what patients read now beside the corrected text, who gave or
 * checked the correction and when; a corrected word's correction can be removed.
 */
export function CorrectForm({
  editing,
  language,
  today,
  reply,
  cancel,
  busy,
}: {
  editing: NonNullable<WordsScreen["editing"]>;
  language: LabWordLocale;
  today: string;
  reply: Reply;
  cancel: string;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const [form, fields] = useServerForm(reply, ["text", "reviewedBy", "reviewedOn"], {
    id: "lab-correct",
    defaultValue: { text: editing.shown, reviewedOn: today },
  });
  const name = editing.group === "name";
  return (
    <section id="correct" className="card scroll-mt-24 space-y-3" aria-labelledby="lab-correct-title">
      <h2 id="lab-correct-title" className="text-lg font-bold text-slate-900">
        {t("labWords.correctTitle")}
      </h2>
      <dl className="grid gap-x-3 gap-y-1 sm:grid-cols-[12rem_minmax(0,1fr)]">
        <dt className="text-sm text-slate-600">{t("labWords.english")}</dt>
        <dd className="text-slate-900">
          <Said text={editing.english} lang="en" />
        </dd>
        <dt className="text-sm text-slate-600">{t("labWords.shownNow")}</dt>
        <dd className="text-slate-900">
          <Said text={editing.shown} lang={language} />
        </dd>
      </dl>
      <Form method="post" {...form.props} noValidate className="space-y-3" data-testid="lab-correct-form">
        <input type="hidden" name="intent" value="correct" />
        <input type="hidden" name="locale" value={language} />
        <input type="hidden" name="word" value={editing.word} />
        <FormError id={form.errorId} errors={form.errors?.map((e) => messageText(t, e))} />
        <TextAreaField
          meta={fields.text}
          label={t("labWords.correction")}
          required
          maxLength={name ? 60 : 300}
          lang={language}
          rows={name ? 2 : 3}
          aria-describedby={`${fields.text.descriptionId}${fields.text.errors?.length ? ` ${fields.text.errorId}` : ""}`}
        />
        <div id={fields.text.descriptionId} className="text-sm text-slate-600">
          <p>{t(name ? "labWords.correctionHintName" : "labWords.correctionHint")}</p>
          {editing.places.length > 0 && (
            <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
              {editing.places.map((p) => (
                <li key={p}>
                  <code className="rounded bg-slate-100 px-1 text-slate-800">{`{{${p}}}`}</code>{" "}
                  {PLACE_LABEL[p] ? t(PLACE_LABEL[p]) : null}
                </li>
              ))}
            </ul>
          )}
        </div>
        <ReviewerFields
          reviewedBy={fields.reviewedBy}
          reviewedOn={fields.reviewedOn}
          label={t("labWords.correctionBy")}
          today={today}
        />
        <div className="flex flex-wrap items-center gap-3">
          <button type="submit" className="btn-primary" disabled={busy}>
            {t("labWords.saveCorrection")}
          </button>
          <Link to={cancel} className="link inline-flex min-h-11 items-center">
            {t("labWords.cancel")}
          </Link>
        </div>
      </Form>
      {editing.corrected && (
        <Form method="post" className="border-t border-slate-200 pt-3">
          <input type="hidden" name="intent" value="revert" />
          <input type="hidden" name="locale" value={language} />
          <input type="hidden" name="word" value={editing.word} />
          <button type="submit" className="btn-secondary" disabled={busy}>
            {t("labWords.revert")}
          </button>
        </Form>
      )}
    </section>
  );
}
