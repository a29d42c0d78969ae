import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import { LAB_WORD_GROUPS, type LabWordGroup, type LabWordLocale } from "~/domain/consultation/lab-words";
import { LANGUAGE_NAME_KEYS } from "~/i18n/config";
import type { WordView } from "./words.server";

const PLACE = /(\{\{\s*[A-Za-z_]\w*\s*\}\})/;

/** Each kind of word, by where the patient meets it. */
export const GROUP_LABEL: Record<LabWordGroup, string> = {
  judgement: "labWords.groups.judgement",
  chart: "labWords.groups.chart",
  flag: "labWords.groups.flag",
  name: "labWords.groups.name",
};

/** What the app fills each place with, in the screen's words. */
export const PLACE_LABEL: Record<string, string> = {
  name: "labWords.place.name",
  value: "labWords.place.value",
  unit: "labWords.place.unit",
  range: "labWords.place.range",
  names: "labWords.place.names",
};

/** A text in plain words, each place named (for a control's accessible name: no `{{…}}` is ever read out). */
function plain(text: string, t: (key: string) => string) {
  return text
    .split(PLACE)
    .map((part) => {
      const place = /^\{\{\s*(\w+)\s*\}\}$/.exec(part)?.[1];
      return place ? (PLACE_LABEL[place] ? t(PLACE_LABEL[place]) : "") : part;
    })
    .join("");
}

/** A text as the patient reads it, each place the app fills shown as a grey box named in the screen's words. */
export function Said({ text, lang }: { text: string; lang: string }) {
  const { t } = useTranslation();
  return (
    <span lang={lang} className="break-words">
      {text.split(PLACE).map((part, i) => {
        const place = /^\{\{\s*(\w+)\s*\}\}$/.exec(part)?.[1];
        return place ? (
          <span key={i} className="mx-0.5 inline-block rounded bg-slate-200 px-1 text-sm text-slate-700">
            {PLACE_LABEL[place] ? t(PLACE_LABEL[place]) : place}
          </span>
        ) : (
          part
        );
      })}
    </span>
  );
}

/** Who reviewed the word as it reads now — or, in amber, that nobody has (decision 0108). */
function ReviewState({ w }: { w: WordView }) {
  const { t } = useTranslation();
  if (w.review)
    return (
      <span className="block text-sm" data-review="reviewed">
        <span className="font-semibold text-green-800">
          {t("labWords.reviewedBy", { by: w.review.by, on: w.review.on })}
        </span>
        {w.review.recordedBy && w.review.recordedOn && (
          <span className="block text-slate-600">
            {t("labWords.recordedBy", { name: w.review.recordedBy, on: w.review.recordedOn })}
          </span>
        )}
      </span>
    );
  return (
    <span className="block text-sm" data-review="not-reviewed">
      <span className="font-semibold text-amber-900">{t("labWords.notReviewed")}</span>
      {w.earlier && (
        <span className="block text-slate-600">
          {t("labWords.earlierReview", { by: w.earlier.by, on: w.earlier.on })}
        </span>
      )}
    </span>
  );
}

export function WordTables({
  words,
  language,
  ticked,
  correctHref,
}: {
  words: WordView[];
  language: LabWordLocale;
  ticked: Set<unknown>;
  correctHref: (word: string) => string;
}) {
  const { t } = useTranslation();
  if (!words.length) return <p className="card text-slate-700">{t("labWords.none")}</p>;
  const hasPlaces = words.some((w) => PLACE.test(w.english));
  const columns: Column<WordView>[] = [
    {
      key: "tick",
      header: t("labWords.colTick"),
      className: "w-20",
      cell: (w) => (
        <label className="-m-2 inline-flex min-h-11 min-w-11 cursor-pointer items-center justify-center">
          <input
            // Drawn anew once its review is recorded: a recorded word is not left ticked.
            key={`${w.tick}|${w.review ? `${w.review.by}|${w.review.on}` : ""}`}
            type="checkbox"
            name="words"
            value={w.tick}
            form="lab-review"
            defaultChecked={ticked.has(w.tick)}
            aria-label={t("labWords.tickLabel", { word: plain(w.english, t) })}
            className="h-5 w-5 accent-brand-700"
          />
        </label>
      ),
    },
    {
      key: "english",
      header: t("labWords.english"),
      cell: (w) => <Said text={w.english} lang="en" />,
    },
    {
      key: "text",
      header: t(LANGUAGE_NAME_KEYS[language]),
      cell: (w) => (
        <span className="block">
          <span className="text-lg text-slate-900">
            <Said text={w.shown} lang={w.noOwn ? "en" : language} />
          </span>
          {w.noOwn && <span className="block text-sm text-amber-900">{t("labWords.noOwnWord")}</span>}
          {w.corrected && (
            <span className="block text-sm text-slate-600">
              {t("labWords.correctedOn", { on: w.corrected.on })}{" "}
              <Said text={w.corrected.first} lang={language} />
            </span>
          )}
        </span>
      ),
    },
    { key: "review", header: t("labWords.colReview"), cell: (w) => <ReviewState w={w} /> },
    {
      key: "action",
      header: t("labWords.colAction"),
      cell: (w) => (
        <Link to={`${correctHref(w.word)}#correct`} className="link inline-flex min-h-11 items-center">
          {t("labWords.correct")}
          <span className="sr-only">: {plain(w.english, t)}</span>
        </Link>
      ),
    },
  ];
  return (
    <div className="space-y-6" data-testid="lab-word-list">
      {hasPlaces && <p className="text-sm text-slate-700">{t("labWords.placeHint")}</p>}
      {LAB_WORD_GROUPS.map((group) => {
        const rows = words.filter((w) => w.group === group);
        if (!rows.length) return null;
        return (
          <section key={group} aria-labelledby={`lab-words-${group}`} className="space-y-2">
            <h2 id={`lab-words-${group}`} className="text-lg font-bold text-slate-900">
              {t(GROUP_LABEL[group])}
            </h2>
            <ResponsiveTable
              caption={t(GROUP_LABEL[group])}
              columns={columns}
              rows={rows}
              rowKey={(w) => w.word}
              testId={`lab-words-${group}`}
            />
          </section>
        );
      })}
    </div>
  );
}
