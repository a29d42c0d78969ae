import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobsWorker, until } from "../helpers/jobs-worker-process";
import {
  claim,
  freshDomain,
  makeExpert,
  makePatient,
  makeReport,
  refusal,
  uniqueMobile,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Reminders of an opinion's next steps (decision 0114) on both databases: due before and on the
 * due date at her hour of the clinic's day, at most the daily cap a patient, none for a closed
 * step, each asked for once whichever runner asks, put off by "remind me later", ended by an answer.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain({ CLINIC_TIME_ZONE: "Asia/Kolkata", REMIND_DAYS_BEFORE: "3", REMIND_DAILY_CAP: "2" });
});
afterAll(() => d?.close());

const HBA1C = "4548-4";
const STEP = { kind: "tests", loincs: [HBA1C], in: 3, unit: "weeks" };
const DAY = 86_400_000;

/** The clinic's hour now (Asia/Kolkata, UTC+5:30). */
const clinicHour = () => new Date(Date.now() + 5.5 * 3_600_000).getUTCHours();

/** A patient with a mobile number and an opinion giving `steps` steps, signed 10 days ago. */
async function withSteps(n = 1, opts: { dueIn?: number } = {}) {
  const phone = uniqueMobile();
  const patient = Object.assign(await makePatient({ phone }), { phone });
  const expert = await makeExpert();
  const report = await makeReport(patient);
  await claim(expert, report);
  await d.consultation.addReview(expert, report._id, { review: "Repeat", nextSteps: Array(n).fill(STEP) });
  const steps = (await d.consultation.stepsFor([report._id])).get(report._id)!;
  const { db } = d.db;
  const { nextSteps, patients } = d.schema;
  // Due in `dueIn` days (by default the "days before" reminder is today), signed long ago; her hour is now's.
  await db()
    .update(nextSteps)
    .set({
      dueOn: d.consultation.clinicDateAfter(Date.now(), opts.dueIn ?? 3),
      createdAt: new Date(Date.now() - 10 * DAY),
    })
    .where(eq(nextSteps.reportId, report._id));
  await db().update(patients).set({ remindHour: clinicHour() }).where(eq(patients.id, patient.id));
  return { patient, expert, report, steps };
}

async function smsTo(phone: string) {
  const { smsMessages } = d.schema;
  const all = await d.db.db().select().from(smsMessages).where(eq(smsMessages.to, phone));
  return all.filter((m) => m.purpose === "step-reminder"); // not the opinion-ready text
}

async function step(id: string) {
  const [row] = await d.db.db().select().from(d.schema.nextSteps).where(eq(d.schema.nextSteps.id, id));
  return row;
}

describe("when a step is reminded", () => {
  it("days before the due date and on it, at her hour of the clinic's day", () => {
    const moments = d.consultation.reminderMoments({ dueOn: "2026-03-10", snoozedUntil: null }, 9, 3);
    expect(moments.map((m) => [m.which, m.date, new Date(m.at).toISOString()])).toEqual([
      ["before", "2026-03-07", "2026-03-07T03:30:00.000Z"],
      ["due", "2026-03-10", "2026-03-10T03:30:00.000Z"],
    ]);
    // Put off to another day: reminded on that day too.
    const later = d.consultation.reminderMoments({ dueOn: "2026-03-10", snoozedUntil: "2026-03-12" }, 18, 3);
    expect(later.map((m) => [m.which, new Date(m.at).toISOString()])).toContainEqual([
      "later",
      "2026-03-12T12:30:00.000Z",
    ]);
  });

  it("a reminder due now is asked for once and sent by SMS in her language, naming only the step's kind", async () => {
    const { patient, steps } = await withSteps(1);
    expect(await d.consultation.scanStepReminders()).toBe(1);
    expect(await d.consultation.scanStepReminders()).toBe(0); // the same key: the same job
    const round = await d.consultation.runStepReminders();
    expect(round.outcomes.sent).toBe(1);
    const sms = await smsTo(patient.phone!);
    expect(sms).toHaveLength(1);
    expect(sms[0].purpose).toBe("step-reminder");
    expect(sms[0].text).toMatch(/repeat tests is due on \d{4}-\d\d-\d\d\. Reply 1 done/);
    expect(sms[0].text).not.toMatch(/HbA1c|4548/i);
    expect((await step(steps[0]._id)).remindersSent).toBe(1);
    const { auditEvents } = d.schema;
    const trail = await d.db.db().select().from(auditEvents).where(eq(auditEvents.subjectId, patient.id));
    expect(trail.map((e) => e.action)).toContain("patient.step_reminded");
  });

  it("never more than the daily cap for one patient, whatever the number of steps", async () => {
    const { patient } = await withSteps(3);
    expect(await d.consultation.scanStepReminders()).toBe(2);
    expect(await d.consultation.scanStepReminders()).toBe(0);
    await d.consultation.runStepReminders();
    expect(await smsTo(patient.phone!)).toHaveLength(2);
  });

  it("a closed step, one switched off, or a patient who wants none, gets none; a step closed after the scan neither", async () => {
    const a = await withSteps(1);
    await d.consultation.setStepState(a.patient, a.steps[0]._id, { state: "done" });
    const b = await withSteps(1);
    await d.consultation.setStepReminders(b.patient, b.steps[0]._id, { off: true });
    const c = await withSteps(1);
    await d.care.setReminderPreference(c.patient, null, { remindBy: "none", remindHour: 9 });
    const e = await withSteps(1);
    await d.consultation.scanStepReminders();
    await d.consultation.setStepState(e.patient, e.steps[0]._id, { state: "declined", reason: "Too far" });
    await d.consultation.runStepReminders();
    for (const p of [a, b, c, e]) expect(await smsTo(p.patient.phone!)).toHaveLength(0);
  });

  it("a moment passed more than a day ago is never sent late", async () => {
    const { patient } = await withSteps(1, { dueIn: 1 }); // "before" was two days ago; "due" is tomorrow
    await d.consultation.scanStepReminders();
    await d.consultation.runStepReminders();
    expect(await smsTo(patient.phone!)).toHaveLength(0);
  });

  it("two runners scanning and sending together send each reminder once", async () => {
    const people = await Promise.all([withSteps(1), withSteps(1), withSteps(1)]);
    const workers = await Promise.all([worker(), worker()]);
    await Promise.all(workers.map((w) => until(() => w.out().includes("ready"), 60_000)));
    for (const w of workers) w.stdin!.write("go\n");
    await Promise.all([d.consultation.scanStepReminders(), ...workers.map((w) => w.exited)]);
    await d.consultation.runStepReminders();
    for (const p of people) expect(await smsTo(p.patient.phone!)).toHaveLength(1);
  });
});

describe("her answer", () => {
  it("1 closes the step she was last reminded of at that number", async () => {
    const { patient, steps } = await withSteps(1);
    await d.consultation.scanStepReminders();
    await d.consultation.runStepReminders();
    const r = await d.consultation.answerReminder(patient.phone!, "1");
    expect(r.answer).toBe("done");
    expect((await step(steps[0]._id)).state).toBe("done");
  });

  it("2 puts it off to tomorrow (no reminder before), 3 declines it with the reason in her language", async () => {
    const { patient, steps } = await withSteps(1, { dueIn: 0 });
    await d.consultation.scanStepReminders();
    await d.consultation.runStepReminders();
    await d.consultation.answerReminder(patient.phone!, " 2 later");
    const row = await step(steps[0]._id);
    expect(row.snoozedUntil).toBe(d.consultation.clinicDateAfter(Date.now(), 1));
    expect(row.state).toBe("open");
    const moments = d.consultation.reminderMoments(row, 9, 3);
    expect(moments.at(-1)!.which).toBe("later");
    await d.consultation.answerReminder(patient.phone!, "3");
    const closed = await step(steps[0]._id);
    expect([closed.state, closed.stateReason]).toEqual(["declined", "The patient said she cannot go."]);
    // Nothing waits for an answer any more.
    expect((await d.consultation.answerReminder(patient.phone!, "1")).step).toBeNull();
  });

  it("text that is no answer changes nothing", async () => {
    const { patient, steps } = await withSteps(1);
    await d.consultation.scanStepReminders();
    await d.consultation.runStepReminders();
    expect((await d.consultation.answerReminder(patient.phone!, "hello")).answer).toBeNull();
    expect((await step(steps[0]._id)).state).toBe("open");
  });
});

describe("a reminder by call (decision 0115)", () => {
  const callsFor = async (patientId: string) => {
    const { phoneCalls } = d.schema;
    return d.db.db().select().from(phoneCalls).where(eq(phoneCalls.patientId, patientId));
  };

  it("goes to her proven number as a call about the step, once however often it is asked; her keypad answer is written", async () => {
    const { patient, steps } = await withSteps(1);
    const { db } = d.db;
    const { patients, auditEvents } = d.schema;
    await db().update(patients).set({ remindBy: "call" }).where(eq(patients.id, patient.id));
    expect(await d.consultation.scanStepReminders()).toBe(1);
    expect((await d.consultation.runStepReminders()).outcomes.sent).toBe(1);
    const calls = await callsFor(patient.id);
    expect(calls.map((c) => [c.purpose, c.stepId, c.status, c.number])).toEqual([
      ["step-reminder", steps[0]._id, "queued", patient.phone],
    ]);
    expect(await smsTo(patient.phone!)).toHaveLength(0);
    const trail = await db().select().from(auditEvents).where(eq(auditEvents.subjectId, patient.id));
    expect(trail.find((e) => e.action === "patient.step_reminded")?.detail).toContain('"channel":"call"');
    // The runner's second run of the same job (at-least-once): the same call, not a second one, and no SMS.
    const again = await d.calls.queueCall({
      number: patient.phone!,
      patientId: patient.id,
      purpose: "step-reminder",
      locale: "en",
      at: new Date(),
      stepId: steps[0]._id,
    });
    expect(again).toMatchObject({ queued: true, id: calls[0].id });
    expect(await callsFor(patient.id)).toHaveLength(1);
    // Her "1" on the keypad closes the step, a line in her trail by call.
    await d.consultation.answerStepByCall(steps[0]._id, "done", "en");
    expect((await step(steps[0]._id)).state).toBe("done");
    const answered = await db().select().from(auditEvents).where(eq(auditEvents.subjectId, patient.id));
    expect(answered.find((e) => e.action === "patient.step_answered")?.detail).toContain('"by":"call"');
    // Closed before the call was placed: the sender ends it without calling.
    const calling = await import("~/domain/calls/index.server");
    await calling.processCallQueue();
    const [ended] = await callsFor(patient.id);
    expect([ended.status, ended.outcome]).toEqual(["done", "not-needed"]);
  });

  it("a call that cannot be queued (another call waiting for her number) goes by SMS instead", async () => {
    const { patient } = await withSteps(1);
    await d.db
      .db()
      .update(d.schema.patients)
      .set({ remindBy: "call" })
      .where(eq(d.schema.patients.id, patient.id));
    const waiting = await d.calls.queueCall({
      number: patient.phone!,
      patientId: patient.id,
      purpose: "general",
      locale: "en",
      at: new Date(Date.now() + DAY),
    });
    expect(waiting.queued).toBe(true);
    expect(await d.consultation.scanStepReminders()).toBe(1);
    expect((await d.consultation.runStepReminders()).outcomes.sent).toBe(1);
    expect(await smsTo(patient.phone!)).toHaveLength(1);
    expect((await callsFor(patient.id)).filter((c) => c.purpose === "step-reminder")).toHaveLength(0);
  });
});

describe("preferences", () => {
  it("she sets how and when; a call needs a proven number, an hour outside 6–21 is refused; another patient is told it is not there", async () => {
    const patient = await makePatient({ phone: uniqueMobile() });
    const other: Person = await makePatient();
    const saved = await d.care.setReminderPreference(patient, null, { remindBy: "sms", remindHour: 19 });
    expect([saved.remindBy, saved.remindHour]).toEqual(["sms", 19]);
    expect(
      (await refusal(() => d.care.setReminderPreference(patient, null, { remindBy: "sms", remindHour: 23 })))
        .extra,
    ).toMatchObject({ fieldErrors: { remindHour: ["steps.hourRequired"] } });
    expect((await refusal(() => d.care.reminderPreference(other, patient.id))).code).toBe("not_found");
    const noPhone = await refusal(() =>
      d.care.setReminderPreference(other, null, { remindBy: "sms", remindHour: 9 }),
    );
    expect(noPhone.extra).toMatchObject({ fieldErrors: { remindBy: ["reminders.noPhone"] } });
  });
});

describe("the repeat report", () => {
  it("is offered for a tests step when its lab values hold the step's analytes; attached, the step is done, the report is the asking expert's, who sees before and after", async () => {
    const { patient, expert, steps } = await withSteps(1, { dueIn: 10 });
    const repeat = await makeReport(patient);
    await d.db
      .db()
      .insert(d.schema.labValues)
      .values({
        id: `lv-${repeat._id}`,
        reportId: repeat._id,
        loinc: HBA1C,
        value: 6.1,
        unit: "%",
        printedValue: "6.1",
      } as never);
    // Said done by her reply before the report came: still offered; declined, it is not.
    await d.consultation.setStepState(patient, steps[0]._id, { state: "done" });
    const offers = await d.consultation.stepOffersFor(patient, repeat._id);
    expect(offers.map((o) => [o.step._id, o.loincs])).toEqual([[steps[0]._id, [HBA1C]]]);
    await d.consultation.setStepState(patient, steps[0]._id, { state: "declined", reason: "far" });
    expect(await d.consultation.stepOffersFor(patient, repeat._id)).toEqual([]);
    await d.consultation.setStepState(patient, steps[0]._id, { state: "open" });
    const other = await makePatient();
    expect((await refusal(() => d.consultation.stepOffersFor(other, repeat._id))).code).toBe("not_found");
    const done = await d.consultation.attachRepeatReport(patient, steps[0]._id, { reportId: repeat._id });
    expect([done.state, done.attachedReportId]).toEqual(["done", repeat._id]);
    const [r] = await d.db
      .db()
      .select()
      .from(d.schema.reports)
      .where(inArray(d.schema.reports.id, [repeat._id]));
    expect(r.claimedBy).toBe(expert.id);
    expect(r.claimExpiresAt!.getTime()).toBeGreaterThan(Date.now());
    // The expert who asked sees the step's values before and now on one chart; another expert none.
    await d.db
      .db()
      .insert(d.schema.labValues)
      .values({
        id: `lv-${steps[0].reportId}`,
        reportId: steps[0].reportId,
        loinc: HBA1C,
        value: 7.9,
        unit: "%",
        printedValue: "7.9",
        status: "confirmed",
      } as never);
    await d.db
      .db()
      .update(d.schema.labValues)
      .set({ status: "confirmed" })
      .where(eq(d.schema.labValues.id, `lv-${repeat._id}`));
    const series = await d.consultation.repeatSeries(expert, repeat._id);
    expect(series.map((s) => [s.loinc, s.points.map((p) => p.value)])).toEqual([[HBA1C, [7.9, 6.1]]]);
    expect(await d.consultation.repeatSeries(await makeExpert(), repeat._id)).toEqual([]);
    expect(
      (
        await refusal(() =>
          d.consultation.attachRepeatReport(patient, steps[0]._id, { reportId: repeat._id }),
        )
      ).code,
    ).toBe("invalid");
  });
});

const worker = () => jobsWorker("remind");
