import {
  expect,
  request,
  test,
  type APIRequestContext,
  type CDPSession,
  type Page,
  type TestInfo,
} from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startKannel, type DeliveredSms, type Kannel } from "../helpers/kannel";
import { freePort, spawnApp, type AppProcess } from "../helpers/server";
import { startSlowProxy, type SlowProxy } from "../helpers/slow-proxy";
import { approvedExpertVia, phonePhoto, smsBox, staffApi, type StaffApi } from "./fixtures";
import { shot } from "./helpers";
import { requireKannel } from "../helpers/requires";

// Needs Kannel (the real SMS gateway): skipped without it, naming the package, except under CI.
test.skip(!requireKannel(), "needs Kannel: apt-get install -y kannel kannel-extras");

/**
 * The phone-only patient, in Chromium at 360 px, in English and in Hindi, against a
 * real Kannel (fakesmsc as the operator): sign up with a mobile number and the SMS code, upload a
 * phone photo over a throttled connection that is cut and comes back, receive the "opinion ready"
 * SMS when an expert has answered, and log in again with the number and an SMS code by following
 * the SMS's link. This file starts its own app (with SMS_URL) and Kannel, and stops them.
 */

test.describe.configure({ mode: "serial" });

const ADMIN = { email: "admin@journey.test", password: "Admin-pass-2026" };
const PASSWORD = "Village-pass-2026";
let kannel: Kannel;
let app: AppProcess;
let root: string;
/** The browser's link to the app, cut during the upload (what reached the app before stays there). */
let link: SlowProxy;
/** Where the browser reaches the app (through the link). */
let base: string;
/** The expert's and the admin's API calls: straight to the app, in English (not on the patient's phone). */
let staff: APIRequestContext;

test.beforeAll(async () => {
  // The phone-first journey runs at 360 px: no app and no Kannel for the desktop project.
  test.skip(test.info().project.name !== "phone", "the phone-first journey runs at 360 px");
  test.setTimeout(90_000);
  kannel = await startKannel();
  root = mkdtempSync(path.join(os.tmpdir(), "carebridge-journey-"));
  const linkPort = await freePort();
  base = `http://127.0.0.1:${linkPort}`;
  app = await spawnApp(root, {
    APP_URL: base,
    SMS_URL: kannel.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_DISABLED: "1",
    WEB_CONCURRENCY: "2",
  });
  link = await startSlowProxy(app.port, linkPort);
  staff = await request.newContext({ baseURL: app.url, extraHTTPHeaders: { "Accept-Language": "en" } });
});

test.afterAll(async () => {
  if (app && app.child.exitCode === null) {
    app.child.kill("SIGTERM");
    await Promise.race([app.exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  await staff?.dispose();
  await link?.stop();
  await kannel?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

const { received, sms } = smsBox(() => kannel);
const codeOf = (m: DeliveredSms) => /\b(\d{6})\b/.exec(m.text)![1];
const api: StaffApi = (...args) => staffApi(staff)(...args);

/** An approved expert who reads blood tests, made through the API (the admin approves). */
const approvedExpert = (tag: string) =>
  approvedExpertVia(api, app.dataDir, ADMIN, { email: `expert-${tag}@journey.test`, password: PASSWORD });

/** A full-page screenshot from the page's top (else the sticky header is drawn where the page was scrolled to). */
async function screen(page: Page, info: TestInfo, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, info, name);
}

/** The phone's upload speed in bytes per second (Chromium's throttling); 0 = offline; null = unthrottled. */
async function network(cdp: CDPSession, bytesPerSecond: number | null) {
  await cdp.send("Network.emulateNetworkConditions", {
    offline: bytesPerSecond === 0,
    latency: bytesPerSecond === null ? 0 : 150,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond === null || bytesPerSecond === 0 ? -1 : bytesPerSecond,
  });
}

const percent = async (page: Page) =>
  Number(await page.getByTestId("upload-progress").getAttribute("data-percent"));

/**
 * The journey runs once, in Hindi: the language a phone-only patient most often reads here, and the
 * one whose messages travel as UCS-2. Each language's SMS (its wording, coding and segments) is
 * checked against the real gateway in tests/integration/sms.test.ts, each screen's words in every
 * language by languages.spec.ts (decision 0099).
 */
const LANGUAGES = [
  {
    lang: "hi",
    locale: "hi-IN",
    smsCoding: "ucs-2",
    verifyTitle: /मोबाइल नंबर/,
    submitted: /[\u0900-\u097F]/,
    opinionReady: /CareBridge/,
  },
] as const;

for (const L of LANGUAGES) {
  test(`a phone-only patient in ${L.lang}: mobile signup, photo over a cut connection, "opinion ready" SMS, login by SMS code`, async ({
    browser,
  }, info) => {
    test.setTimeout(240_000);
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      locale: L.locale,
    });
    const page = await context.newPage();
    const national = `98${String(Date.now()).slice(-8)}`;
    const phone = `+91${national}`;
    const name = `journey-${L.lang}`;

    // 1. Sign up with a mobile number: no e-mail anywhere.
    await page.goto(`${base}/signup`);
    await expect(page.locator("html")).toHaveAttribute("lang", L.lang);
    await page.locator("label:has(input[name=signupWith][value=phone])").click();
    await expect(page.locator("input[name=email]")).toBeHidden();
    await page.locator("input[name=firstName]").fill("Lakshmi");
    await page.locator("input[name=lastName]").fill("Devi");
    await expect(page.locator("select[name=mobileCountryCode]")).toHaveValue("+91");
    await page.locator("input[name=mobileNumber]").fill(`${national.slice(0, 5)} ${national.slice(5)}`);
    await page.locator("input[name=password]").fill(PASSWORD);
    await page.locator("input[name=confirmPassword]").fill(PASSWORD);
    await screen(page, info, `journey-${L.lang}-1-signup`);
    const before = received(phone).length;
    await page.locator("main button[type=submit]").last().click();
    await expect(page).toHaveURL(/\/verify-email$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(L.verifyTitle);
    await expect(page.locator("main")).toContainText(national.slice(-4));
    // A number is verified here, not an e-mail address.
    await expect(page.locator("button[name=intent][value=verify]")).not.toContainText(/mail|मेल/i);
    const signupSms = await sms(phone, /\d{6}/, before);
    expect(signupSms.coding).toBe(L.smsCoding);
    expect(signupSms.parts).toBe(1);
    await screen(page, info, `journey-${L.lang}-2-code`);
    const code = codeOf(signupSms);
    for (let i = 0; i < 6; i++) await page.locator(`input[name=d${i + 1}]`).fill(code[i]);
    await page.locator("button[name=intent][value=verify]").click();
    await expect(page).toHaveURL(/\/login$/);

    // Password login with the mobile number in the e-mail field.
    await page.locator("input[name=email]").fill(national);
    await page.locator("input[name=password]").fill(PASSWORD);
    await page.locator("main button[type=submit]").first().click();
    await expect(page).toHaveURL(/\/dashboard\/home$/);

    // 2. A phone photo over a slow link (50 kbit/s) that drops mid-way and comes back.
    await page.goto(`${base}/dashboard/upload-report`);
    const photo = await phonePhoto(page);
    await page.locator("select[name=reportType]").selectOption("Blood Test");
    await page.locator("textarea[name=description]").fill(`Sugar and haemoglobin ${name}`);
    await page.locator("input[name=consent]").check();
    await page
      .locator("input[type=file]")
      .setInputFiles({ name: "IMG_20261123.jpg", mimeType: "image/jpeg", buffer: photo });
    await expect(page.getByTestId("photo-size")).toBeVisible({ timeout: 20_000 });
    const patches: number[] = [];
    const heads: number[] = [];
    page.on("request", (r) => {
      if (r.method() === "PATCH" && r.url().includes("/api/v1/uploads/"))
        patches.push(Number(r.headers()["upload-offset"]));
    });
    page.on("response", (r) => {
      if (r.request().method() === "HEAD" && r.url().includes("/api/v1/uploads/"))
        heads.push(Number(r.headers()["upload-offset"]));
    });
    // The phone's own upload speed (Chromium's throttling: the progress shown is what really left).
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await network(cdp, 6_250); // 50 kbit/s
    const sentBefore = link.bytesUp();
    await page.locator("main button[type=submit]").last().click();
    await expect(page.getByTestId("upload-progress")).toBeVisible();
    // A good part of the photo has reached the server, then the signal is lost: the link drops
    // (what reached the server stays there) and the phone knows it is offline.
    await expect.poll(() => link.bytesUp() - sentBefore, { timeout: 60_000 }).toBeGreaterThan(100_000);
    // Offline only once the PATCH has failed: Chromium's offline emulation would let a request it
    // is throttling finish at once (the whole photo would arrive, nothing left to resume). Being
    // offline, the page waits at once instead of after tus-js-client's ~35 s of retries.
    const failed = page.waitForEvent("requestfailed", (r) => r.method() === "PATCH");
    link.cut();
    await failed;
    await network(cdp, 0);
    const waiting = page.getByTestId("upload-waiting");
    await expect(waiting).toBeVisible({ timeout: 20_000 });
    const stopped = await percent(page);
    expect(stopped).toBeGreaterThan(20);
    expect(stopped).toBeLessThan(100);
    await screen(page, info, `journey-${L.lang}-3-upload-waiting`);
    await page.waitForTimeout(1_500);
    expect(await percent(page)).toBe(stopped); // nothing moves while offline
    // The signal comes back (still slow): the page asks the server where to continue and sends the rest.
    link.restore();
    await network(cdp, 25_000);
    await expect(page).toHaveURL(/\/report-submitted$/, { timeout: 60_000 });
    await network(cdp, null);
    await cdp.detach();
    const resumedAt = heads.find((o) => o > 0);
    expect(resumedAt, "the server kept what arrived before the cut").toBeGreaterThan(50_000);
    expect(patches.filter((o) => o > 0)).toContain(resumedAt);
    await screen(page, info, `journey-${L.lang}-4-submitted`);

    // 3. An expert answers; the patient's phone gets the "opinion ready" SMS (no medical content).
    const expert = await approvedExpert(`${L.lang}-${Date.now().toString(36)}`);
    const pending = await api("get", "/report/get-pending-reports?pageSize=50", undefined, expert);
    const report = pending.body.data.find(
      (r: { description: string }) => r.description === `Sugar and haemoglobin ${name}`,
    );
    expect(report, "the uploaded photo is in the expert's queue").toBeTruthy();
    expect((await api("post", `/report/claim/${report._id}`, {}, expert)).status).toBe(200);
    const beforeReady = received(phone).length;
    const review = await api(
      "post",
      `/report/add-review/${report._id}`,
      {
        review: "Haemoglobin is slightly low. Eat iron-rich food and repeat the test in 3 months.",
        seeDoctorSoon: false,
      },
      expert,
    );
    expect(review.status).toBe(200);
    const ready = await sms(phone, /\/m\/o/, beforeReady);
    expect(ready.text).toMatch(L.opinionReady);
    expect(ready.coding).toBe(L.smsCoding);
    expect(ready.parts).toBeLessThanOrEqual(2);
    expect(ready.text).not.toMatch(/haemoglobin|iron|blood|sugar/i);
    const smsLink = /https?:\/\/\S+\/m\/o/.exec(ready.text)![0];

    // 4. Log out; the SMS link leads to login; log in again with the number and an SMS code.
    await context.clearCookies();
    await page.goto(smsLink);
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fm%2Fo/);
    await page.locator('a[href^="/login-code"]').click();
    await expect(page).toHaveURL(/\/login-code\?redirectTo=/);
    await page.locator("input[name=mobileNumber]").fill(national);
    await screen(page, info, `journey-${L.lang}-5-login-code`);
    const beforeLogin = received(phone).length;
    await page.locator("button[name=intent][value=send]").click();
    await expect(page.locator("input[name=d1]")).toBeVisible();
    await expect(page.locator("main")).toContainText(national.slice(-4));
    const loginCode = codeOf(await sms(phone, /\d{6}/, beforeLogin));
    for (let i = 0; i < 6; i++) await page.locator(`input[name=d${i + 1}]`).fill(loginCode[i]);
    await screen(page, info, `journey-${L.lang}-6-login-code-entered`);
    await page.locator("button[name=intent][value=verify]").click();
    await expect(page).toHaveURL(/\/dashboard\/previous-report\//);
    await expect(page.getByTestId("opinion").first()).toContainText("Haemoglobin is slightly low");
    await screen(page, info, `journey-${L.lang}-7-opinion`);
    await context.close();
  });
}
