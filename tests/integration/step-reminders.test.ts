import { randomBytes } from "node:crypto";
import * as vitest from "vitest";
import { expect } from "vitest";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { startKannel, type Kannel } from "../helpers/kannel";
import { onlyWith, requireKannel } from "../helpers/requires";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

// Needs Kannel (the SMS tests' real gateway): skipped without it, naming the package, except under CI.
const { afterAll, beforeAll, describe, it } = onlyWith(requireKannel(), vitest);

/*
 * Next steps' reminders over HTTP (decision 0114): the built app scans every second, sends a due
 * reminder through a real Kannel to the phone fakesmsc stands for, and her reply "1" — as
 * Kannel's sms-service passes it to /sms/inbound — closes the step. Her preferences and one step's
 * reminders through the API, refused to anyone else; a repeat report's offer and its attaching.
 */

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let kannel: Kannel;
let tdb: TestDb;
const api = () => apiClient(server.url);
const KEY = randomBytes(16).toString("hex");
const HBA1C = "4548-4";
const GLUCOSE = "1558-6";
const PHONE = "+919812345678";
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};

/** The clinic's date `days` from now (Asia/Kolkata, UTC+5:30) and its hour now. */
const clinicDate = (days: number) =>
  new Date(Date.now() + 5.5 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
const clinicHour = () => new Date(Date.now() + 5.5 * 3_600_000).getUTCHours();

beforeAll(async () => {
  smtp = await startSmtp();
  kannel = await startKannel();
  server = await startServer({
    SMTP_URL: smtp.url,
    SMS_URL: kannel.url,
    SMS_INBOUND_KEY: KEY,
    REMIND_SCAN_SECONDS: "1",
    CLINIC_TIME_ZONE: "Asia/Kolkata",
    RATE_LIMIT_DISABLED: "1",
    ADMIN_EMAIL: "admin@remind.test",
    ADMIN_PASSWORD: "Admin-pass-123",
  });
  tdb = await openTestDb(server.dataDir, { write: true });
  const a = api();
  for (const [role, email, accountType] of [
    ["patient", "asha@remind.test", "Patient"],
    ["other", "other@remind.test", "Patient"],
    ["expert", "rao@remind.test", "Expert"],
  ] as const) {
    const r = await signupViaApi(a, smtp, codeFrom, { email, accountType });
    tok[role] = r.token;
    ids[role] = r.user._id;
  }
  tok.admin = (
    await a.post("/auth/login", { email: "admin@remind.test", password: "Admin-pass-123" })
  ).body.token;
  expect((await a.post("/expert/approve-expert", { expertId: ids.expert }, tok.admin)).status).toBe(200);
  const up = await a.call(
    "POST",
    "/report/upload-report",
    uploadForm({ reportType: "Blood Test", phoneNumber: "9876543210" }, { name: "a.pdf", data: samplePdf() }),
    tok.patient,
  );
  ids.report = up.body.data._id;
  expect((await a.post(`/report/claim/${ids.report}`, {}, tok.expert)).status).toBe(200);
  const review = await a.post(
    `/report/add-review/${ids.report}`,
    {
      review: "Sugar is high.",
      nextSteps: [
        { kind: "tests", loincs: [HBA1C], in: 3, unit: "weeks" },
        { kind: "tests", loincs: [GLUCOSE], in: 4, unit: "weeks" },
      ],
    },
    tok.expert,
  );
  expect(review.status, JSON.stringify(review.body)).toBe(200);
  const steps = await tdb.all<{ id: string }>(
    "select id from next_steps where report_id = ? order by position",
    ids.report,
  );
  ids.step = steps[0].id;
  ids.step2 = steps[1].id;
  // Her own number on the profile.
  await tdb.run("update patients set phone = ? where id = ?", PHONE, ids.patient);
}, 120_000);

afterAll(async () => {
  await tdb?.close();
  await server?.stop();
  await kannel?.stop();
  await smtp?.close();
});

describe("a reminder by SMS and her answer", () => {
  it("is sent through the gateway at her hour, days before the due date; a reply 1 closes the step", async () => {
    const a = api();
    // She is reminded at this hour; the first step is due in 3 days and was signed long ago.
    const hour = Math.min(21, Math.max(6, clinicHour()));
    const saved = await a.call(
      "PUT",
      "/profile/reminders",
      { remindBy: "sms", remindHour: hour },
      tok.patient,
    );
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await tdb.run("update patients set remind_hour = ? where id = ?", clinicHour(), ids.patient);
    await tdb.run(
      "update next_steps set due_on = ?, created_at = ? where id = ?",
      clinicDate(3),
      tdb.time(Date.now() - 10 * 86_400_000),
      ids.step,
    );
    const got = await kannel.waitForDelivered(1, 30_000);
    const reminder = got.find((m) => m.receiver === PHONE)!;
    expect(reminder.text).toMatch(/repeat tests is due on \d{4}-\d\d-\d\d\. Reply 1 done, 2 remind me later/);
    expect(reminder.text).not.toMatch(/HbA1c|4548/i);
    await vitest.vi.waitUntil(
      async () =>
        (await tdb.get("select reminders_sent from next_steps where id = ?", ids.step))!.reminders_sent === 1,
      { timeout: 10_000 },
    );
    // Only once, though the scan runs every second.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(kannel.delivered().filter((m) => m.receiver === PHONE)).toHaveLength(1);

    // Kannel's sms-service passes the reply; a wrong key reads nothing.
    const wrong = await fetch(`${server.url}/sms/inbound?key=nope&from=${encodeURIComponent(PHONE)}&text=1`);
    expect(wrong.status).toBe(403);
    const reply = await fetch(
      `${server.url}/sms/inbound?key=${KEY}&from=${encodeURIComponent(PHONE)}&text=1`,
    );
    expect(reply.status).toBe(200);
    expect(await reply.text()).toMatch(/noted that it is done/);
    const row = await tdb.get("select state from next_steps where id = ?", ids.step);
    expect(row!.state).toBe("done");
    const trail = await tdb.all("select action from audit_events where subject_id = ?", ids.patient);
    expect(trail.map((e) => e.action)).toEqual(
      expect.arrayContaining(["patient.step_reminded", "patient.step_answered"]),
    );
  });
});

describe("preferences", () => {
  it("she reads and sets them; a bad hour is a field error; another patient and strangers are refused", async () => {
    const a = api();
    const mine = await a.call("GET", "/profile/reminders", undefined, tok.patient);
    expect(mine.status).toBe(200);
    expect(mine.body.data).toMatchObject({ remindBy: "sms" });
    const bad = await a.call(
      "PUT",
      "/profile/reminders",
      { remindBy: "pigeon", remindHour: 30 } as never,
      tok.patient,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors ?? bad.body.fieldErrors ?? bad.body).toBeTruthy();
    expect(JSON.stringify(bad.body)).toMatch(/remindHour/);
    expect(
      (await a.call("GET", `/profile/reminders?patientId=${ids.patient}`, undefined, tok.other)).status,
    ).toBe(404);
    expect(
      (
        await a.call(
          "PUT",
          `/profile/reminders?patientId=${ids.patient}`,
          { remindBy: "none", remindHour: 9 },
          tok.other,
        )
      ).status,
    ).toBe(404);
    expect((await a.call("GET", "/profile/reminders")).status).toBe(401);
    const cut = await fetch(`${server.url}/api/v1/profile/reminders`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${tok.patient}`, "Content-Type": "application/json" },
      body: '{"remindBy": "sm',
    });
    expect(cut.status).toBe(400);
  });

  it("one step's reminders off: hers to switch, refused to another patient and the expert", async () => {
    const a = api();
    const off = await a.call("POST", `/steps/${ids.step2}/reminders`, { off: true }, tok.patient);
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data.remindOff).toBe(true);
    expect(
      (await a.call("POST", `/steps/${ids.step2}/reminders`, { off: "yes" } as never, tok.patient)).status,
    ).toBe(400);
    expect((await a.call("POST", `/steps/${ids.step2}/reminders`, { off: true }, tok.other)).status).toBe(
      404,
    );
    expect((await a.call("POST", `/steps/${ids.step2}/reminders`, { off: true }, tok.expert)).status).toBe(
      404,
    );
    expect((await a.call("POST", `/steps/unknown/reminders`, { off: true }, tok.patient)).status).toBe(404);
    expect((await a.call("POST", `/steps/${ids.step2}/reminders`, { off: false }, tok.patient)).status).toBe(
      200,
    );
  });
});

describe("the repeat report", () => {
  it("is offered for the step whose analytes it holds; attached, the step is done and the expert who asked holds it", async () => {
    const a = api();
    const up = await a.call(
      "POST",
      "/report/upload-report",
      uploadForm(
        { reportType: "Blood Test", phoneNumber: "9876543210" },
        { name: "b.pdf", data: samplePdf() },
      ),
      tok.patient,
    );
    const repeat = up.body.data._id as string;
    await tdb.run(
      "insert into lab_values (id, report_id, loinc, value, unit) values (?, ?, ?, ?, ?)",
      `lv-${repeat}`,
      repeat,
      GLUCOSE,
      6.2,
      "mmol/L",
    );
    const offers = await a.call("GET", `/step-offers/${repeat}`, undefined, tok.patient);
    expect(offers.status).toBe(200);
    expect(offers.body.data.map((o: any) => [o.step._id, o.loincs])).toEqual([[ids.step2, [GLUCOSE]]]);
    expect((await a.call("GET", `/step-offers/${repeat}`, undefined, tok.other)).status).toBe(404);
    expect((await a.call("POST", `/steps/${ids.step2}/attach`, { reportId: repeat }, tok.other)).status).toBe(
      404,
    );
    expect(
      (await a.call("POST", `/steps/${ids.step2}/attach`, { reportId: ids.report }, tok.patient)).status,
    ).toBe(400);
    // Her screen offers it on the new report's card, in her language, and attaches it without script.
    const her = new Browserish(server.url);
    expect((await her.post("/login", { email: "asha@remind.test", password: strongPassword })).status).toBe(
      302,
    );
    const path = `/dashboard/previous-report/${ids.patient}`;
    const hindi = pageText(await (await her.inLanguage("hi").fetch(path)).text());
    expect(hindi).toContain("आपकी दोबारा जाँच");
    expect(hindi).toContain("इस कदम से जोड़ें");
    // Another patient posting the offer through her own page: refused, nothing attached.
    const o = new Browserish(server.url);
    expect((await o.post("/login", { email: "other@remind.test", password: strongPassword })).status).toBe(
      302,
    );
    const refused = await o.post(`/dashboard/previous-report/${ids.other}`, {
      intent: "step-attach",
      reportId: repeat,
      stepId: ids.step2,
    });
    expect(refused.status).toBe(302);
    expect(
      (await tdb.get("select attached_report_id from next_steps where id = ?", ids.step2))!
        .attached_report_id,
    ).toBeNull();
    const attached = await her.post(path, { intent: "step-attach", reportId: repeat, stepId: ids.step2 });
    expect(attached.status).toBe(302);
    expect(attached.headers.get("location")).toContain(`#report-${repeat}`);
    const step = await tdb.get("select state, attached_report_id from next_steps where id = ?", ids.step2);
    expect(step).toMatchObject({ state: "done", attached_report_id: repeat });
    // Offered no more, on the screen or through the API; attaching again is refused.
    expect(pageText(await (await her.fetch(path)).text())).not.toContain("Attach to this step");
    expect((await a.call("GET", `/step-offers/${repeat}`, undefined, tok.patient)).body.data).toEqual([]);
    const again = await a.call("POST", `/steps/${ids.step2}/attach`, { reportId: repeat }, tok.patient);
    expect(again.status).toBe(400);
    const report = await tdb.get("select claimed_by from reports where id = ?", repeat);
    expect(report!.claimed_by).toBe(ids.expert);
    // In the queue it is that expert's, under a live claim.
    const queue = await a.call("GET", "/report/get-pending-reports", undefined, tok.expert);
    const listed = (queue.body.data as any[]).find((r) => r._id === repeat);
    expect(listed?.claimedBy?._id).toBe(ids.expert);
  });
});
