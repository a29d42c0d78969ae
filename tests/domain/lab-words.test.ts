import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDomain, makeAdmin, makeExpert, refusal, type Domain } from "../helpers/factories";

/*
 * The lab words a patient reads (decision 0108) on both databases: a review holds only for the text
 * it was of, a correction replaces the catalogue's text wherever the words are asked for and is a
 * review of itself, taking it back brings the first text, and every rule refuses with its field's
 * reason — an admin's alone.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const entry = async (admin: Awaited<ReturnType<typeof makeAdmin>>, word: string, locale = "hi") =>
  (await d.consultation.labWordList(admin, locale)).find((e) => e.word === word)!;

describe("lab words", () => {
  it("a review holds for the text it was of; a correction is shown and reviewed; taken back, the first text", async () => {
    const admin = await makeAdmin();
    const today = d.consultation.clinicToday();
    const below = await entry(admin, "labs.below");
    expect(below.review).toBeNull();
    expect(below.builtIn).toContain("से कम");
    expect(
      await d.consultation.reviewLabWords(admin, {
        locale: "hi",
        words: [below.tick, (await entry(admin, "name.718-7")).tick],
        reviewedBy: "Dr Meena Iyer, MD",
        reviewedOn: today,
      }),
    ).toBe(2);
    expect((await entry(admin, "labs.below")).review).toMatchObject({ by: "Dr Meena Iyer, MD", on: today });
    expect((await entry(admin, "labs.below", "bn")).review).toBeNull();
    // Corrected: what every screen is given, reviewed by whoever gave it; the review before no longer holds.
    await d.consultation.correctLabWord(admin, {
      locale: "hi",
      word: "name.718-7",
      text: "हीमोग्लोबिन  (खून)",
      reviewedBy: "Dr R. Sen, MD",
      reviewedOn: today,
    });
    const hb = await entry(admin, "name.718-7");
    expect(hb.shown).toBe("हीमोग्लोबिन (खून)");
    expect(hb.review).toMatchObject({ by: "Dr R. Sen, MD" });
    const words = await d.consultation.labWordsFor("hi");
    expect(words).toEqual({ sentences: {}, names: { "718-7": "हीमोग्लोबिन (खून)" } });
    expect(d.consultation.testName(words, "718-7", "Haemoglobin", "hi")).toBe("हीमोग्लोबिन (खून)");
    expect(d.consultation.testName(words, "6690-2", "White blood cell count", "hi")).toBe(
      "सफ़ेद रक्त कोशिकाएँ",
    );
    expect(d.consultation.testName(words, "787-2", "MCV", "hi")).toBe("MCV");
    expect(await d.consultation.labWordsFor("en")).toEqual({ sentences: {}, names: {} });
    // Taken back: the catalogue's text, and the review (of the corrected text) no longer claimed.
    await d.consultation.revertLabWord(admin, { locale: "hi", word: "name.718-7" });
    const back = await entry(admin, "name.718-7");
    expect(back.shown).toBe("हीमोग्लोबिन");
    expect(back.review).toBeNull();
    expect(back.earlierReview).toMatchObject({ by: "Dr R. Sen, MD" });
    expect((await d.consultation.labWordsFor("hi")).names).toEqual({});
    expect(
      (await refusal(() => d.consultation.revertLabWord(admin, { locale: "hi", word: "name.718-7" }))).code,
    ).toBe("not_found");
    const trail = await d.db
      .db()
      .select({ action: d.schema.auditEvents.action, subject: d.schema.auditEvents.subjectId })
      .from(d.schema.auditEvents);
    expect(
      trail
        .filter((e) => e.action.startsWith("lab_word."))
        .map((e) => `${e.action} ${e.subject}`)
        .sort(),
    ).toEqual([
      "lab_word.correct hi:name.718-7",
      "lab_word.revert hi:name.718-7",
      "lab_word.review hi:labs.below",
      "lab_word.review hi:name.718-7",
    ]);
  });

  it("a sentence's correction keeps its places and script; bad input is refused with its field's reason", async () => {
    const admin = await makeAdmin();
    const today = d.consultation.clinicToday();
    const fields = async (fn: () => unknown) => (await refusal(fn)).extra?.fieldErrors;
    const correct = (word: string, text: string, extra: Record<string, string> = {}) =>
      d.consultation.correctLabWord(admin, {
        locale: "ta",
        word,
        text,
        reviewedBy: "Dr S. Lakshmi",
        reviewedOn: today,
        ...extra,
      });
    expect(await fields(() => correct("labs.below", "{{name}} {{value}} குறைவு"))).toEqual({
      text: ["labWords.placesChanged"],
    });
    expect(await fields(() => correct("labs.below", "{{name}} {{value}} {{unit}} {{range}} low"))).toEqual({
      text: ["labWords.script.ta"],
    });
    expect(await fields(() => correct("labs.below", "{{name}} <b>{{value}}</b>"))).toEqual({
      text: ["labWords.noMarkup"],
    });
    expect(await fields(() => correct("name.718-7", "ஹீமோகுளோபின்", { reviewedOn: "2999-01-01" }))).toEqual({
      reviewedOn: ["labWords.dateFuture"],
    });
    expect(await fields(() => correct("name.718-7", "ஹீமோகுளோபின்", { reviewedOn: "2026-02-30" }))).toEqual({
      reviewedOn: ["labWords.dateRequired"],
    });
    expect(await fields(() => correct("name.718-7", "ஹீமோகுளோபின்"))).toEqual({
      text: ["labWords.sameText"],
    });
    expect((await refusal(() => correct("labs.nope", "சொல்"))).code).toBe("not_found");
    const text = "{{name}} {{value}} {{unit}} — உங்கள் அறிக்கையில் உள்ள வரம்பு {{range}} ஐ விடக் குறைவு";
    await correct("labs.below", text);
    expect((await d.consultation.labWordsFor("ta")).sentences).toEqual({ "labs.below": text });
    // A review of a word whose text changed since the page was drawn records nothing.
    const stale = `labs.within@${"0".repeat(12)}`;
    expect(
      await fields(() =>
        d.consultation.reviewLabWords(admin, {
          locale: "ta",
          words: [stale],
          reviewedBy: "Dr S. Lakshmi",
          reviewedOn: today,
        }),
      ),
    ).toEqual({ words: ["labWords.changedMeanwhile"] });
    expect((await entry(admin, "labs.within", "ta")).review).toBeNull();
  });

  it("is an admin's alone", async () => {
    const expert = await makeExpert();
    for (const fn of [
      () => d.consultation.labWordList(expert, "hi"),
      () =>
        d.consultation.reviewLabWords(expert, { locale: "hi", words: [], reviewedBy: "x", reviewedOn: "x" }),
      () => d.consultation.correctLabWord(expert, { locale: "hi", word: "name.718-7", text: "x" }),
      () => d.consultation.revertLabWord(expert, { locale: "hi", word: "name.718-7" }),
    ])
      expect((await refusal(fn)).code).toBe("forbidden");
  });
});
