import { eq } from "drizzle-orm";
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

  it("a built-in sentence is checked only once an admin records who checked it, and only for the texts they saw (decision 0094)", async () => {
    const { db } = d.db;
    const { builtInPhrases, patients } = d.schema;
    const admin = await makeAdmin();
    const expert = await makeExpert();
    const reviewerOf = async (id: string) =>
      (await d.consultation.phraseBook({ all: true })).find((p) => p._id === id)?.reviewedBy;
    // Nothing claims a review that did not happen.
    expect(await reviewerOf("sugar-high")).toBeNull();
    expect(
      (await refusal(() => d.consultation.reviewBuiltInPhrase(expert, "sugar-high", { reviewedBy: "Dr X" })))
        .code,
    ).toBe("forbidden");
    expect(
      (await refusal(() => d.consultation.reviewBuiltInPhrase(admin, "nope", { reviewedBy: "Dr X" }))).code,
    ).toBe("not_found");
    expect(
      (await refusal(() => d.consultation.reviewBuiltInPhrase(admin, "sugar-high", { reviewedBy: " " })))
        .extra.fieldErrors,
    ).toEqual({ reviewedBy: ["phrases.reviewerRequired"] });
    const reviewed = await d.consultation.reviewBuiltInPhrase(admin, "sugar-high", {
      reviewedBy: "Dr Meena Iyer, MD (hi, ta)",
    });
    expect(reviewed.reviewedBy).toBe("Dr Meena Iyer, MD (hi, ta)");
    expect(await reviewerOf("sugar-high")).toBe("Dr Meena Iyer, MD (hi, ta)");
    expect(await reviewerOf("bp-high")).toBeNull();
    // The sentence's texts changed since (as a new release would change them): not checked any more.
    await db().update(builtInPhrases).set({ textsHash: "something else" });
    expect(await reviewerOf("sugar-high")).toBeNull();

    // The picker: the expert's language, the patient's beside it.
    const patient = await makePatient();
    await db().update(patients).set({ locale: "ta" }).where(eq(patients.id, patient.id));
    const picker = await d.consultation.phrasePicker(patient.id, "hi");
    expect(picker).toMatchObject({ expertLang: "hi", patientLang: "ta" });
    expect(picker.choices.find((c) => c.id === "sugar-high")).toMatchObject({
      text: "आपके खून में शुगर ज़्यादा है।",
      patientText: "உங்கள் இரத்தத்தில் சர்க்கரை அதிகமாக உள்ளது.",
      reviewedBy: null,
    });
    expect((await d.consultation.phrasePicker(patient.id, "ta")).choices[0].patientText).toBeNull();
  });

  it("an admin retires a built-in sentence: not offered, not choosable, still read in past opinions", async () => {
    const admin = await makeAdmin();
    const expert = await makeExpert();
    const patient = await makePatient();
    const report = await makeReport(patient);
    await claim(expert, report);
    await d.consultation.addReview(expert, report._id, { review: "BP", phrases: ["bp-high"] });
    await d.consultation.retirePhrase(admin, "bp-high");
    expect((await refusal(() => d.consultation.retirePhrase(admin, "bp-high"))).code).toBe("not_found");
    expect((await d.consultation.phraseBook()).map((p) => p._id)).not.toContain("bp-high");
    expect((await d.consultation.phraseBook({ all: true })).find((p) => p._id === "bp-high")?.retired).toBe(
      true,
    );
    expect(await d.consultation.phrasesFor(["bp-high"], "hi")).toEqual(["आपका ब्लड प्रेशर ज़्यादा है।"]);
    const next = await makeReport(patient);
    await claim(expert, next);
    expect(
      (await refusal(() => d.consultation.addReview(expert, next._id, { review: "x", phrases: ["bp-high"] })))
        .code,
    ).toBe("invalid");
    expect((await refusal(() => d.consultation.retirePhrase(expert, "sugar-high"))).code).toBe("forbidden");
  });

  it("two admins at once: both reviews are recorded (the later stands), one retirement wins and the other is told", async () => {
    const [a, b] = [await makeAdmin(), await makeAdmin()];
    const reviews = await Promise.all([
      d.consultation.reviewBuiltInPhrase(a, "hb-low", { reviewedBy: "Dr A, MD" }),
      d.consultation.reviewBuiltInPhrase(b, "hb-low", { reviewedBy: "Dr B, MD" }),
    ]);
    expect(reviews.map((r) => r.reviewedBy).sort()).toEqual(["Dr A, MD", "Dr B, MD"]);
    const now = (await d.consultation.phraseBook()).find((p) => p._id === "hb-low")?.reviewedBy;
    expect(["Dr A, MD", "Dr B, MD"]).toContain(now);
    const retired = await Promise.allSettled([
      d.consultation.retirePhrase(a, "hb-low"),
      d.consultation.retirePhrase(b, "hb-low"),
    ]);
    expect(retired.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = retired.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason.code).toBe("not_found");
  });
});
