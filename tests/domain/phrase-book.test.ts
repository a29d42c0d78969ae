import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  makeAdmin,
  makeExpert,
  makePatient,
  makeReport,
  refusal,
  type Domain,
} from "../helpers/factories";

/*
 * The phrase book (decision 0081) on both databases: an opinion carries the chosen sentences by id,
 * each read in the reader's language; only known, offered sentences may be chosen; admins add
 * sentences with every language and a reviewer, and retire them without changing past opinions.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

describe("the phrase book", () => {
  it("an opinion carries the chosen sentences, read in each language", async () => {
    const patient = await makePatient();
    const expert = await makeExpert();
    const report = await makeReport(patient);
    await claim(expert, report);
    const bad = await refusal(() =>
      d.consultation.addReview(expert, report._id, {
        review: "Sugar is high",
        phrases: ["sugar-high", "nope"],
      }),
    );
    expect(bad.code).toBe("invalid");
    expect(bad.extra.fieldErrors).toEqual({ phrases: ["phrases.unknown"] });
    const many = Array.from({ length: 13 }, (_, i) => `p${i}`);
    expect(
      (await refusal(() => d.consultation.addReview(expert, report._id, { review: "x", phrases: many })))
        .extra.fieldErrors,
    ).toEqual({
      phrases: ["phrases.tooMany"],
    });
    const reviewed = await d.consultation.addReview(expert, report._id, {
      review: "Sugar is high",
      phrases: ["sugar-high", "take-medicine-daily"],
    });
    expect(reviewed.phrases).toEqual(["sugar-high", "take-medicine-daily"]);
    expect(await d.consultation.phrasesFor(reviewed.phrases, "hi")).toEqual([
      "आपके खून में शुगर ज़्यादा है।",
      "डॉक्टर ने जो दवा दी है, उसे हर दिन लीजिए।",
    ]);
    expect((await d.consultation.phrasesFor(reviewed.phrases, "ta"))[0]).toBe(
      "உங்கள் இரத்தத்தில் சர்க்கரை அதிகமாக உள்ளது.",
    );
    expect((await d.consultation.phrasesFor(reviewed.phrases, "fr"))[0]).toBe("Your blood sugar is high.");
  });

  it("admins add a sentence in every language with its reviewer, and retire it without changing past opinions", async () => {
    const admin = await makeAdmin();
    const expert = await makeExpert();
    const input = {
      kind: "advice",
      en: "Walk for half an hour every day.",
      hi: "हर दिन आधा घंटा पैदल चलिए।",
      bn: "প্রতিদিন আধ ঘণ্টা হাঁটুন।",
      ta: "தினமும் அரை மணி நேரம் நடந்து செல்லுங்கள்.",
      reviewedBy: "Dr A. Rao, MBBS (hi, bn, ta)",
    };
    expect((await refusal(() => d.consultation.addPhrase(expert, input))).code).toBe("forbidden");
    const missing = await refusal(() =>
      d.consultation.addPhrase(admin, { ...input, ta: " ", reviewedBy: "" }),
    );
    expect(missing.extra.fieldErrors).toEqual({
      ta: ["phrases.textRequired"],
      reviewedBy: ["phrases.reviewerRequired"],
    });
    const walk = await d.consultation.addPhrase(admin, input);
    expect((await d.consultation.phraseBook()).map((p) => p._id)).toContain(walk._id);
    const patient = await makePatient();
    const report = await makeReport(patient);
    await claim(expert, report);
    await d.consultation.addReview(expert, report._id, { review: "Keep moving", phrases: [walk._id] });
    await d.consultation.retirePhrase(admin, walk._id);
    expect((await refusal(() => d.consultation.retirePhrase(admin, walk._id))).code).toBe("not_found");
    expect((await d.consultation.phraseBook()).map((p) => p._id)).not.toContain(walk._id);
    expect(await d.consultation.phrasesFor([walk._id], "bn")).toEqual(["প্রতিদিন আধ ঘণ্টা হাঁটুন।"]);
    // A retired sentence cannot be chosen any more.
    const next = await makeReport(patient);
    await claim(expert, next);
    expect(
      (await refusal(() => d.consultation.addReview(expert, next._id, { review: "x", phrases: [walk._id] })))
        .code,
    ).toBe("invalid");
  });
});
