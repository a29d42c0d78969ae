import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  makeCentrePatient,
  makeExpert,
  makePatient,
  makeReport,
  refusal,
  type Domain,
} from "../helpers/factories";

/*
 * An opinion's next steps (decision 0114) on both databases: given with the review and signed in
 * its transaction, checked against the lab catalogue, each due on the clinic's calendar; seen and
 * closed only by the patient's side, her centre and the expert who asked.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain({ CLINIC_TIME_ZONE: "Asia/Kolkata" });
});
afterAll(() => d?.close());

const HBA1C = "4548-4";
const GLUCOSE = "1558-6";

const STEPS = [
  { kind: "tests", loincs: [HBA1C, GLUCOSE], in: 3, unit: "weeks" },
  { kind: "specialist", specialty: "Cardiology", urgency: "weeks", weeks: 2 },
  { kind: "facility", facility: "", urgency: "today", reason: "Chest pain on walking" },
];

describe("next steps given with an opinion", () => {
  it("are signed with it, in order, each due on the clinic's calendar; a facility step has a referral code", async () => {
    const patient = await makePatient();
    const expert = await makeExpert();
    const report = await makeReport(patient);
    await claim(expert, report);
    const before = d.consultation.clinicTodayDate();
    await d.consultation.addReview(expert, report._id, { review: "Sugar is high", nextSteps: STEPS });
    const steps = (await d.consultation.stepsFor([report._id])).get(report._id)!;
    expect(steps.map((s) => [s.kind, s.inDays, s.state])).toEqual([
      ["tests", 21, "open"],
      ["specialist", 14, "open"],
      ["facility", 0, "open"],
    ]);
    expect(steps[0].tests!.map((t) => t.loinc)).toEqual([HBA1C, GLUCOSE]);
    expect(steps[0].dueOn).toBe(d.consultation.clinicDateAfter(new Date(`${before}T12:00:00+05:30`), 21));
    expect(steps[2].dueOn).toBe(before);
    expect(steps[2].facility).toBeNull(); // the nearest hospital
    expect(steps[2].referral!.code).toMatch(/^R-[2-9A-Z]{4}-[2-9A-Z]{4}$/);
    expect(d.consultation.normalReferralCode(steps[2].referral!.code.toLowerCase().replace(/-/g, " "))).toBe(
      steps[2].referral!.code,
    );
    expect(steps[0].referral).toBeNull();
  });

  it("a step without a due date, a test the catalogue lacks or a facility without a reason signs nothing", async () => {
    const patient = await makePatient();
    const expert = await makeExpert();
    const report = await makeReport(patient);
    await claim(expert, report);
    const cases: [unknown, Record<string, string[]>][] = [
      [[{ kind: "tests", loincs: [HBA1C], unit: "days" }], { "nextSteps.0.in": ["steps.whenRequired"] }],
      [
        [{ kind: "tests", loincs: ["99999-9"], in: 3, unit: "days" }],
        { "nextSteps.0.loincs": ["steps.testUnknown"] },
      ],
      [
        [{ kind: "facility", urgency: "week", reason: " " }],
        { "nextSteps.0.reason": ["steps.reasonRequired"] },
      ],
      [
        [{ kind: "specialist", specialty: "Cardiology", urgency: "weeks" }],
        { "nextSteps.0.weeks": ["steps.weeksRequired"] },
      ],
      [[{ kind: "surgery" }], { "nextSteps.0.kind": ["steps.kindRequired"] }],
    ];
    for (const [nextSteps, fieldErrors] of cases) {
      const r = await refusal(() => d.consultation.addReview(expert, report._id, { review: "x", nextSteps }));
      expect(r.code).toBe("invalid");
      expect(r.extra.fieldErrors).toEqual(fieldErrors);
    }
    expect((await d.consultation.stepsFor([report._id])).get(report._id)).toEqual([]);
    // Nothing was signed: the opinion can still be given.
    const signed = await d.consultation.addReview(expert, report._id, {
      review: "x",
      nextSteps: STEPS.slice(0, 1),
    });
    expect(signed.status).toBe("Reviewed");
  });

  it("the patient, her centre and the expert who asked close a step; another patient or expert cannot see it", async () => {
    const patient = await makePatient();
    const { worker } = await makeCentrePatient({ patient: patient.id });
    const expert = await makeExpert();
    const otherExpert = await makeExpert();
    const stranger = await makePatient();
    const report = await makeReport(patient);
    await claim(expert, report);
    await d.consultation.addReview(expert, report._id, { review: "Repeat", nextSteps: STEPS });
    const [tests, specialist, facility] = (await d.consultation.stepsFor([report._id])).get(report._id)!;

    for (const who of [stranger, otherExpert])
      expect((await refusal(() => d.consultation.setStepState(who, tests._id, { state: "done" }))).code).toBe(
        "not_found",
      );
    expect((await refusal(() => d.consultation.setStepState(patient, "nope", { state: "done" }))).code).toBe(
      "not_found",
    );
    // The patient says done, or that she cannot go (with why); "visited" is her centre's to say.
    const visited = await refusal(() =>
      d.consultation.setStepState(patient, tests._id, { state: "visited" }),
    );
    expect(visited.extra.fieldErrors).toEqual({ state: ["steps.stateNotYours"] });
    const noReason = await refusal(() =>
      d.consultation.setStepState(patient, specialist._id, { state: "declined" }),
    );
    expect(noReason.extra.fieldErrors).toEqual({ reason: ["steps.declineReasonRequired"] });
    const done = await d.consultation.setStepState(patient, tests._id, { state: "done" });
    expect(done.state).toBe("done");
    expect(done.stateAt).not.toBeNull();
    const declined = await d.consultation.setStepState(worker, specialist._id, {
      state: "declined",
      reason: "No bus to the city",
    });
    expect([declined.state, declined.stateReason]).toEqual(["declined", "No bus to the city"]);
    const reopened = await d.consultation.setStepState(expert, facility._id, { state: "unreachable" });
    expect(reopened.state).toBe("unreachable");
    expect((await d.consultation.setStepState(expert, facility._id, { state: "open" })).stateAt).toBeNull();
  });
});
