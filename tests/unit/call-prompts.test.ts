import { describe, expect, it } from "vitest";
import * as ivr from "~/domain/calls/ivr";
import { getT } from "~/i18n/i18n.server";

/*
 * What a call says before the keypad check (decision 0102): whoever picks up a phone the clinic
 * calls hears no name — not the person's, not her centre's — until the year of birth was keyed and
 * matched. The greeting has no place for a name in any language; the centre is named only in the
 * prompts played after the right digits.
 */

const LOCALES = ["en", "hi", "bn", "ta"] as const;
const CENTRE = "Sunrise Oncology Centre Rampur";
const plan = { secret: "1958", general: false, ready: 1 };

describe("the greeting names no one before the year of birth is checked", () => {
  for (const locale of LOCALES)
    it(`${locale}: the first prompt, and every prompt before the right digits, says no name`, async () => {
      const t = await getT(locale);
      // The greeting's own text: no place for a name at all.
      expect(t("phonecall.greeting", { name: CENTRE })).not.toContain(CENTRE);
      const sentences = (ivr as Record<string, unknown>).promptSentences as
        | typeof import("~/domain/calls/ivr").promptSentences
        | undefined;
      expect(sentences, "the prompts' sentences, read without sound").toBeTypeOf("function");
      const say = (prompt: ivr.Prompt) => {
        const { before, after } = sentences!(prompt, { ...plan, name: CENTRE }, (k, v) => t(k, v));
        return [...before, ...after].join(" ");
      };
      // The call starts with "intro" and goes on with "again" or "not-verified" while the digits are wrong.
      const first = ivr.startIvr(plan).play;
      expect(first).toBe("intro");
      let state = ivr.startIvr(plan).state;
      const heardBefore: string[] = [say(first)];
      for (const key of "1111") {
        const next = ivr.pressKey(plan, state, key);
        state = next.state;
        if (next.play) heardBefore.push(say(next.play));
      }
      expect(heardBefore).toHaveLength(2); // the greeting, then "again"
      for (const text of [...heardBefore, say("not-verified"), say("no-secret")]) {
        expect(text).not.toContain(CENTRE);
        expect(text).not.toMatch(/\{\{/);
      }
      expect(say("intro")).toContain(t("phonecall.askYear"));
      // After the right digits the call says who it is from.
      let right = ivr.startIvr(plan).state;
      let played: ivr.Prompt | null = null;
      for (const key of plan.secret) ({ state: right, play: played } = ivr.pressKey(plan, right, key));
      expect(played).toBe("content");
      expect(say("content")).toContain(CENTRE);
      expect(say("none-ready")).toContain(CENTRE);
    });
});
