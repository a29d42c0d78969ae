import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { webmOpus } from "../helpers/audio";
import { requireTool } from "../helpers/requires";
import {
  claim,
  freshDomain,
  makeExpert,
  makePatient,
  makeAdmin,
  makeDependant,
  makeReport,
  refusal,
  review,
  type Person,
  type Domain,
} from "../helpers/factories";

/*
 * The call queue's rules (decision 0080) on both databases: who may be called, one waiting call per
 * number, the daily and unknown-caller budgets, the person's window, and a call placed once when
 * two senders race for it (here on the folder line: no VOICE_URL).
 */

let d: Domain;
let calls: typeof import("~/domain/calls/index.server");
beforeAll(async () => {
  d = await freshDomain({
    VOICE_PER_NUMBER_DAY: "2",
    VOICE_UNKNOWN_PER_DAY: "1",
    VOICE_CALLBACK_SECONDS: "0",
  });
  calls = await import("~/domain/calls/index.server");
});
afterAll(() => d?.close());

const rowsFor = (number: string) =>
  d.db.db().select().from(d.schema.phoneCalls).where(eq(d.schema.phoneCalls.number, number));

describe("the call queue", () => {
  it("calls only numbers of the allow-list, one waiting call per number, two a day", async () => {
    const q = (number: string) =>
      d.calls.queueCall({ number, patientId: null, purpose: "callback", locale: "en", at: new Date() });
    expect(await q("+12025550143")).toEqual({ queued: false, reason: "not-callable" }); // US: not in SMS_COUNTRIES
    expect(await q("+911234")).toEqual({ queued: false, reason: "not-callable" });
    expect((await q("+919811111111")).queued).toBe(true);
    expect(await q("+919811111111")).toEqual({ queued: false, reason: "already-queued" });
    await calls.processCallQueue();
    expect((await q("+919811111111")).queued).toBe(true);
    await calls.processCallQueue();
    expect(await q("+919811111111")).toEqual({ queued: false, reason: "over-budget" });
    const written = readdirSync(path.join(d.root, "data", "call-outbox"));
    expect(written.length).toBe(2);
    expect((await rowsFor("+919811111111")).map((r) => [r.status, r.outcome])).toEqual([
      ["done", "written"],
      ["done", "written"],
    ]);
  });

  it("a known number's missed call brings one callback; unknown callers a general message within the day's budget", async () => {
    const patient = await makePatient({ phone: "+919822222222" });
    expect((await calls.receiveMissedCall("+919822222222")).outcome).toBe("callback-queued");
    expect((await calls.receiveMissedCall("919822222222")).outcome).toBe("already-queued");
    const [callback] = (await rowsFor("+919822222222")).filter((r) => r.direction === "out");
    expect(callback).toMatchObject({ purpose: "callback", patientId: patient.id, status: "queued" });
    expect((await calls.receiveMissedCall("+919833333333")).outcome).toBe("general-queued");
    expect((await calls.receiveMissedCall("+919844444444")).outcome).toBe("ignored");
    expect((await calls.receiveMissedCall("not a number")).outcome).toBe("ignored");
    const incoming = await d.db
      .db()
      .select()
      .from(d.schema.phoneCalls)
      .where(eq(d.schema.phoneCalls.direction, "in"));
    expect(incoming.map((r) => r.outcome).sort()).toEqual([
      "already-queued",
      "callback-queued",
      "general-queued",
      "ignored",
    ]);
  });

  it("two senders racing place each due call once", async () => {
    const before = readdirSync(path.join(d.root, "data", "call-outbox")).length;
    const due = await d.db
      .db()
      .select()
      .from(d.schema.phoneCalls)
      .where(eq(d.schema.phoneCalls.status, "queued"));
    const placed = await Promise.all([calls.processCallQueue(), calls.processCallQueue()]);
    expect(placed[0] + placed[1]).toBe(due.length);
    expect(readdirSync(path.join(d.root, "data", "call-outbox")).length - before).toBe(due.length);
  });

  it("an opinion brings a call in the person's window instead of the text she turned off", async () => {
    const patient = await makePatient({ phone: "+919855555555" });
    await d.db
      .db()
      .update(d.schema.patients)
      .set({ noticeBy: "call", callWindow: "evening" })
      .where(eq(d.schema.patients.accountId, patient.id));
    const expert = await makeExpert();
    const report = await makeReport(patient);
    await claim(expert, report);
    await review(expert, report);
    const [call] = await rowsFor("+919855555555");
    expect(call).toMatchObject({ purpose: "opinion-ready", status: "queued" });
    const opens = d.calls.nextWindowStart("evening", call.createdAt);
    // Inside the evening (India's, decision 0092) it is due at once: the queue read its clock a moment apart.
    expect(Math.abs(call.nextAttemptAt.getTime() - opens.getTime())).toBeLessThan(1000);
    const sms = await d.db
      .db()
      .select()
      .from(d.schema.smsMessages)
      .where(eq(d.schema.smsMessages.to, "+919855555555"));
    expect(sms).toHaveLength(0);
  });

  it.skipIf(!requireTool("ffmpeg", "ffmpeg"))(
    "a voice note recorded in a browser (WebM Opus) gets its 8 kHz telephone copy when it is stored",
    async () => {
      const patient = await makePatient();
      const expert = await makeExpert();
      const report = await makeReport(patient);
      await claim(expert, report);
      const file = await d.records.storeUpload(
        (async function* () {
          yield new Uint8Array(webmOpus(3));
        })(),
        { maxBytes: 1 << 20, allowed: "audio", fileName: "note.webm" },
      );
      const note = await d.consultation.addVoiceNote(expert, report._id, { kind: "explanation" }, file);
      const [row] = await d.db
        .db()
        .select()
        .from(d.schema.voiceNotes)
        .where(eq(d.schema.voiceNotes.id, note._id));
      expect(row.phoneFileKey).toBeTruthy();
      expect(Math.abs(row.phoneDurationMs! - 3000)).toBeLessThan(100);
    },
  );

  it("the person or whoever acts for her chooses a call; a call needs a number; nobody else may", async () => {
    const admin = await makeAdmin();
    const own = await makePatient({ phone: "+919866666666" });
    const noPhone = await makePatient();
    const manager = await makePatient();
    const child = await makeDependant(manager);
    const set = (who: Person, id: string | null, input: Record<string, unknown>) =>
      d.care.setNoticePreference(who, id, input);
    // Her own mobile number, proven by the code of her phone signup (decision 0102).
    expect(await set(own, null, { noticeBy: "both", callWindow: "evening" })).toMatchObject({
      noticeBy: "both",
      callWindow: "evening",
      phone: "+91******6666",
      phoneProven: true,
    });
    expect(
      (await refusal(() => set(noPhone, null, { noticeBy: "call", callWindow: "morning" }))).extra
        .fieldErrors,
    ).toEqual({ noticeBy: ["calls.noPhone"] });
    expect(
      (await refusal(() => set(own, null, { noticeBy: "fax", callWindow: "night" }))).extra.fieldErrors,
    ).toEqual({
      noticeBy: ["calls.noticeByRequired"],
      callWindow: ["calls.windowRequired"],
    });
    expect((await set(manager, child, { noticeBy: "sms", callWindow: "afternoon" })).callWindow).toBe(
      "afternoon",
    );
    for (const stranger of [noPhone, admin])
      expect(
        (await refusal(() => set(stranger, own.id, { noticeBy: "sms", callWindow: "morning" }))).code,
      ).toBe("not_found");
    expect((await d.care.noticePreference(own)).noticeBy).toBe("both");
    // Her trail says who changed it; the manager's change is in the child's trail.
    const trail = await d.care.accessTrail(manager, { patientId: child, locale: "en" }, {
      page: 1,
      pageSize: 10,
    } as never);
    expect(trail.items.map((e) => e.text)).toContain(
      `How opinions are told (SMS or a call) changed by ${manager.firstName} ${manager.lastName} (family)`,
    );
  });

  it("the family page's choices: each member the account manages without a login, none of the account's own", async () => {
    const manager = await makePatient();
    const child = await makeDependant(manager);
    await makeDependant(await makePatient()); // another family's member
    await d.care.setNoticePreference(manager, child, { noticeBy: "sms", callWindow: "evening" });
    const choices = await d.care.familyNoticePreferences(manager);
    expect(Object.keys(choices)).toEqual([child]); // not the account's own, not another family's
    expect(choices[child]).toMatchObject({ noticeBy: "sms", callWindow: "evening" });
  });

  it("numbers do not stay: settled calls are pruned with the SMS, an erased number's call files go", async () => {
    const { phoneCalls } = d.schema;
    const old = new Date(Date.now() - 400 * 86_400_000);
    await d.db.db().insert(phoneCalls).values({
      id: "old-call",
      direction: "in",
      number: "+919877777777",
      purpose: "missed-call",
      status: "done",
      nextAttemptAt: old,
      createdAt: old,
    });
    await d.rights.rightsJob(); // the retention: SMS and calls alike
    expect(await rowsFor("+919877777777")).toHaveLength(0);
    const outbox = path.join(d.root, "data", "call-outbox");
    const before = readdirSync(outbox).length;
    expect(await d.messaging.deleteOutboxFilesTo(["+919811111111"])).toBe(2);
    expect(readdirSync(outbox).length).toBe(before - 2);
  });

  it("works out the next window in the clinic's time, whatever the server's zone (decision 0092)", () => {
    // CLINIC_TIME_ZONE is unset: India. The test machine runs at UTC (CI does), five and a half hours behind.
    const at = (h: number, m = 0, day = 27) =>
      new Date(`2026-11-${day}T${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:00+05:30`);
    expect(d.calls.nextWindowStart("morning", at(10))).toEqual(at(10));
    expect(d.calls.nextWindowStart("morning", at(7, 30))).toEqual(at(9));
    expect(d.calls.nextWindowStart("afternoon", at(10))).toEqual(at(12));
    expect(d.calls.nextWindowStart("morning", at(12))).toEqual(at(9, 0, 28));
    expect(d.calls.nextWindowStart("evening", at(20, 30))).toEqual(at(17, 0, 28));
    // 23:45 in India is 18:15 at UTC: the evening window is over there, not still open.
    expect(d.calls.nextWindowStart("evening", at(23, 45))).toEqual(at(17, 0, 28));
    expect(d.calls.nextWindowStart(null, at(3))).toEqual(at(3));
  });
});
