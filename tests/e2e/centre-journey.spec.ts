import { expect, request, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import hi from "../../app/i18n/locales/hi";
import { insertCentre, makeHealthWorker } from "../helpers/centre-data";
import { openTestDb, type TestDb } from "../helpers/db";
import { startKannel, type Kannel } from "../helpers/kannel";
import { spawnApp, type AppProcess } from "../helpers/server";
import { wcagAxe } from "./axe";
import { approvedExpertVia, mailedCode, phonePhoto, smsBox, staffApi, type StaffApi } from "./fixtures";
import { shot } from "./helpers";
import { requireKannel } from "../helpers/requires";

// Needs Kannel (the real SMS gateway): skipped without it, naming the package, except under CI.
test.skip(!requireKannel(), "needs Kannel: apt-get install -y kannel kannel-extras");

/**
 * A health worker at a Health & Wellness Centre, in Hindi at 360 px, against a real Kannel: registers
 * an elderly woman who has no phone after witnessed spoken consent, uploads a photo of her report
 * from the patient page, an expert claims and reviews it, the worker gets the SMS, opens the A4
 * print view and fetches the letter (its text checked with pdftotext). Then axe on the centre's
 * screens in all four languages. This file starts its own app (with SMS_URL) and Kannel.
 */

test.describe.configure({ mode: "serial" });

const ADMIN = { email: "admin@centre-journey.test", password: "Admin-pass-2026" };
const PASSWORD = "Village-pass-2026";
const CENTRE = { id: "c00000000000000000000e2e", name: "आयुष्मान आरोग्य मंदिर रामपुर" };
let kannel: Kannel;
let app: AppProcess;
let root: string;
let db: TestDb;
let staff: APIRequestContext;
const worker = { national: `97${String(Date.now()).slice(-8)}`, id: "" };
const journey: { patientId?: string; reportId?: string; shortId?: string } = {};

const { received, sms } = smsBox(() => kannel);
const api: StaffApi = (...args) => staffApi(staff)(...args);

/** The health worker: a mobile signup (SMS code), then made an approved CHO of the centre, notices by SMS. */
async function makeWorker() {
  const phone = `+91${worker.national}`;
  expect((await api("post", "/auth/send-otp", { phone: worker.national })).status).toBe(200);
  const code = /\b(\d{6})\b/.exec((await sms(phone, /\d{6}/, 0)).text)![1];
  const signup = await api("post", "/auth/signup", {
    accountType: "Patient",
    firstName: "सुनीता",
    lastName: "यादव",
    phone,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    otp: code,
  });
  expect(signup.status).toBe(201);
  worker.id = signup.body.data._id;
  await insertCentre(db, { ...CENTRE, district: "सीतापुर", state: "उत्तर प्रदेश" });
  await makeHealthWorker(db, worker.id, CENTRE.id, { workerId: "CHO-101", notify: "sms" });
  await db.run("UPDATE users SET locale = 'hi' WHERE id = ?", worker.id);
}

const approvedExpert = () =>
  approvedExpertVia(api, app.dataDir, ADMIN, { email: "expert@centre-journey.test", password: PASSWORD });

async function screen(page: Page, info: TestInfo, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, info, name);
}

async function workerPage(browserNew: () => Promise<Page>, lang = "hi") {
  const page = await browserNew();
  await page.goto(`${app.url}/login`);
  await page.locator("input[name=email]").fill(worker.national);
  await page.locator("input[name=password]").fill(PASSWORD);
  await page.locator("form button[type=submit]").last().click();
  await expect(page).toHaveURL(/\/dashboard/);
  if (lang !== "hi") {
    await page.context().addCookies([
      {
        name: "lng",
        value: encodeURIComponent(Buffer.from(JSON.stringify(lang)).toString("base64")),
        url: app.url,
      },
    ]);
  }
  return page;
}

test.beforeAll(async () => {
  test.skip(test.info().project.name !== "phone", "the centre journey runs at 360 px");
  test.setTimeout(120_000);
  kannel = await startKannel();
  root = mkdtempSync(path.join(os.tmpdir(), "carebridge-centre-"));
  app = await spawnApp(root, {
    SMS_URL: kannel.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_DISABLED: "1",
    WEB_CONCURRENCY: "2",
  });
  staff = await request.newContext({ baseURL: app.url, extraHTTPHeaders: { "Accept-Language": "en" } });
  db = await openTestDb(app.dataDir, { write: true });
  await makeWorker();
});

test.afterAll(async () => {
  await db?.close();
  if (app && app.child.exitCode === null) {
    app.child.kill("SIGTERM");
    await Promise.race([app.exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  await staff?.dispose();
  await kannel?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

test("a health worker registers an elderly woman without a phone, submits her report and prints the answer (Hindi, 360 px)", async ({
  browser,
}, info) => {
  test.setTimeout(240_000);
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
    locale: "hi-IN",
  });
  const page = await workerPage(() => context.newPage());

  // 1. Consent first: the text in Hindi, large, read aloud; witnessed spoken consent.
  await page.goto(`${app.url}/dashboard/centre/register?lang=hi`);
  await expect(page.locator("html")).toHaveAttribute("lang", "hi");
  await expect(page.getByTestId("consent-text")).toContainText(hi.registration.consentQuestion);
  // The text is named by its date, in Hindi, never by its code; the photo's picker is a Hindi button
  // over the browser's own (English) one, which is hidden but still sends the file.
  await expect(page.locator("main")).toContainText("नवंबर 2026 का सहमति पाठ");
  await expect(page.locator("main")).not.toContainText("facilitated-2026-11");
  await expect(page.getByTestId("file-picker-button")).toHaveText(hi.common.chooseFile);
  expect((await page.locator("input#evidence").boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
  await screen(page, info, "centre-register-hi");
  await page.locator("label:has(input[name=consent][value=granted])").click();
  await page.locator("label:has(input[name=consentMethod][value=witnessed])").click();
  await page.locator("input[name=witnessName]").fill("गीता (आशा)");
  await page.locator("input[name=firstName]").fill("कमला");
  await page.locator("input[name=lastName]").fill("देवी");
  await page.locator("label:has(input[name=sex][value=female])").click();
  await page.locator("input[name=age]").fill("74");
  await page.locator("input[name=locality]").fill("रामपुर");
  await page.locator("label:has(input[name=phoneOwner][value=none])").click();
  await page.getByRole("button", { name: hi.registration.registerButton }).click();

  // 2. The slip: the short ID large, the centre, how the answer comes back (no phone: come back).
  await expect(page).toHaveURL(/\/dashboard\/centre\/patients\/[0-9a-f]{24}\/slip$/);
  const slip = page.getByTestId("slip");
  await expect(slip).toContainText(CENTRE.name);
  await expect(slip).toContainText(hi.registration.slipHowBack);
  journey.shortId = (await page.getByTestId("slip-short-id").innerText()).trim();
  expect(journey.shortId).toMatch(/^CB-[0-9A-Z]{4}-[0-9A-Z]{2}$/);
  journey.patientId = /patients\/([0-9a-f]{24})\/slip/.exec(page.url())![1];
  await screen(page, info, "centre-slip-hi");
  // Printed with its take-over code (decision 0073): shown on this answer only.
  await page.getByTestId("slip-print").click();
  await expect(page.getByTestId("slip-code")).toHaveText(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{2}$/);
  await screen(page, info, "centre-slip-code-hi");

  // 3. From her page, the upload with her preselected: a photo of the report.
  await page.getByRole("link", { name: hi.registration.backToPatient }).click();
  await expect(page.getByTestId("consent-line")).toContainText("गीता (आशा)");
  await screen(page, info, "centre-patient-hi");
  await page.getByRole("link", { name: hi.registration.uploadForPatient }).first().click();
  await expect(page.getByTestId("whose-report")).toHaveValue(journey.patientId);
  // She has no phone: the number is empty (never the worker's own), and the form speaks of the patient.
  await expect(page.locator("input[name=phoneNumber]")).toHaveValue("");
  await expect(page.locator("main")).toContainText(hi.reports.phoneHintPatient);
  await expect(page.locator("main")).toContainText(hi.reports.uploadIntroPatient);
  await expect(page.locator("main")).toContainText(hi.reports.consentLabelPatient);
  await expect(page.locator("main")).not.toContainText(hi.reports.phoneHint);
  await expect(page.getByTestId("file-picker-button")).toHaveText(hi.common.chooseFile);
  await page.locator("select[name=reportType]").selectOption("Blood Test");
  const photo = await phonePhoto(page);
  await page
    .locator("input[name=report]")
    .setInputFiles({ name: "report.jpg", mimeType: "image/jpeg", buffer: photo });
  await page.locator("input[name=phoneNumber]").fill("9876543210");
  await page.locator("input[name=consent]").check();
  await screen(page, info, "centre-upload-hi");
  await page.locator("form#upload-report button[type=submit]").click();
  await expect(page).toHaveURL(/\/report-submitted/, { timeout: 60_000 });
  const row = await db.get<{ id: string; mime_type: string; size: number }>(
    "SELECT id, mime_type, size FROM reports WHERE patient_id = ?",
    journey.patientId,
  );
  expect(row).toBeTruthy();
  expect(row!.size).toBeLessThan(photo.length); // made smaller in the browser
  journey.reportId = row!.id;

  // 4. An expert claims and reviews it.
  const expert = await approvedExpert();
  const before = received(`+91${worker.national}`).length;
  expect((await api("post", `/report/claim/${journey.reportId}`, {}, expert)).status).toBe(200);
  const reviewed = await api(
    "post",
    `/report/add-review/${journey.reportId}`,
    {
      review: "Haemoglobin is a little low.",
      findings: "Hb 10.4 g/dL",
      recommendations: "Iron-rich food; repeat in 8 weeks.",
      seeDoctorSoon: true,
    },
    expert,
  );
  expect(reviewed.status).toBe(200);

  // 5. The worker's phone gets the SMS (Hindi, UCS-2), naming no patient.
  const notice = await sms(`+91${worker.national}`, new RegExp(journey.shortId!), before);
  expect(notice.coding).toBe("ucs-2");
  expect(notice.text).not.toContain("कमला");
  // Its short link opens the centre's queue (/m/c), where the worker is taken after signing in.
  const link = /https?:\/\/\S+\/m\/c\b/.exec(notice.text)?.[0];
  expect(link).toBeTruthy();

  // 6. The queue says the opinion is ready; the print view and the letter.
  await page.goto(`${app.url}/dashboard/centre`);
  await expect(page.getByTestId("opinion-ready").first()).toBeVisible();
  await screen(page, info, "centre-queue-hi");
  // Her page tells the worker what the expert advises the patient, not "you".
  await page.goto(`${app.url}/dashboard/centre/patients/${journey.patientId}`);
  await expect(page.getByTestId("see-doctor-soon")).toContainText(hi.opinion.seeDoctorSoonNoticePatient);
  await page.goto(
    `${app.url}/dashboard/centre/patients/${journey.patientId}/reports/${journey.reportId}/print`,
  );
  const printed = page.getByTestId("print-opinion");
  await expect(printed).toContainText("Haemoglobin is a little low.");
  // Her only opinion is the first, as the case screens call it; the reviewer is named once.
  await expect(printed.locator("h1")).toHaveText(hi.registration.printTitle);
  await expect(printed).toContainText(hi.opinion.seeDoctorSoonNoticePatient);
  expect((await printed.innerText()).split("Kavitha Rao").length - 1).toBe(1);
  await expect(page.getByTestId("verify-line")).toContainText(/[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/);
  await screen(page, info, "centre-print-hi");
  await page.emulateMedia({ media: "print" });
  await shot(page, info, "centre-print-paper-hi");
  await page.emulateMedia({ media: "screen" });
  const pdf = await page.request.get(`${app.url}/api/v1/report/${journey.reportId}/opinion.pdf`);
  expect(pdf.status()).toBe(200);
  const dir = mkdtempSync(path.join(os.tmpdir(), "cb-centre-letter-"));
  try {
    const file = path.join(dir, "letter.pdf");
    writeFileSync(file, await pdf.body());
    const text = execFileSync("pdftotext", [file, "-"], { encoding: "utf8" });
    for (const expected of [hi.letter.title, "कमला देवी", "Haemoglobin is a little low.", "Iron-rich food"])
      expect(text.replace(/\s+/g, " ")).toContain(expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The language menu closes once a language is chosen.
  const menu = page.locator("details").filter({ has: page.locator('form[action="/set-language"]') });
  await menu.locator("summary").click();
  await menu.getByRole("button", { name: "English" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(menu).not.toHaveAttribute("open", "");
  // Back to Hindi (the account keeps the language it chose last).
  await menu.locator("summary").click();
  await menu.getByRole("button", { name: "हिन्दी" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "hi");
  await expect(menu).not.toHaveAttribute("open", "");
  await context.close();
});

test("the admin sees health workers waiting for approval counted in the sidebar and on Home", async ({
  browser,
}, info) => {
  const email = "waiting-cho@centre-journey.test";
  expect((await api("post", "/auth/send-otp", { email })).status).toBe(200);
  const signup = await api("post", "/auth/signup", {
    accountType: "Patient",
    firstName: "Rekha",
    lastName: "Waiting",
    email,
    contactNumber: "9876543210",
    password: PASSWORD,
    confirmPassword: PASSWORD,
    otp: await mailedCode(app.dataDir, email),
  });
  expect(signup.status).toBe(201);
  const id = signup.body.data._id as string;
  await db.run("DELETE FROM patients WHERE id = ?", id);
  await db.run(
    "UPDATE users SET account_type = 'HealthWorker', approved = ? WHERE id = ?",
    db.kind === "sqlite" ? 0 : false,
    id,
  );
  await db.run(
    "INSERT INTO health_workers (user_id, centre_id, role, worker_id, updated_at) VALUES (?, ?, 'asha', 'ASHA-7', ?)",
    id,
    CENTRE.id,
    db.time(Date.now()),
  );
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true });
  const page = await context.newPage();
  await page.goto(`${app.url}/login`);
  await page.locator("input[name=email]").fill(ADMIN.email);
  await page.locator("input[name=password]").fill(ADMIN.password);
  await page.locator("form button[type=submit]").last().click();
  await expect(page).toHaveURL(/\/dashboard\/home$/);
  const home = page.getByTestId("waiting-approvals");
  await expect(home.getByRole("link", { name: "Health workers waiting for approval: 1" })).toHaveAttribute(
    "href",
    "/dashboard/centres/workers",
  );
  await page.locator("aside summary", { hasText: "Menu" }).click(); // the phone's menu
  const entry = page
    .getByRole("navigation", { name: "Dashboard navigation" })
    .getByRole("link", { name: /Health workers waiting/ });
  await expect(entry).toHaveAttribute("href", "/dashboard/centres/workers");
  await expect(entry.getByTestId("nav-count")).toHaveText("1");
  await screen(page, info, "admin-home-waiting-workers");
  await entry.click();
  await expect(page.locator("main")).toContainText("Rekha Waiting");
  await context.close();
});

for (const lang of ["en", "hi", "bn", "ta"]) {
  test(`the centre's screens pass axe in ${lang}`, async ({ browser }, info) => {
    test.skip(!journey.patientId || !journey.reportId, "needs the journey's patient");
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true });
    const page = await workerPage(() => context.newPage(), lang);
    for (const [name, url] of [
      ["register", "/dashboard/centre/register"],
      ["queue", "/dashboard/centre"],
      ["patient", `/dashboard/centre/patients/${journey.patientId}`],
      ["slip", `/dashboard/centre/patients/${journey.patientId}/slip`],
      ["print", `/dashboard/centre/patients/${journey.patientId}/reports/${journey.reportId}/print`],
      ["upload", `/dashboard/upload-report?patient=${journey.patientId}`],
    ] as const) {
      await page.goto(`${app.url}${url}`);
      await expect(page.locator("html")).toHaveAttribute("lang", lang);
      const result = await wcagAxe(page).analyze();
      expect(
        result.violations.map(
          (v) => `${name} [${lang}] ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`,
        ),
      ).toEqual([]);
      if (lang !== "hi") await screen(page, info, `centre-${name}-${lang}`);
      if (lang === "en") {
        // The same screen on a desktop, to look at.
        await page.setViewportSize({ width: 1280, height: 800 });
        await screen(page, info, `centre-${name}-en-1280`);
        await page.setViewportSize({ width: 360, height: 740 });
      }
    }
    await context.close();
  });
}
