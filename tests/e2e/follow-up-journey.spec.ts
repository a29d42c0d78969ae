import { expect, request, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openTestDb } from "../helpers/db";
import { startKannel, type Kannel } from "../helpers/kannel";
import { LAYOUTS, labPdf, sampleDateOf, truthOf, type Layout } from "../helpers/lab-corpus";
import { requireKannel, requireTool } from "../helpers/requires";
import { spawnApp, type AppProcess } from "../helpers/server";
import { answeringScenario, runSipp, sipPort } from "../helpers/sip-phone";
import { approvedExpertVia, smsBox, staffApi, type StaffApi } from "./fixtures";
import { shot, shotTo, SHOTS_ON } from "./helpers";

/**
 * Follow-up that happens (decision 0114), end to end in one journey on a 360 px phone in Hindi:
 * a patient who signed up with her mobile number uploads a lab report with HbA1c; the expert signs
 * an opinion with "repeat HbA1c in two weeks"; she chooses SMS reminders at her hour and the
 * reminder reaches her phone through the real gateway (Kannel); she switches to a phone call, and
 * on the due day the clinic's SIP line (baresip) calls her phone (sipp), which keys her year of
 * birth and 1 ("done"); she uploads the repeat report, whose card offers to attach it to the step;
 * attached, the same expert holds it and sees the two HbA1c values side by side on one chart.
 * This file starts its own app, Kannel and phone, and stops them.
 */

const sipOk =
  requireTool("baresip", "baresip-core") && requireTool("sipp", "sip-tester") && requireTool("sox", "sox");
test.skip(!requireKannel() || !sipOk, "needs Kannel, baresip, sipp and sox");

test.describe.configure({ mode: "serial" });

const ADMIN = { email: "admin@followup.test", password: "Admin-pass-2026" };
const PASSWORD = "Village-pass-2026";
const HBA1C = "4548-4";
const BIRTH_YEAR = "1979";

let kannel: Kannel;
let app: AppProcess;
let root: string;
let phonePort: number;
let staff: APIRequestContext;
/** The clinic's time zone for this run: one whose hour now is near noon (an hour she may choose). */
let zone: string;

/** A fixed-offset zone (Etc/GMT±N) in which it is now about midday. */
function middayZone(): string {
  const offset = ((12 - new Date().getUTCHours() + 36) % 24) - 12;
  if (offset === 0) return "Etc/UTC";
  return `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}
const clinicHour = () =>
  Number(new Intl.DateTimeFormat("en-GB", { hour: "2-digit", hourCycle: "h23", timeZone: zone }).format());
const clinicDate = (days = 0) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(Date.now() + days * 86_400_000);

/**
 * Two text lab layouts that print HbA1c with different values: the first report, dated on the page,
 * and a repeat whose page prints a later date or none (the chart orders by the printed date).
 */
function twoHbA1cLayouts(): [Layout, string, Layout, string] {
  const found = LAYOUTS.map((l) => ({
    layout: l,
    value: truthOf(l).find((r) => r.analyte === "HbA1c")?.value,
    date: sampleDateOf(l),
  })).filter((x): x is { layout: Layout; value: string; date: string | null } => !!x.value);
  for (const first of found.filter((x) => x.date))
    for (const repeat of found)
      if (repeat.value !== first.value && (!repeat.date || repeat.date > first.date!))
        return [first.layout, first.value, repeat.layout, repeat.value];
  throw new Error("the lab corpus has no dated HbA1c layout with a later repeat of another value");
}

test.beforeAll(async () => {
  test.skip(test.info().project.name !== "phone", "the follow-up journey runs at 360 px");
  test.setTimeout(120_000);
  zone = middayZone();
  kannel = await startKannel();
  root = mkdtempSync(path.join(os.tmpdir(), "carebridge-followup-"));
  const clinicPort = await sipPort();
  do phonePort = await sipPort();
  while (Math.abs(phonePort - clinicPort) < 8 || Math.abs(phonePort + 1000 - clinicPort) < 8);
  let rtpFrom = clinicPort + 100;
  if (Math.abs(phonePort - rtpFrom) < 50 || Math.abs(phonePort + 1000 - rtpFrom) < 50) rtpFrom += 200;
  app = await spawnApp(root, {
    SMS_URL: kannel.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_DISABLED: "1",
    CLINIC_TIME_ZONE: zone,
    // Reminders three days before the due date and on it (the default), looked for every second.
    REMIND_DAYS_BEFORE: "3",
    REMIND_SCAN_SECONDS: "1",
    // The clinic's SIP line; the phone (sipp) stands for the trunk and the patient's handset.
    VOICE_URL: `sip://clinic@127.0.0.1:${phonePort}?register=no`,
    VOICE_SIP_LISTEN: `127.0.0.1:${clinicPort}`,
    VOICE_NUMBER: "+911140000000",
    VOICE_RTP_PORTS: `${rtpFrom}-${rtpFrom + 39}`,
    VOICE_CALLBACK_SECONDS: "0",
    VOICE_RETRY_SECONDS: "2",
  });
  staff = await request.newContext({ baseURL: app.url, extraHTTPHeaders: { "Accept-Language": "en" } });
});

test.afterAll(async () => {
  if (app && app.child.exitCode === null) {
    app.child.kill("SIGTERM");
    await Promise.race([app.exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  await staff?.dispose();
  await kannel?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

const { received, sms } = smsBox(() => kannel);
const api: StaffApi = (...args) => staffApi(staff)(...args);

/** The expert's checked HbA1c on `reportId`, once the reader has stored it (the API, as his tools would). */
async function confirmHbA1c(reportId: string, token: string) {
  let values: { _id: string; loinc: string }[] = [];
  await expect
    .poll(
      async () => {
        const r = await api("get", `/report/${reportId}/observations`, undefined, token);
        values = (r.body.data ?? []) as typeof values;
        return values.some((v) => v.loinc === HBA1C);
      },
      { timeout: 45_000 },
    )
    .toBe(true);
  const hb = values.find((v) => v.loinc === HBA1C)!;
  const checked = await api(
    "patch",
    `/report/${reportId}/observations/${hb._id}`,
    { action: "confirm" },
    token,
  );
  expect(checked.status, JSON.stringify(checked.body)).toBe(200);
}

/** The language cookie as the switcher sets it. */
const language = (lng: string) => encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));

async function screen(page: Page, info: TestInfo, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, info, name);
}

test("repeat HbA1c in two weeks: reminded by SMS and by call, the repeat report attached, before and after on one chart", async ({
  browser,
}, info) => {
  test.setTimeout(300_000);
  const [firstLayout, firstValue, repeatLayout, repeatValue] = twoHbA1cLayouts();
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
    locale: "hi-IN",
  });
  const page = await context.newPage();
  const national = `97${String(Date.now()).slice(-8)}`;
  const phone = `+91${national}`;

  // 1. She signs up with her mobile number (the SMS code proves it is hers) and gives her year of birth.
  await page.goto(`${app.url}/signup`);
  await expect(page.locator("html")).toHaveAttribute("lang", "hi");
  await page.locator("label:has(input[name=signupWith][value=phone])").click();
  await page.locator("input[name=firstName]").fill("Sunita");
  await page.locator("input[name=lastName]").fill("Bai");
  await page.locator("input[name=mobileNumber]").fill(national);
  await page.locator("input[name=password]").fill(PASSWORD);
  await page.locator("input[name=confirmPassword]").fill(PASSWORD);
  const before = received(phone).length;
  await page.locator("main button[type=submit]").last().click();
  await expect(page).toHaveURL(/\/verify-email$/);
  const code = /\b(\d{6})\b/.exec((await sms(phone, /\d{6}/, before)).text)![1];
  for (let i = 0; i < 6; i++) await page.locator(`input[name=d${i + 1}]`).fill(code[i]);
  await page.locator("button[name=intent][value=verify]").click();
  await expect(page).toHaveURL(/\/login$/);
  await page.locator("input[name=email]").fill(national);
  await page.locator("input[name=password]").fill(PASSWORD);
  await page.locator("main button[type=submit]").first().click();
  await expect(page).toHaveURL(/\/dashboard\/home$/);
  await page.goto(`${app.url}/dashboard/settings`);
  await page.locator("input[name=dateOfBirth]").fill(`${BIRTH_YEAR}-06-15`);
  await page.locator("select[name=gender]").selectOption("Female");
  await page.locator("textarea[name=about]").fill("Diabetes for five years.");
  await page.locator("form:has(input[name=intent][value=profile]) button[type=submit]").click();
  await expect(page.getByTestId("toaster")).toBeVisible();

  // 2. Her first lab report; an expert signs "repeat HbA1c in two weeks".
  const login = await api("post", "/auth/login", { email: national, password: PASSWORD });
  const token = login.body.token as string;
  const mine = `${app.url}/dashboard/previous-report/${encodeURIComponent(login.body.user._id)}`;
  expect(token).toBeTruthy();
  const up = await staff.post("/api/v1/report/upload-report", {
    headers: { Authorization: `Bearer ${token}` },
    multipart: {
      reportType: "Blood Test",
      phoneNumber: national,
      description: "Sugar test",
      report: { name: "sugar.pdf", mimeType: "application/pdf", buffer: await labPdf(firstLayout) },
    },
  });
  expect(up.status(), await up.text()).toBe(201);
  const firstId = (await up.json()).data._id as string;
  const expertEmail = `expert-${Date.now().toString(36)}@followup.test`;
  const expert = await approvedExpertVia(api, app.dataDir, ADMIN, {
    email: expertEmail,
    password: PASSWORD,
    firstName: "Meera",
    lastName: "Iyer",
  });
  expect((await api("post", `/report/claim/${firstId}`, {}, expert)).status).toBe(200);
  await confirmHbA1c(firstId, expert);
  const review = await api(
    "post",
    `/report/add-review/${firstId}`,
    {
      review: "Sugar is high. Repeat the HbA1c in two weeks after the change of medicine.",
      nextSteps: [{ kind: "tests", loincs: [HBA1C], in: 2, unit: "weeks" }],
    },
    expert,
  );
  expect(review.status, JSON.stringify(review.body)).toBe(200);

  // 3. She reads the step in Hindi and chooses SMS reminders at this hour of the clinic's day.
  await page.goto(mine);
  const card = page.locator(`#report-${firstId}`);
  await expect(card.getByTestId("next-step")).toContainText("तीन महीने की औसत शुगर");
  await screen(page, info, "followup-1-step-hi");
  await page.goto(`${app.url}/dashboard/settings#reminders-heading`);
  const reminders = page.locator("#reminders-form");
  await reminders.locator("input[name=remindBy][value=sms]").check();
  await reminders.locator("select[name=remindHour]").selectOption(String(clinicHour()));
  await reminders.locator("button[type=submit]").click();
  await expect(page.getByTestId("toaster")).toContainText("सहेज");

  // Eleven days pass (the test's clock: the opinion is moved back): the step is due in three days.
  const tdb = await openTestDb(app.dataDir, { write: true });
  const beforeReminder = received(phone).length;
  await tdb.run(
    "update next_steps set created_at = ?, due_on = ? where report_id = ?",
    tdb.time(Date.now() - 11 * 86_400_000),
    clinicDate(3),
    firstId,
  );

  // 4. The reminder reaches her phone through the gateway, in Hindi, naming no test.
  const reminder = await sms(phone, /1.*2.*3/s, beforeReminder);
  expect(reminder.text).toMatch(/[\u0900-\u097F]/);
  expect(reminder.text).not.toMatch(/HbA1c|4548|sugar/i);

  // 5. She switches to a phone call. Three more days pass: the step is due today.
  await page.goto(`${app.url}/dashboard/settings#reminders-heading`);
  await reminders.locator("input[name=remindBy][value=call]").check();
  await reminders.locator("button[type=submit]").click();
  await expect(page.getByTestId("toaster")).toContainText("सहेज");
  await expect(reminders.locator("input[name=remindBy][value=call]")).toBeChecked();
  const dir = mkdtempSync(path.join(root, "phone-"));
  const call = runSipp(
    dir,
    "phone",
    answeringScenario([
      { wait: 2500 },
      { keys: BIRTH_YEAR },
      { wait: 6000 },
      { keys: "1" },
      { wait: 4000 },
      "hang up",
    ]),
    phonePort,
  );
  try {
    await tdb.run("update next_steps set due_on = ? where report_id = ?", clinicDate(0), firstId);
    const answered = await Promise.race([
      call.done,
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`no call reached the phone:\n${call.messages().slice(-3000)}`)),
          90_000,
        ),
      ),
    ]);
    expect(answered.code, answered.output).toBe(0);
    await expect
      .poll(async () => (await tdb.get("select state from next_steps where report_id = ?", firstId))?.state, {
        timeout: 20_000,
      })
      .toBe("done");
    const trail = await tdb.all<{ action: string; detail: string }>(
      "select action, detail from audit_events where action in ('patient.step_reminded', 'patient.step_answered') order by created_at",
    );
    expect(trail.map((t) => t.action)).toEqual(
      expect.arrayContaining(["patient.step_reminded", "patient.step_answered"]),
    );
    expect(trail.some((t) => t.action === "patient.step_reminded" && t.detail.includes("call"))).toBe(true);
  } finally {
    call.stop();
    await tdb.close();
  }
  await page.goto(mine);
  await expect(card.getByTestId("next-step")).toContainText("हो गया");

  // 6. The repeat report, uploaded from her phone; its card offers the step, and she attaches it.
  const second = await staff.post("/api/v1/report/upload-report", {
    headers: { Authorization: `Bearer ${token}` },
    multipart: {
      reportType: "Blood Test",
      phoneNumber: national,
      description: "Repeat sugar test",
      report: { name: "repeat.pdf", mimeType: "application/pdf", buffer: await labPdf(repeatLayout) },
    },
  });
  expect(second.status(), await second.text()).toBe(201);
  const repeatId = (await second.json()).data._id as string;
  const repeatCard = page.locator(`#report-${repeatId}`);
  await expect(async () => {
    await page.goto(mine);
    await expect(repeatCard.getByTestId("attach-offer")).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 45_000 });
  await expect(repeatCard.getByTestId("attach-offer")).toContainText("तीन महीने की औसत शुगर");
  await screen(page, info, "followup-2-offer-hi");
  if (SHOTS_ON) {
    // The offer at 1280 px and in English too, for people to look at.
    await page.setViewportSize({ width: 1280, height: 800 });
    await shotTo(repeatCard, "test-results/screens/phone/followup-2-offer-hi-1280.png");
    await page.context().addCookies([{ name: "lng", value: language("en"), url: app.url }]);
    await page.reload();
    await shotTo(repeatCard, "test-results/screens/phone/followup-2-offer-en-1280.png");
    await page.setViewportSize({ width: 360, height: 740 });
    await shotTo(repeatCard, "test-results/screens/phone/followup-2-offer-en-360.png");
    await page.context().addCookies([{ name: "lng", value: language("hi"), url: app.url }]);
    await page.reload();
  }
  await repeatCard.getByTestId("attach-step").click();
  await expect(page.getByTestId("toaster")).toBeVisible();
  await expect(repeatCard.getByTestId("attach-offer")).toHaveCount(0);

  // 7. The same expert holds the repeat report and sees the two values side by side.
  await confirmHbA1c(repeatId, expert);
  const ec = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-IN" });
  const ep = await ec.newPage();
  await ep.goto(`${app.url}/login`);
  await ep.locator("input[name=email]").fill(expertEmail);
  await ep.locator("input[name=password]").fill(PASSWORD);
  await ep.locator("main button[type=submit]").first().click();
  await expect(ep).toHaveURL(/\/dashboard/);
  await ep.goto(`${app.url}/dashboard/add-review/${repeatId}`);
  const chart = ep.getByTestId("repeat-panel");
  await expect(chart).toBeVisible();
  await expect(chart).toContainText(firstValue);
  await expect(chart).toContainText(repeatValue);
  await shot(ep, info, "followup-3-before-after-1280");
  if (SHOTS_ON) {
    await shotTo(chart, "test-results/screens/phone/followup-3-chart-en-1280.png");
    await ep.setViewportSize({ width: 360, height: 740 });
    await shotTo(chart, "test-results/screens/phone/followup-3-chart-en-360.png");
    await ec.addCookies([{ name: "lng", value: language("hi"), url: app.url }]);
    await ep.reload();
    await shotTo(ep.getByTestId("repeat-panel"), "test-results/screens/phone/followup-3-chart-hi-360.png");
  }
  await ec.close();
  await context.close();
});
