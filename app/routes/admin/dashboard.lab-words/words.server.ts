import { data } from "@remix-run/node";
import type { SubmissionResult } from "@conform-to/react";
import type { TFunction } from "i18next";
import { config } from "~/config.server";
import {
  clinicToday,
  correctLabWord,
  labWordList,
  reviewLabWords,
  revertLabWord,
  type LabWordEntry,
} from "~/domain/consultation/index.server";
import {
  isLabWordLocale,
  LAB_WORD_GROUPS,
  LAB_WORD_LOCALES,
  type LabWordGroup,
  type LabWordLocale,
} from "~/domain/consultation/lab-words";
import type { Actor } from "~/domain/platform/index.server";
import { isDomainError } from "~/domain/platform/errors";
import { formatDay } from "~/lib/format";
import { labWordCorrectionSchema, labWordReviewSchema } from "~/schemas/lab-words";
import { parseFormData } from "~/schemas/strict";
import { formFailure } from "~/web/screen.server";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";
import { SHOWS, type Show } from "./filters";

/**
 * The admin's lab words (decision 0108): one language's words beside the English, filtered by kind
 * and review, with every language's count of reviewed words; the word being corrected, if any.
 */

const pick = <T extends string>(list: readonly T[], v: string | null, fallback: T): T =>
  (list as readonly string[]).includes(v ?? "") ? (v as T) : fallback;

export type WordView = {
  word: string;
  group: LabWordGroup;
  english: string;
  shown: string;
  tick: string;
  /** Corrected on that day, replacing that text. */
  corrected: { on: string; first: string } | null;
  /** No word in the language: the patient reads the English. */
  noOwn: boolean;
  review: { by: string; on: string; recordedBy: string | null; recordedOn: string | null } | null;
  earlier: { by: string; on: string } | null;
};

const keeps: Record<Show, (e: LabWordEntry) => boolean> = {
  all: () => true,
  "not-reviewed": (e) => !e.review,
  reviewed: (e) => !!e.review,
  corrected: (e) => !!e.correction,
};

export async function wordsScreen(actor: Actor, url: URL, locale: string) {
  const q = url.searchParams;
  const language: LabWordLocale = pick(
    LAB_WORD_LOCALES,
    q.get("language"),
    isLabWordLocale(locale) ? locale : "hi",
  );
  const show = pick(SHOWS, q.get("show"), "all");
  // One kind at a time unless asked for all: a reviewer works through the sentences, then the names
  // (the whole list of a language is about 340 KB of HTML).
  const kind = pick<LabWordGroup | "all">([...LAB_WORD_GROUPS, "all"], q.get("kind"), "judgement");
  const lists = await Promise.all(LAB_WORD_LOCALES.map((l) => labWordList(actor, l)));
  const entries = lists[LAB_WORD_LOCALES.indexOf(language)];
  // A review's day is a calendar day (no zone); a correction's an instant, said in the clinic's.
  const day = (d: string) => formatDay(`${d}T12:00:00Z`, locale, "UTC");
  const at = (d: Date) => formatDay(d, locale, config().clinic.timeZone);
  const words: WordView[] = entries
    .filter((e) => keeps[show](e) && (kind === "all" || e.group === kind))
    .map((e) => ({
      word: e.word,
      group: e.group,
      english: e.english,
      shown: e.shown,
      tick: e.tick,
      corrected: e.correction ? { on: at(e.correction.at), first: e.builtIn ?? e.english } : null,
      noOwn: !e.correction && !e.builtIn,
      review: e.review && {
        by: e.review.by,
        on: day(e.review.on),
        recordedBy: e.review.recordedBy,
        recordedOn: e.review.recordedAt ? at(e.review.recordedAt) : null,
      },
      earlier: e.earlierReview && { by: e.earlierReview.by, on: day(e.earlierReview.on) },
    }));
  const editing = entries.find((e) => e.word === q.get("word")) ?? null;
  return {
    language,
    show,
    kind,
    tabs: LAB_WORD_LOCALES.map((code, i) => ({
      code,
      reviewed: lists[i].filter((e) => e.review).length,
      total: lists[i].length,
    })),
    words,
    editing: editing && {
      word: editing.word,
      group: editing.group,
      english: editing.english,
      shown: editing.shown,
      corrected: !!editing.correction,
      places: editing.places,
    },
    today: clinicToday(),
  };
}

export type Intent = "review" | "correct";
export type WordsReply = { intent: Intent; reply: SubmissionResult<string[]> };

/** Where the screen goes after a post: the same language and filters, no word open. */
function backTo(url: URL) {
  const keep = new URLSearchParams();
  for (const k of ["language", "show", "kind"]) {
    const v = url.searchParams.get(k);
    if (v) keep.set(k, v);
  }
  return `/dashboard/lab-words${keep.size ? `?${keep}` : ""}`;
}

/** The three posts: a review of the ticked words, a correction, a correction taken back. */
export async function wordsAction(actor: Actor, form: FormData, url: URL, t: TFunction) {
  const intent = form.get("intent");
  const back = backTo(url);
  if (intent === "revert") {
    try {
      await revertLabWord(actor, { locale: form.get("locale"), word: form.get("word") });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return redirectWithError(back, t(err.message));
    }
    return redirectWithSuccess(back, t("labWords.reverted"));
  }
  const correcting = intent === "correct";
  const schema = correcting ? labWordCorrectionSchema : labWordReviewSchema;
  const wrap = (reply: SubmissionResult<string[]>): WordsReply => ({
    intent: correcting ? "correct" : "review",
    reply,
  });
  const submission = parseFormData(form, { schema });
  if (submission.status !== "success") return data(wrap(submission.reply()), { status: 400 });
  try {
    if (correcting) {
      await correctLabWord(actor, submission.value);
      return redirectWithSuccess(back, t("labWords.corrected"));
    }
    const count = await reviewLabWords(actor, submission.value);
    return redirectWithSuccess(back, t("labWords.reviewRecorded", { number: count }));
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply(o), { wrap });
  }
}
