import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { Radios } from "~/components/ui/Radios";
import { useServerForm } from "~/components/ui/useServerForm";
import { addPhrase, phraseBook, retirePhrase, reviewBuiltInPhrase } from "~/domain/consultation/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { tFor } from "~/i18n/i18n.server";
import { newPhraseSchema } from "~/schemas/phrases";
import { parseFormData } from "~/schemas/strict";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess, redirectWithError } from "~/web/toast.server";

/**
 * Admin: the phrase book (decisions 0081, 0094) — every sentence in the four languages and who
 * checked it ("not yet checked" for a built-in one nobody has); add one, record who checked a
 * built-in one, retire any.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireRole(request, "Admin");
  const { t } = await tFor(request);
  return { title: t("phrases.title"), phrases: await phraseBook({ all: true }) };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const form = await readForm(request);
  if (form.get("intent") === "review") {
    try {
      await reviewBuiltInPhrase(actor, String(form.get("id") ?? ""), { reviewedBy: form.get("reviewedBy") });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      const field = err.extra.fieldErrors?.reviewedBy?.[0];
      return redirectWithError("/dashboard/phrases", t(field ?? err.message));
    }
    return redirectWithSuccess("/dashboard/phrases", t("phrases.reviewRecorded"));
  }
  if (form.get("intent") === "retire") {
    try {
      await retirePhrase(actor, String(form.get("id") ?? ""));
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return redirectWithError("/dashboard/phrases", t(err.message));
    }
    return redirectWithSuccess("/dashboard/phrases", t("phrases.retiredDone"));
  }
  const submission = parseFormData(form, { schema: newPhraseSchema });
  if (submission.status !== "success") return Response.json(submission.reply(), { status: 400 });
  try {
    await addPhrase(actor, submission.value);
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o));
  }
  return redirectWithSuccess("/dashboard/phrases", t("phrases.added"));
}

const LANGS = [
  ["en", "phrases.textEn"],
  ["hi", "phrases.textHi"],
  ["bn", "phrases.textBn"],
  ["ta", "phrases.textTa"],
] as const;
const KIND_LABEL = { finding: "phrases.finding", advice: "phrases.advice" } as const;

export default function PhraseBook() {
  const { t } = useTranslation();
  const { phrases } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  // Checked by the server alone: the admin's screen loads no zod either (decision 0094).
  const [form, fields] = useServerForm(lastResult, ["kind", "en", "hi", "bn", "ta", "reviewedBy"], {
    id: "phrase-add",
  });
  return (
    <div className="space-y-6">
      <PageHeader title={t("phrases.title")} />
      <p className="max-w-prose text-slate-700">{t("phrases.intro")}</p>
      <p
        className="max-w-prose rounded-lg border border-amber-300 bg-amber-50 p-3 text-amber-950"
        role="note"
      >
        {t("phrases.builtInNote")}
      </p>
      <p id="phrase-review-hint" className="max-w-prose text-sm text-slate-600">
        {t("phrases.reviewedByHint")}
      </p>
      <ul className="space-y-3" data-testid="phrase-list">
        {phrases.map((p) => (
          <li key={p._id} className="card space-y-1">
            <p className="flex flex-wrap items-center gap-2 text-sm font-semibold text-green-900">
              {t(KIND_LABEL[p.kind])}
              {p.builtIn && (
                <span className="rounded bg-slate-100 px-2 py-0.5 text-slate-700">
                  {t("phrases.builtIn")}
                </span>
              )}
              {p.retired && (
                <span className="rounded bg-red-50 px-2 py-0.5 text-red-800">{t("phrases.retired")}</span>
              )}
            </p>
            <dl className="grid gap-x-3 gap-y-1 sm:grid-cols-[10rem_1fr]">
              {LANGS.map(([lang, label]) => (
                <div key={lang} className="contents">
                  <dt className="text-sm text-slate-600">{t(label)}</dt>
                  <dd lang={lang} className="break-words text-slate-900">
                    {p.texts[lang]}
                  </dd>
                </div>
              ))}
              <dt className="text-sm text-slate-600">{t("phrases.reviewedBy")}</dt>
              <dd
                className={`text-sm break-words ${p.reviewedBy ? "text-slate-700" : "font-semibold text-amber-900"}`}
                data-phrase-review={p.reviewedBy ? "checked" : "not-checked"}
              >
                {p.reviewedBy ?? t("phrases.notReviewed")}
              </dd>
            </dl>
            <div className="flex flex-wrap items-end gap-2 pt-2">
              {p.builtIn && !p.retired && (
                <Form
                  method="post"
                  className="flex min-w-0 flex-1 basis-72 flex-wrap items-end gap-2"
                  data-testid="phrase-review-form"
                >
                  <input type="hidden" name="intent" value="review" />
                  <input type="hidden" name="id" value={p._id} />
                  <label className="min-w-0 flex-1 basis-56">
                    <span className="field-label">
                      {t(p.reviewedBy ? "phrases.reviewAgain" : "phrases.recordReview")}
                    </span>
                    <input
                      name="reviewedBy"
                      className="field-input"
                      required
                      minLength={3}
                      maxLength={200}
                      aria-describedby="phrase-review-hint"
                    />
                  </label>
                  <button type="submit" className="btn-secondary" disabled={busy}>
                    {t("phrases.saveReview")}
                  </button>
                </Form>
              )}
              {!p.retired && (
                <Form method="post">
                  <input type="hidden" name="intent" value="retire" />
                  <input type="hidden" name="id" value={p._id} />
                  <button type="submit" className="btn-secondary" disabled={busy}>
                    {t("phrases.retire")}
                  </button>
                </Form>
              )}
            </div>
          </li>
        ))}
      </ul>
      <Form method="post" {...form.props} noValidate className="card max-w-2xl space-y-4">
        <h2 className="text-lg font-bold text-green-900">{t("phrases.addTitle")}</h2>
        <input type="hidden" name="intent" value="add" />
        <FormError id={form.errorId} errors={form.errors} />
        <Radios
          meta={fields.kind}
          legend={t("phrases.kind")}
          options={[
            { value: "finding", label: t("phrases.finding") },
            { value: "advice", label: t("phrases.advice") },
          ]}
        />
        {LANGS.map(([lang, label]) => (
          <TextField key={lang} meta={fields[lang]} label={t(label)} required maxLength={200} lang={lang} />
        ))}
        <TextField
          meta={fields.reviewedBy}
          label={t("phrases.reviewedBy")}
          hint={t("phrases.reviewedByHint")}
          required
          maxLength={200}
        />
        <button type="submit" className="btn-primary" disabled={busy}>
          {t("phrases.add")}
        </button>
      </Form>
    </div>
  );
}
