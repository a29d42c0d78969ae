import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { eq } from "drizzle-orm";
import { onlyWith, requireTool } from "../helpers/requires";
import { openTestDb } from "../helpers/db";
import {
  claim,
  freshDomain,
  makeAdmin,
  makeExpert,
  makePatient,
  makeReport,
  review,
  type Domain,
  type Person,
} from "../helpers/factories";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";

/*
 * Calls through an HTTP voice provider (decision 0080), against a fake provider started here: the
 * app asks it to place a call, the test plays the provider — it fetches the answer, the sounds,
 * posts the keys and the final status — and the missed-call webhook is signed and idempotent.
 */
const { describe, it, beforeAll, afterAll } = onlyWith(
  requireTool("espeak-ng", "espeak-ng") && requireTool("sox", "sox"),
  vitest,
);

type Placed = { auth: string; form: URLSearchParams };

describe("calls through an HTTP voice provider", () => {
  let d: Domain;
  let app: TestServer & { root: string };
  let provider: Server;
  const placed: Placed[] = [];
  let sign: (callId: string, step: string) => string;
  /** A patient reminded of a next step (decision 0115), for a reminder call. */
  let reminded: { patientId: string; stepId: string };
  /** Reads the admins' Calls tab. */
  let admin: Person;

  beforeAll(async () => {
    // The clinic's data, made in-process, then served by the built app from the same folders.
    d = await freshDomain();
    const patient = await makePatient({ phone: "+919876543210", locale: "hi" });
    await d.db
      .db()
      .update(d.schema.patients)
      .set({ birthYear: 1990 })
      .where(eq(d.schema.patients.accountId, patient.id));
    const expert = await makeExpert();
    const report = await makeReport(patient);
    await claim(expert, report);
    await review(expert, report, "Haemoglobin is a little low.");
    const other = await makePatient({ phone: "+919876500117", locale: "en" });
    await d.db
      .db()
      .update(d.schema.patients)
      .set({ birthYear: 1990, remindBy: "call" })
      .where(eq(d.schema.patients.accountId, other.id));
    const stepReport = await makeReport(other);
    await claim(expert, stepReport);
    await d.consultation.addReview(expert, stepReport._id, {
      review: "Repeat",
      nextSteps: [{ kind: "specialist", specialty: "Cardiology", urgency: "weeks", weeks: 2 }],
    });
    const [step] = (await d.consultation.stepsFor([stepReport._id])).get(stepReport._id)!;
    // Reminded once (the call below is that reminder's).
    await d.db
      .db()
      .update(d.schema.nextSteps)
      .set({ remindersSent: 1 })
      .where(eq(d.schema.nextSteps.id, step._id));
    reminded = { patientId: other.id, stepId: step._id };
    admin = await makeAdmin();
    await d.db.closeDatabase();

    provider = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        placed.push({ auth: req.headers.authorization ?? "", form: new URLSearchParams(body) });
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify({ Call: { Sid: `CA${placed.length}` } }));
      });
    });
    await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
    const port = (provider.address() as { port: number }).port;
    app = await startServer(
      {
        VOICE_URL: `http://acme:tok3n@127.0.0.1:${port}/v1/Accounts/acme/Calls/connect`,
        VOICE_NUMBER: "+911140000000",
        VOICE_CALLBACK_SECONDS: "0",
        VOICE_RETRY_SECONDS: "1",
      },
      { root: d.root },
    );
    const secret = readFileSync(path.join(app.dataDir, "secrets", "voice-webhook-secret"), "utf8").trim();
    sign = (callId, step) =>
      createHmac("sha256", secret).update(`${callId}:${step}`).digest("base64url").slice(0, 32);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    await new Promise((r) => provider?.close(r));
  });

  const post = (url: string, form: Record<string, string> = {}) =>
    fetch(url, { method: "POST", body: new URLSearchParams(form) });
  const until = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error("timed out");
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const tag = (xml: string, name: string) =>
    new RegExp(`<${name}[^>]*>([^<]*)</${name}>`).exec(xml)?.[1]?.replace(/&amp;/g, "&");

  it("refuses an unsigned missed call, answers a signed one once, and the provider is asked to call back", async () => {
    expect((await post(`${app.url}/voice/missed`, { From: "+919876543210" })).status).toBe(403);
    expect(
      (await post(`${app.url}/voice/missed?sig=${"x".repeat(32)}`, { From: "+919876543210" })).status,
    ).toBe(403);
    const missed = `${app.url}/voice/missed?sig=${sign("missed", "missed")}`;
    expect((await post(missed, { CallSid: "IN1" })).status, "no number").toBe(400);
    for (let i = 0; i < 2; i++) {
      const res = await post(missed, { From: "+919876543210", CallSid: "IN1" });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("<Reject");
    }
    await until(() => placed.length === 1);
    const { auth, form } = placed[0];
    expect(auth).toBe(`Basic ${Buffer.from("acme:tok3n").toString("base64")}`);
    expect(form.get("From")).toBe("+919876543210");
    expect(form.get("CallerId")).toBe("+911140000000");
    const db = await openTestDb(app.dataDir);
    const rows = await db.all("select direction, outcome from phone_calls order by created_at");
    await db.close();
    expect(
      rows.filter((r) => r.direction === "in"),
      "a repeated webhook is one missed call",
    ).toHaveLength(1);
  });

  it("plays nothing medical before the right year of birth, then the opinion; the status settles the call", async () => {
    const { form } = placed[0];
    const callId = form.get("CustomField")!;
    let xml = await (await post(form.get("Url")!)).text();
    expect(xml).toContain('numDigits="4"');
    const intro = tag(xml, "Play")!;
    expect(intro).toContain("/sound/intro.wav");
    const introWav = await fetch(intro);
    expect(introWav.headers.get("Content-Type")).toBe("audio/wav");
    expect((await introWav.arrayBuffer()).byteLength).toBeGreaterThan(16_000 * 3); // a few seconds at 8 kHz
    // The opinion's sound, signed correctly, before the digits: refused.
    const content = `${app.url}/voice/${callId}/sound/content.wav?sig=${sign(callId, "content")}`;
    expect((await fetch(content)).status).toBe(404);
    const keys = /<Gather [^>]*action="([^"]+)"/.exec(xml)![1].replace(/&amp;/g, "&");
    xml = await (await post(keys, { Digits: "1111" })).text();
    expect(tag(xml, "Play")).toContain("/sound/again.wav");
    expect((await fetch(content)).status).toBe(404);
    xml = await (await post(keys, { Digits: "1990" })).text();
    expect(tag(xml, "Play")).toContain("/sound/content.wav");
    const heard = await fetch(tag(xml, "Play")!);
    expect(heard.status).toBe(200);
    expect((await heard.arrayBuffer()).byteLength).toBeGreaterThan(16_000 * 4);
    // A forged status is refused; the provider's own settles the call as heard.
    expect(
      (
        await post(`${app.url}/voice/${callId}/status?sig=${sign(callId, "keys")}`, {
          CallStatus: "completed",
        })
      ).status,
    ).toBe(403);
    expect(
      (await post(form.get("StatusCallback")!, { CallStatus: "completed", CallDuration: "42" })).status,
    ).toBe(204);
    const db = await openTestDb(app.dataDir);
    const out = await db.get("select * from phone_calls where id = ?", callId);
    const trail = await db.all("select action from audit_events where action = 'patient.call_heard'");
    await db.close();
    expect(out).toMatchObject({ status: "done", outcome: "heard", duration_ms: 42_000, attempts: 1 });
    expect(out!.verified_at).toBeTruthy();
    expect(trail).toHaveLength(1);
    // Once settled, nothing of the call is served any more.
    expect((await fetch(tag(xml, "Play")!)).status).toBe(404);
  });

  it("a call nobody answers is placed again", async () => {
    const missed = `${app.url}/voice/missed?sig=${sign("missed", "missed")}`;
    // An unknown number gets the short general message.
    expect((await post(missed, { From: "+919812345678", CallSid: "IN2" })).status).toBe(200);
    await until(() => placed.length === 2);
    const first = placed[1].form;
    expect((await post(first.get("StatusCallback")!, { CallStatus: "no-answer" })).status).toBe(204);
    await until(() => placed.length === 3);
    expect(placed[2].form.get("CustomField")).toBe(first.get("CustomField"));
    const xml = await (await post(placed[2].form.get("Url")!)).text();
    expect(tag(xml, "Play")).toContain("/sound/general.wav");
    expect(xml).toContain("<Hangup/>");
  });

  it("a wrong year twice ends the call with nothing told, and her trail shows the attempt", async () => {
    const missed = `${app.url}/voice/missed?sig=${sign("missed", "missed")}`;
    expect((await post(missed, { From: "+919876543210", CallSid: "IN3" })).status).toBe(200);
    await until(() => placed.length === 4);
    const { form } = placed[3];
    const callId = form.get("CustomField")!;
    const xml = await (await post(form.get("Url")!)).text();
    const keys = /<Gather [^>]*action="([^"]+)"/.exec(xml)![1].replace(/&amp;/g, "&");
    expect(tag(await (await post(keys, { Digits: "1111" })).text(), "Play")).toContain("/sound/again.wav");
    const last = await (await post(keys, { Digits: "2222" })).text();
    expect(tag(last, "Play")).toContain("/sound/not-verified.wav");
    expect(last).toContain("<Hangup/>");
    expect(
      (await fetch(`${app.url}/voice/${callId}/sound/content.wav?sig=${sign(callId, "content")}`)).status,
    ).toBe(404);
    expect(
      (await post(form.get("StatusCallback")!, { CallStatus: "completed", CallDuration: "20" })).status,
    ).toBe(204);
    const db = await openTestDb(app.dataDir);
    const out = await db.get("select status, outcome, verified_at from phone_calls where id = ?", callId);
    const trail = await db.all("select action from audit_events where action = 'patient.call_unverified'");
    await db.close();
    expect(out).toMatchObject({ status: "done", outcome: "not-verified", verified_at: null });
    expect(trail).toHaveLength(1);
  });

  it("a step reminder call (decision 0115): the step only after the right year; 2 puts it off, by call in her trail", async () => {
    const before = placed.length;
    const writer = await openTestDb(app.dataDir, { write: true });
    const now = Date.now();
    await writer.run(
      "insert into phone_calls (id, direction, number, patient_id, purpose, step_id, locale, status, attempts, next_attempt_at, created_at) values (?, 'out', ?, ?, 'step-reminder', ?, 'en', 'queued', 0, ?, ?)",
      "remind-call-1",
      "+919876500117",
      reminded.patientId,
      reminded.stepId,
      writer.time(now),
      writer.time(now),
    );
    await writer.close();
    await until(() => placed.length === before + 1, 20_000);
    const { form } = placed[before];
    const callId = form.get("CustomField")!;
    expect(callId).toBe("remind-call-1");
    let xml = await (await post(form.get("Url")!)).text();
    expect(tag(xml, "Play")).toContain("/sound/intro.wav");
    // The step's sound, signed correctly, before the digits: refused.
    const stepSound = `${app.url}/voice/${callId}/sound/step.wav?sig=${sign(callId, "step")}`;
    expect((await fetch(stepSound)).status).toBe(404);
    const keys = /<Gather [^>]*action="([^"]+)"/.exec(xml)![1].replace(/&amp;/g, "&");
    xml = await (await post(keys, { Digits: "1990" })).text();
    expect(tag(xml, "Play")).toContain("/sound/step.wav");
    expect(xml).toContain('numDigits="1"');
    expect((await fetch(tag(xml, "Play")!)).status).toBe(200);
    xml = await (await post(keys, { Digits: "9" })).text();
    expect(tag(xml, "Play")).toContain("/sound/step.wav");
    xml = await (await post(keys, { Digits: "2" })).text();
    expect(tag(xml, "Play")).toContain("/sound/step-later.wav");
    expect(xml).toContain("<Hangup/>");
    expect(
      (await post(form.get("StatusCallback")!, { CallStatus: "completed", CallDuration: "30" })).status,
    ).toBe(204);
    const db = await openTestDb(app.dataDir);
    const out = await db.get("select status, outcome from phone_calls where id = ?", callId);
    const step = await db.get("select state, snoozed_until from next_steps where id = ?", reminded.stepId);
    const trail = await db.all<{ detail: string }>(
      "select detail from audit_events where action = 'patient.step_answered' and subject_id = ?",
      reminded.patientId,
    );
    await db.close();
    expect(out).toMatchObject({ status: "done", outcome: "step-later" });
    expect(step!.state).toBe("open");
    expect(step!.snoozed_until).toBeTruthy();
    expect(trail.map((e) => JSON.parse(e.detail))).toEqual([
      { step: reminded.stepId, answer: "later", by: "call" },
    ]);
    // The admins' Calls tab says what it was and how she answered, in words.
    const b = new Browserish(app.url);
    expect((await b.post("/login", { email: admin.email, password: admin.password })).status).toBe(302);
    const tab = pageText(await (await b.fetch("/dashboard/messages?kind=calls")).text());
    expect(tab).toContain("Next step reminder");
    expect(tab).toContain("Answered: remind me tomorrow");
  });

  it("a missed call from the clinic's own number, in any form, is refused and never called back (decision 0101)", async () => {
    const missed = `${app.url}/voice/missed?sig=${sign("missed", "missed")}`;
    const before = placed.length;
    const forms = ["+911140000000", "911140000000", "00911140000000", "01140000000", "1140000000"];
    for (const [i, form] of forms.entries())
      expect((await post(missed, { From: form, CallSid: `OWN${i}` })).status, form).toBe(200);
    const db = await openTestDb(app.dataDir);
    const rows = (await db.all(
      "select direction, outcome from phone_calls where number = ?",
      "+911140000000",
    )) as { direction: string; outcome: string }[];
    await db.close();
    expect(rows).toEqual(forms.map(() => ({ direction: "in", outcome: "refused-own-number" })));
    expect(placed.length, "no call was asked of the provider").toBe(before);
  });
});
