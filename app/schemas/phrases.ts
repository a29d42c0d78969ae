import { z } from "zod";
import { PHRASE_KINDS } from "~/db/types";

/** A new phrase of the phrase book (decision 0081): the sentence in every language and who reviewed it. */
const TEXT_MAX = 200;
const text = (key: string) =>
  z
    .string({ required_error: key, invalid_type_error: key })
    .trim()
    .min(1, key)
    .max(TEXT_MAX, "phrases.textTooLong");

function reviewer() {
  return z
    .string({ required_error: "phrases.reviewerRequired", invalid_type_error: "phrases.reviewerRequired" })
    .trim()
    .min(3, "phrases.reviewerRequired")
    .max(TEXT_MAX, "phrases.textTooLong");
}

export const newPhraseSchema = z.object({
  kind: z.enum(PHRASE_KINDS, { errorMap: () => ({ message: "phrases.kindRequired" }) }),
  en: text("phrases.textRequired"),
  hi: text("phrases.textRequired"),
  bn: text("phrases.textRequired"),
  ta: text("phrases.textRequired"),
  reviewedBy: reviewer(),
});

/** Who reviewed a built-in sentence's translations (decision 0094), as an admin records it. */
export const phraseReviewSchema = z.object({ reviewedBy: reviewer() });
