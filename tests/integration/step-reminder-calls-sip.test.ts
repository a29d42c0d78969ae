import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { eq } from "drizzle-orm";
import { onlyWith, requireTool } from "../helpers/requires";
import { claim, freshDomain, makeExpert, makePatient, makeReport, type Domain } from "../helpers/factories";
import { answeringScenario, runSipp, sipPort as freePort, type PhoneStep } from "../helpers/sip-phone";

/*
 * A next step's reminder by phone call (decision 0115) on a real SIP stack: baresip is the clinic's
 * line, sipp the patient's phone. The reminder queues a call naming the step; the phone keys the
 * year of birth, hears the step and its menu, presses 1; the step is done, the call's outcome is
 * "step-done", and her trail says she answered by call.
 */
const ok =
  requireTool("baresip", "baresip-core") &&
  requireTool("sipp", "sip-tester") &&
  requireTool("espeak-ng", "espeak-ng") &&
  requireTool("sox", "sox");
const { describe, it, beforeAll, afterAll } = onlyWith(ok, vitest);

const DAY = 86_400_000;
const PHONE = "+919876500115";

/** What a sipp run said in its error log, for a failure message. */
const sippErrors = (dir: string, name: string) => {
  try {
    return readFileSync(path.join(dir, `${name}-errors.log`), "utf8").slice(-1500);
  } catch {
    return "";
  }
};

async function until(
  what: string,
  check: () => Promise<boolean>,
  ms: number,
  diagnose: () => Promise<unknown>,
) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await diagnose())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a step reminder by phone call on a SIP line", () => {
  let d: Domain;
  let calls: typeof import("~/domain/calls/index.server");
  let dir: string;
  let phonePort: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "cb-sip-remind-"));
    const clinicPort = await freePort();
    // The clinic's lines take clinicPort … clinicPort + 3; the phone's media is phonePort + 1000.
    do phonePort = await freePort();
    while (Math.abs(phonePort - clinicPort) < 8 || Math.abs(phonePort + 1000 - clinicPort) < 8);
    let rtpFrom = clinicPort + 100;
    if (Math.abs(phonePort - rtpFrom) < 50 || Math.abs(phonePort + 1000 - rtpFrom) < 50) rtpFrom += 200;
    d = await freshDomain({
      VOICE_URL: `sip://clinic@127.0.0.1:${phonePort}?register=no`,
      VOICE_SIP_LISTEN: `127.0.0.1:${clinicPort}`,
      VOICE_NUMBER: "+911140000000",
      VOICE_RTP_PORTS: `${rtpFrom}-${rtpFrom + 39}`,
      VOICE_RETRY_SECONDS: "1",
      CLINIC_TIME_ZONE: "Asia/Kolkata",
      REMIND_DAYS_BEFORE: "3",
      LOG_LEVEL: process.env.TEST_LOG ?? "silent",
    });
    calls = await import("~/domain/calls/index.server");
    await calls.startCalls();
    calls.repollCallSender(200);
  }, 60_000);

  afterAll(async () => {
    await calls?.stopCalls();
    await d?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A patient who chose a call at this hour (her signup number proven, decision 0102), a step due in 3 days. */
  async function remindedByCall(phone: string) {
    const { db } = d.db;
    const { patients, nextSteps } = d.schema;
    const patient = await makePatient({ phone, locale: "hi" });
    const clinicHour = new Date(Date.now() + 5.5 * 3_600_000).getUTCHours();
    await db()
      .update(patients)
      .set({ birthYear: 1984, remindBy: "call", remindHour: clinicHour })
      .where(eq(patients.accountId, patient.id));
    const expert = await makeExpert();
    const report = await makeReport(patient);
    await claim(expert, report);
    await d.consultation.addReview(expert, report._id, {
      review: "Repeat",
      nextSteps: [{ kind: "tests", loincs: ["4548-4"], in: 3, unit: "weeks" }],
    });
    // Due in three days ("3 days before" is today), signed long ago.
    await db()
      .update(nextSteps)
      .set({
        dueOn: d.consultation.clinicDateAfter(Date.now(), 3),
        createdAt: new Date(Date.now() - 10 * DAY),
      })
      .where(eq(nextSteps.reportId, report._id));
    const [step] = (await d.consultation.stepsFor([report._id])).get(report._id)!;
    return { patient, report, step };
  }

  /** The reminder sent, and the call to `phone` placed and settled while `sipp` answers it. */
  async function callAnswered(phone: string, name: string, steps: PhoneStep[]) {
    const { db } = d.db;
    const { phoneCalls } = d.schema;
    const sipp = runSipp(dir, name, answeringScenario(steps), phonePort);
    const diagnose = async () => ({
      calls: await db().select().from(phoneCalls),
      phone: sippErrors(dir, name),
    });
    try {
      expect(await d.consultation.scanStepReminders()).toBe(1);
      expect((await d.consultation.runStepReminders()).outcomes.sent).toBe(1);
      await until(
        "the reminder call to be settled",
        async () => {
          const [row] = await db().select().from(phoneCalls).where(eq(phoneCalls.number, phone));
          return row?.status === "done" || row?.status === "failed";
        },
        45_000,
        diagnose,
      );
      const answered = await sipp.done;
      expect(answered.code, `sipp: ${answered.output}`).toBe(0);
    } finally {
      sipp.stop();
    }
    const [call] = await db().select().from(phoneCalls).where(eq(phoneCalls.number, phone));
    const events = await db().select().from(d.schema.auditEvents);
    return { call, events };
  }

  it("she keys her year of birth, hears the step, presses 1: the step is done, with her trail line", async () => {
    const { db } = d.db;
    const { patient, report, step } = await remindedByCall(PHONE);
    // The phone: answers, keys the year at 1.5 s, then 1 during the step's prompt; the clinic
    // confirms and hangs up.
    const { call, events: all } = await callAnswered(PHONE, "remind-phone", [
      { wait: 1500 },
      { keys: "1984" },
      { wait: 4000 },
      { keys: "1" },
    ]);
    expect(call).toMatchObject({
      direction: "out",
      purpose: "step-reminder",
      stepId: step._id,
      status: "done",
      outcome: "step-done",
      attempts: 1,
    });
    expect(call.verifiedAt).toBeTruthy();
    // No SMS instead: she was reached by the call.
    const sms = await db().select().from(d.schema.smsMessages).where(eq(d.schema.smsMessages.to, PHONE));
    expect(sms.filter((m) => m.purpose === "step-reminder")).toHaveLength(0);

    // The step is done, as her report's steps say.
    const [after] = (await d.consultation.stepsFor([report._id])).get(report._id)!;
    expect(after.state).toBe("done");
    const events = all.filter((e) => e.subjectId === patient.id);
    const detail = (action: string) =>
      events.filter((e) => e.action === action).map((e) => JSON.parse(e.detail ?? "{}"));
    expect(detail("patient.step_reminded")).toEqual([expect.objectContaining({ channel: "call" })]);
    expect(detail("patient.step_answered")).toEqual([{ step: step._id, answer: "done", by: "call" }]);
    const trail = await d.care.accessTrail(patient, { locale: "en" }, { limit: 10 } as never);
    expect(trail.items.map((e) => e.text)).toContain("Answer to a step reminder");
  }, 90_000);
});
