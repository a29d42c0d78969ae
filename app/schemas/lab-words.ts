import { z } from "zod";
import { strictArray } from "./strict";

/**
 * What an admin records about the lab words a patient reads (decision 0108): who reviewed which
 * words and on which day, a correction of one word, taking a correction back. Plain text only;
 * what a correction must keep of its word (its places, its script) is checked by the domain, which
 * knows the word.
 */
export const LAB_WORD_REVIEWER_MAX = 200;
export const LAB_NAME_MAX = 60;
export const LAB_SENTENCE_MAX = 300;
/** Words one review may record (every word of a language is under 200). */
export const LAB_WORDS_PER_REVIEW = 250;

/** No markup, no control characters (a line break included): plain words as a screen shows them. */
const PLAIN = /^[^<>\p{Cc}]*$/u;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const locale = z.enum(["hi", "bn", "ta"], { errorMap: () => ({ message: "labWords.languageUnknown" }) });
const word = z
  .string({ required_error: "labWords.notFound", invalid_type_error: "labWords.notFound" })
  .max(40, "labWords.notFound");

const reviewedBy = z
  .string({ required_error: "labWords.reviewerRequired", invalid_type_error: "labWords.reviewerRequired" })
  .trim()
  .min(3, "labWords.reviewerRequired")
  .max(LAB_WORD_REVIEWER_MAX, "labWords.reviewerTooLong")
  .regex(PLAIN, "labWords.noMarkup");

/** A real calendar day written YYYY-MM-DD (whether it is past is the domain's, with the clinic's clock). */
const reviewedOn = z
  .string({ required_error: "labWords.dateRequired", invalid_type_error: "labWords.dateRequired" })
  .trim()
  .regex(DAY, "labWords.dateRequired")
  .refine((d) => {
    const t = new Date(`${d}T00:00:00Z`);
    return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 10) === d && d >= "2000-01-01";
  }, "labWords.dateRequired");

export const labWordReviewSchema = z.object({
  locale,
  words: strictArray(word, "labWords.wordsRequired")
    .min(1, "labWords.wordsRequired")
    .max(LAB_WORDS_PER_REVIEW, "labWords.wordsRequired"),
  reviewedBy,
  reviewedOn,
});

export const labWordCorrectionSchema = z.object({
  locale,
  word,
  text: z
    .string({ required_error: "labWords.textRequired", invalid_type_error: "labWords.textRequired" })
    .trim()
    .min(1, "labWords.textRequired")
    .max(LAB_SENTENCE_MAX, "labWords.sentenceTooLong")
    .regex(PLAIN, "labWords.noMarkup"),
  reviewedBy,
  reviewedOn,
});

export const labWordRevertSchema = z.object({ locale, word });
