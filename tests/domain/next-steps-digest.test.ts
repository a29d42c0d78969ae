import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  mailsTo,
  makeAdmin,
  makeCentrePatient,
  makeExpert,
  makePatient,
  makeReport,
  newClient,
  type Domain,
} from "../helpers/factories";

/*
 * The next steps' daily digest, the weekly figures and the CSV's cells (decision 0114), on both
 * databases: an urgent step past its date reaches the expert who asked and the admins once a day;
 * the centre's worklist; a referral opened with the year of birth and acknowledged.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain({ CLINIC_TIME_ZONE: "Asia/Kolkata" });
});
afterAll(() => d?.close());

const DAY = 86_400_000;

describe("the daily digest of urgent steps past due", () => {
  it("mails the expert who asked and the admins, once a clinic day, without names", async () => {
    const patient = await makePatient({ firstName: "Kamla" });
    const expert = await makeExpert();
    const admin = await makeAdmin();
    const report = await makeReport(patient);
    await claim(expert, report);
    await d.consultation.addReview(expert, report._id, {
      review: "Needs a hospital today",
      nextSteps: [
        { kind: "facility", facility: "District Hospital Nashik", urgency: "today", reason: "Chest pain" },
        { kind: "specialist", specialty: "Cardiology", urgency: "weeks", weeks: 4 },
      ],
    });
    const later = Date.now() + 3 * DAY;
    expect(await d.consultation.sendStepsDigest(later)).toBeGreaterThanOrEqual(1);
    const [toExpert] = await mailsTo(expert.email, /Urgent next steps/);
    expect(toExpert.body).toMatch(/Asked for the same day/);
    expect(toExpert.body).not.toMatch(/Kamla|Chest pain|Nashik/);
    expect((await mailsTo(admin.email, /Urgent next steps/)).length).toBe(1);
    // The same clinic day again: nothing more.
    expect(await d.consultation.sendStepsDigest(later + 60_000)).toBe(0);
  });
});

describe("the weekly figures", () => {
  it("count steps due per week, closed on time and overdue", async () => {
    const weeks = await d.consultation.stepWeeks(2, Date.now() + 14 * DAY);
    expect(weeks).toHaveLength(2);
    // Four weeks on: the step for today is long overdue, the specialist's (in 4 weeks) due this week.
    const all = await d.consultation.stepWeeks(12, Date.now() + 29 * DAY);
    const due = all.reduce((n, w) => n + w.due, 0);
    const overdue = all.reduce((n, w) => n + w.overdue, 0);
    expect(due).toBeGreaterThanOrEqual(2);
    expect(overdue).toBeGreaterThanOrEqual(1);
  });

  it("writes formulas as text in the CSV", () => {
    expect(d.consultation.csvCell("=HYPERLINK(1)")).toBe(`"'=HYPERLINK(1)"`);
    expect(d.consultation.csvCell("+1")).toBe(`"'+1"`);
    expect(d.consultation.csvCell("-1")).toBe(`"'-1"`);
    expect(d.consultation.csvCell("@x")).toBe(`"'@x"`);
    expect(d.consultation.csvCell('a "b"')).toBe(`"a ""b"""`);
    expect(d.consultation.csvCell(3)).toBe(`"3"`);
  });
});

describe("a referral without its year of birth", () => {
  it("says nothing, and a wrong year counts like an unknown code", async () => {
    const client = newClient();
    for (const code of ["R-2222-3333", "nonsense"]) {
      const err = await d.consultation.openReferral(code, { birthYear: 1961 }, client).then(
        () => null,
        (e: { code: string; message: string }) => e,
      );
      expect(err).toMatchObject({ code: "not_found", message: "referral.noMatch" });
    }
  });
});

describe("the centre's worklist and the facility's acknowledgement", () => {
  it("lists her centre's steps by when, and shows the facility's acknowledgement", async () => {
    const patient = await makePatient({ firstName: "Meena" });
    const { worker } = await makeCentrePatient({ patient: patient.id });
    const { eq } = await import("drizzle-orm");
    await d.db
      .db()
      .update(d.schema.patients)
      .set({ birthYear: 1970, birthYearEstimated: false })
      .where(eq(d.schema.patients.id, patient.id));
    const { worker: otherWorker } = await makeCentrePatient();
    const expert = await makeExpert();
    const report = await makeReport(patient);
    await claim(expert, report);
    await d.consultation.addReview(expert, report._id, {
      review: "See the district hospital",
      nextSteps: [{ kind: "facility", facility: "District Hospital", urgency: "week", reason: "Breathless" }],
    });
    const page = { page: 1, pageSize: 20 };
    const week = await d.consultation.centreWorklist(worker, "week", page);
    const step = week.items.find((s) => s.reportId === report._id)!;
    expect(step.patient.firstName).toBe("Meena");
    expect((await d.consultation.centreWorklist(worker, "overdue", page)).items).toHaveLength(0);
    expect((await d.consultation.centreWorklist(otherWorker, "week", page)).items).toHaveLength(0);
    const inTenDays = await d.consultation.centreWorklist(worker, "overdue", page, Date.now() + 10 * DAY);
    expect(inTenDays.items.map((s) => s._id)).toContain(step._id);

    const client = newClient();
    const code = step.referral!.code;
    expect(
      await d.consultation.openReferral(code, { birthYear: 1971 }, client).then(
        () => "opened",
        (e: { code: string }) => e.code,
      ),
    ).toBe("not_found");
    const seen = await d.consultation.acknowledgeReferral(
      code,
      { birthYear: 1970, note: "Admitted" },
      client,
    );
    expect(seen).toMatchObject({
      initial: "M",
      facility: "District Hospital",
      reason: "Breathless",
      note: "Admitted",
    });
    const again = await d.consultation.centreWorklist(worker, "week", page);
    const after = again.items.find((s) => s._id === step._id)!;
    expect(after.referral).toMatchObject({ note: "Admitted" });
    expect(after.referral!.seenAt).toBeTruthy();
  });
});
