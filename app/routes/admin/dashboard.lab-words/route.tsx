import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { LAB_WORD_GROUPS } from "~/domain/consultation/lab-words";
import { LANGUAGE_NAME_KEYS } from "~/i18n/config";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { CorrectForm, ReviewForm } from "./WordForms";
import { GROUP_LABEL, WordTables } from "./WordTables";
import { SHOWS } from "./filters";
import { wordsAction, wordsScreen, type WordsReply } from "./words.server";

/**
 * Admin: the lab words a patient reads (decision 0108) — every test name and sentence of her lab
 * values in Hindi, Bengali and Tamil beside the English; who reviewed each and on which day (a word
 * says "not yet reviewed" unless a row says who and when); a review of the ticked words recorded at
 * once; one word corrected (shown wherever the word is from then on) or its correction removed.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const { t, locale } = await tFor(request);
  return { title: t("labWords.title"), ...(await wordsScreen(actor, new URL(request.url), locale)) };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  return wordsAction(actor, await readForm(request), new URL(request.url), t);
}

export type WordsScreen = ReturnType<typeof useLoaderData<typeof loader>>;

const SHOW_LABEL = {
  all: "labWords.showAll",
  "not-reviewed": "labWords.showNotReviewed",
  reviewed: "labWords.showReviewed",
  corrected: "labWords.showCorrected",
} as const;

export default function LabWords() {
  const { t } = useTranslation();
  const screen = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>() as WordsReply | undefined;
  const busy = useNavigation().state !== "idle";
  const { language, show, kind, tabs, words, editing } = screen;
  const query = (extra: Record<string, string>) =>
    `?${new URLSearchParams({ language, show, kind, ...extra })}`;
  const ticked = new Set(
    reply?.intent === "review" ? ([] as unknown[]).concat(reply.reply.initialValue?.words ?? []) : [],
  );
  return (
    <div className="space-y-6">
      <PageHeader title={t("labWords.title")} intro={t("labWords.intro")} />
      <p className="max-w-prose text-slate-700">{t("labWords.howTo")}</p>
      <nav
        aria-label={t("labWords.languages")}
        className="flex flex-wrap gap-2"
        data-testid="lab-word-languages"
      >
        {tabs.map((tab) => (
          <Link
            key={tab.code}
            to={`?${new URLSearchParams({ language: tab.code, show, kind })}`}
            aria-current={tab.code === language ? "page" : undefined}
            className={`inline-flex min-h-11 items-center rounded-lg border px-3 py-2 text-sm font-semibold ${
              tab.code === language
                ? "border-brand-700 bg-brand-50 text-brand-800"
                : "border-slate-300 bg-white text-slate-800 hover:bg-slate-50"
            }`}
          >
            {t("labWords.languageTab", {
              language: t(LANGUAGE_NAME_KEYS[tab.code]),
              reviewed: tab.reviewed,
              total: tab.total,
            })}
          </Link>
        ))}
      </nav>
      {editing && (
        <CorrectForm
          key={editing.word}
          editing={editing}
          language={language}
          today={screen.today}
          reply={reply?.intent === "correct" ? reply.reply : undefined}
          cancel={query({})}
          busy={busy}
        />
      )}
      <ReviewForm
        language={language}
        today={screen.today}
        reply={reply?.intent === "review" ? reply.reply : undefined}
        busy={busy}
      />
      <Form method="get" className="card flex flex-wrap items-end gap-3" data-testid="lab-word-filter">
        <input type="hidden" name="language" value={language} />
        <label className="min-w-0 flex-1 basis-48">
          <span className="field-label">{t("labWords.show")}</span>
          <select name="show" defaultValue={show} className="field-input">
            {SHOWS.map((s) => (
              <option key={s} value={s}>
                {t(SHOW_LABEL[s])}
              </option>
            ))}
          </select>
        </label>
        <label className="min-w-0 flex-1 basis-48">
          <span className="field-label">{t("labWords.kind")}</span>
          <select name="kind" defaultValue={kind} className="field-input">
            <option value="all">{t("labWords.kindAll")}</option>
            {LAB_WORD_GROUPS.map((g) => (
              <option key={g} value={g}>
                {t(GROUP_LABEL[g])}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn-secondary">
          {t("labWords.apply")}
        </button>
      </Form>
      <p className="text-sm text-slate-700" role="status">
        {t("labWords.shownCount", { number: words.length })}
      </p>
      <WordTables words={words} language={language} ticked={ticked} correctHref={(w) => query({ word: w })} />
      {words.length > 0 && (
        <button type="submit" form="lab-review" className="btn-primary" disabled={busy}>
          {t("labWords.recordReview")}
        </button>
      )}
    </div>
  );
}
