import { z } from "zod";
import { PHRASE_KINDS } from "~/db/types";
import type { Endpoint } from "./endpoint";

/** A phrase of the phrase book (decision 0081). */
export const phraseObject = z.object({
  _id: z.string(),
  kind: z.enum(PHRASE_KINDS),
  texts: z
    .object({ en: z.string(), hi: z.string(), bn: z.string(), ta: z.string() })
    .describe("The sentence in each language, written and reviewed by a person (never machine-translated)"),
  reviewedBy: z
    .string()
    .nullable()
    .describe(
      "Who reviewed the translations; null: nobody yet (a built-in sentence no clinician has been recorded as checking, decision 0094)",
    ),
  builtIn: z.boolean(),
  retired: z.boolean().describe("No longer offered; opinions that chose it still show it"),
});

export const PHRASE_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/phrases",
    who: "anyone signed in",
    summary:
      "The phrase book: the sentences an expert may choose beside an opinion's free text (`phrases` of add-review, by id), each in English, Hindi, Bengali and Tamil. A report's `phrases` are ids of this list",
    auth: true,
    data: z.array(phraseObject),
    errors: [401],
  },
];
