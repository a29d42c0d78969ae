import { describe, expect, it } from "vitest";
import type { ApiNextStep } from "~/domain/consultation/next-steps.server";
import { spokenSteps, stepWords } from "~/domain/consultation/step-words.server";
import { getT } from "~/i18n/i18n.server";

/*
 * An opinion's next steps in the reader's words (decision 0114): the kind's sentence, the
 * catalogue's test names and the specialty's label in her language, the due date in her locale;
 * the facility's name as written. The phone call says the open steps from the same phrases and
 * never the expert's free-text reason.
 */

const base: ApiNextStep = {
  _id: "s1",
  reportId: "r1",
  position: 0,
  kind: "tests",
  tests: null,
  specialty: null,
  facility: null,
  urgency: null,
  reason: null,
  inDays: 21,
  dueOn: "2026-12-19",
  state: "open",
  stateReason: null,
  stateAt: null,
  attachedReportId: null,
  referral: null,
  remindOff: false,
};
const STEPS: ApiNextStep[] = [
  { ...base, tests: [{ loinc: "4548-4", name: "HbA1c" }] },
  { ...base, _id: "s2", kind: "specialist", specialty: "Cardiology", urgency: "weeks", dueOn: "2026-12-12" },
  {
    ...base,
    _id: "s3",
    kind: "facility",
    facility: "District Hospital Hosur",
    urgency: "today",
    reason: "Chest pain on walking",
    dueOn: "2026-11-28",
  },
  { ...base, _id: "s4", kind: "facility", urgency: "week", reason: "x", state: "done" },
];

describe("next steps in her words", () => {
  it("Hindi: the test's and the specialty's names in Hindi, the date in a Hindi locale, the facility as written", async () => {
    const t = await getT("hi");
    const [tests, specialist, facility] = STEPS.map((s) => stepWords(s, t, "hi"));
    expect(tests.title).toBe("ये जाँचें दोबारा कराएँ: तीन महीने की औसत शुगर");
    expect(tests.due).toMatch(/^19 दिस.* 2026 तक$/);
    expect(tests.stateLabel).toBe("करना है");
    expect(specialist.title).toBe("विशेषज्ञ को दिखाएँ: हृदय रोग (कार्डियोलॉजी)");
    expect(facility.title).toBe("District Hospital Hosur जाएँ");
    expect(facility.due).toBe("आज");
  });

  it("English: the catalogue's names; no facility is the nearest hospital", async () => {
    const t = await getT("en");
    expect(stepWords(STEPS[0], t, "en").title).toBe("Repeat these tests: HbA1c");
    expect(stepWords(STEPS[0], t, "en").due).toBe("By 19 Dec 2026");
    expect(stepWords(STEPS[3], t, "en").title).toBe("Go to the nearest hospital");
  });

  for (const locale of ["en", "hi", "bn", "ta"] as const)
    it(`${locale}: the call says the open steps from phrases, never the reason`, async () => {
      const t = await getT(locale);
      const said = spokenSteps(STEPS, t, locale);
      expect(said).toHaveLength(4); // the intro and the three open steps
      expect(said.join(" ")).not.toContain("Chest pain");
      expect(said.join(" ")).not.toMatch(/\{\{|steps\.[a-z]/);
    });

  it("nothing open, nothing said", async () => {
    expect(spokenSteps([STEPS[3]], await getT("en"), "en")).toEqual([]);
  });
});
