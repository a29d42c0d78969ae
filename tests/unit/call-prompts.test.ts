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

describe("a next step's reminder call (decision 0115)", () => {
  const step: NonNullable<ivr.IvrPlan["step"]> = { kind: "tests", when: "soon", date: "12 December" };
  const remind: ivr.IvrPlan = { secret: "1979", general: false, ready: 0, step };
  const keys = (p: typeof remind, from: ivr.IvrState, pressed: string) => {
    let state = from;
    let play: ivr.Prompt | null = null;
    for (const key of pressed) {
      const next = ivr.pressKey(p, state, key);
      state = next.state;
      play = next.play ?? play;
    }
    return { state, play };
  };

  it("says the step only after the right year, then 1 done, 2 later, 3 cannot go, 9 again", () => {
    const start = ivr.startIvr(remind);
    expect(start.play).toBe("intro");
    // Wrong digits: asked again; nothing of the step yet.
    expect(keys(remind, start.state, "1111").play).toBe("again");
    const heard = keys(remind, start.state, "1979");
    expect(heard.play).toBe("step");
    expect(heard.state.verified).toBe(true);
    expect(keys(remind, heard.state, "9").play).toBe("step");
    for (const [key, answer] of [
      ["1", "done"],
      ["2", "later"],
      ["3", "declined"],
    ] as const) {
      const end = keys(remind, heard.state, key);
      expect(end.play).toBe(`step-${answer}`);
      expect(end.state.stepAnswer).toBe(answer);
      expect(end.state.step).toBe("done");
      expect(ivr.FINAL_PROMPTS).toContain(end.play);
      expect(ivr.outcomeOf(end.state, true, false)).toBe(`step-${answer}`);
      // A key after the answer changes nothing.
      expect(ivr.pressKey(remind, end.state, "1").play).toBeNull();
    }
    // Other keys in the step's menu do nothing; heard and hung up: verified, no answer.
    expect(ivr.pressKey(remind, heard.state, "7").play).toBeNull();
    expect(ivr.outcomeOf(heard.state, true, false)).toBe("verified");
    // Not an opinion call: "content" is never played, and no callback can be asked.
    expect(keys(remind, heard.state, "2").state.callbackAsked).toBe(false);
  });

  for (const locale of LOCALES)
    it(`${locale}: the step is said by its kind and date in her language, its menu with 1, 2, 3 and 9`, async () => {
      const t = await getT(locale);
      const say = (prompt: ivr.Prompt, p: typeof remind = remind) => {
        const { before, after } = ivr.promptSentences(prompt, { ...p, name: CENTRE }, (k, v) => t(k, v));
        return [...before, ...after].join(" ");
      };
      const text = say("step");
      expect(text).toContain(CENTRE); // after the digits, who the call is from
      expect(text).toContain(t("reminders.what.tests"));
      expect(text).toContain("12 December");
      expect(text).not.toMatch(/\{\{/);
      // What to do, in her words, once she keyed her year; never in the greeting.
      const told = say("step", { ...remind, step: { ...step, title: "Repeat these tests: HbA1c" } });
      expect(told).toContain("Repeat these tests: HbA1c.");
      expect(
        say("intro", { ...remind, step: { ...step, title: "Repeat these tests: HbA1c" } }),
      ).not.toContain("HbA1c");
      for (const key of ["1", "2", "3", "9"]) expect(t("phonecall.stepMenu")).toContain(key);
      expect(say("step", { ...remind, step: { ...step, when: "today" } })).not.toContain("12 December");
      expect(say("step", { ...remind, step: { ...step, when: "later" } })).toContain("12 December");
      expect(say("step-done")).toBe(t("reminders.reply.done"));
      expect(say("step-declined")).toBe(t("reminders.reply.declined"));
      // The greeting is the opinion call's: no name, no step.
      expect(say("intro")).not.toContain(CENTRE);
      expect(say("intro")).not.toContain(t("reminders.what.tests"));
    });
});
