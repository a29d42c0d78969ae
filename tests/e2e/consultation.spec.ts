import {
  expect,
  test,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
  type TestInfo,
} from "@playwright/test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import hi from "../../app/i18n/locales/hi";
import {
  ADMIN,
  hydrated,
  logIn,
  newUser,
  personContext,
  signUp,
  signUpOnScreen,
  type TestUser,
} from "./fixtures";
import { shot, SHOTS_ON } from "./helpers";
import { wcagAxe } from "./axe";

/**
 * The whole consultation, once per project (desktop 1280 px and phone 360 px):
 * a cardiologist signs up with a registration number → the admin approves → a patient who
 * reads Hindi uploads an urgent ECG → only the matching expert is mailed → the cardiologist
 * starts the review (a second expert is refused) → writes the structured opinion → the patient
 * asks a follow-up → the expert answers → the patient downloads the Hindi opinion letter, whose
 * extracted text is checked, and its code verifies publicly.
 */

// An ECG, not a lab report: no values read from it (decision 0090) come before the form.
const PDF = path.join("tests", "fixtures", "ecg-report.pdf");
const suffix = () =>
  Array.from({ length: 5 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");

type World = {
  cardio: TestUser;
  radio: TestUser;
  patient: TestUser;
  reportId: string;
  contexts: BrowserContext[];
  summary: string;
  question: string;
  answer: string;
  code: string;
};
let w: World;

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  const info = test.info();
  w = {
    cardio: {
      ...newUser("Expert", info, "Meera", `Iyer ${suffix()}`),
      specialties: ["Cardiology"],
      registrationNumber: `TNMC-${Math.floor(Math.random() * 90000) + 10000}`,
    },
    radio: { ...newUser("Expert", info, "Arjun", `Das ${suffix()}`), specialties: ["Radiology"] },
    patient: newUser("Patient", info, "Sunita", `Devi ${suffix()}`),
    reportId: "",
    contexts: [],
    summary: "आपकी ईसीजी में धड़कन तेज़ है पर नियमित है।",
    question: "क्या मैं रोज़ सुबह टहल सकती हूँ?",
    answer: "हाँ, धीरे-धीरे 20 मिनट टहलें।",
    code: "",
  };
});

test.afterAll(async () => {
  for (const c of w.contexts) await c.close().catch(() => {});
});

async function context(browser: Browser, info: TestInfo) {
  const c = await personContext(browser, info);
  w.contexts.push(c);
  return c;
}

async function person(browser: Browser, info: TestInfo, who: { email: string; password: string }) {
  const page = await (await context(browser, info)).newPage();
  await logIn(page, who.email, who.password);
  return page;
}

/** Mails in the e2e server's outbox (.eml files) to `email`, written after `since` (ms). */
function outboxTo(email: string, since: number): string[] {
  const tmp = os.tmpdir();
  const out: string[] = [];
  for (const root of readdirSync(tmp).filter((n) => n.startsWith("carebridge-e2e-"))) {
    const dir = path.join(tmp, root, "data", "outbox");
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) {
      const file = path.join(dir, f);
      if (statSync(file).mtimeMs < since) continue;
      const text = readFileSync(file, "utf8");
      if (new RegExp(`^To:.*${email.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "im").test(text))
        out.push(text);
    }
  }
  return out;
}

const toaster = (page: Page) => page.getByTestId("toaster");

/** Where an element's top is on the page (not in the viewport). */
const pageTop = (l: Locator) => l.evaluate((e) => e.getBoundingClientRect().top + window.scrollY);

/**
 * The review screen puts the opinion form first (decision 0058): above "Ask for a second opinion" and
 * the spoken explanation at 1280 and 360 px, in the first screenful at 1280, with the report
 * still in view beside it while the expert writes the summary.
 */
async function expectFormFirst(page: Page, info: TestInfo) {
  const form = page.locator("form", { has: page.locator('textarea[name="review"]') });
  const later = [page.getByTestId("ask-second-opinion"), page.locator(`#voice-${w.reportId}`)];
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 740 });
    const top = await pageTop(form);
    for (const l of later) expect(top).toBeLessThan(await pageTop(l));
    await shot(page, info, `add-review-form-first-${width}`);
    if (width !== 1280) continue;
    expect(top).toBeLessThan(800);
    await page.getByLabel(/^Summary/).focus();
    await page.evaluate(() => window.scrollBy(0, 400));
    // The report, its caption too, in view below the site's header.
    const header = (await page.locator("header").first().boundingBox())!;
    const caption = (await page.locator("#viewer-caption").boundingBox())!;
    const viewer = (await page.getByTestId("report-viewer").boundingBox())!;
    expect(caption.y).toBeGreaterThanOrEqual(header.y + header.height);
    expect(viewer.y + viewer.height).toBeLessThanOrEqual(800);
    await expect(page.getByLabel(/^Summary/)).toBeInViewport();
    // The screenful the expert sees while writing (a full-page shot cannot show what stays in view).
    if (SHOTS_ON)
      await page.screenshot({ path: `test-results/screens/${info.project.name}/add-review-writing.png` });
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** The patient's Previous Reports screen (the id comes from the API's login answer). */
async function openPreviousReports(page: Page, who: TestUser) {
  const login = await page.request.post("/api/v1/auth/login", {
    data: { email: who.email, password: who.password },
  });
  const id = (await login.json()).user._id as string;
  await page.goto(`/dashboard/previous-report/${id}`);
}

test("two specialists sign up with their registration; the admin sees it and approves them", async ({
  browser,
}, info) => {
  for (const e of [w.cardio, w.radio]) {
    const page = await (await context(browser, info)).newPage();
    await signUpOnScreen(page, e);
  }
  const admin = await person(browser, info, ADMIN);
  await admin.goto("/dashboard/pending-expert");
  const row = admin.locator("tr, li").filter({ hasText: w.cardio.email }).first();
  await expect(row).toContainText(w.cardio.registrationNumber!);
  await expect(row).toContainText("Cardiology");
  await expect(row).toContainText("National Medical Commission");
  await shot(admin, info, "pending-expert-details");
  for (const e of [w.cardio, w.radio]) {
    await admin
      .locator("tr, li")
      .filter({ hasText: e.email })
      .first()
      .getByRole("button", { name: /^Approve/ })
      .click();
    await expect(toaster(admin)).toContainText("Expert Approved!");
  }
});

test("a patient reading Hindi uploads an urgent ECG; only the cardiologist is mailed", async ({
  browser,
}, info) => {
  const page = await (await context(browser, info)).newPage();
  await signUp(page, w.patient);
  await logIn(page, w.patient.email, w.patient.password);
  await hydrated(page);
  // Hindi, on the account too (the letter is written in it).
  await page.locator("summary[aria-label*='Change language']").first().click();
  await page.locator('button[name="lng"][value="hi"]').first().click();
  await expect(page.locator("html")).toHaveAttribute("lang", "hi");

  const since = Date.now();
  await page.goto("/dashboard/upload-report");
  await hydrated(page);
  await page.locator('select[name="reportType"]').selectOption("ECG");
  await page.locator('input[type="file"]').setInputFiles(PDF);
  await page.locator('input[name="phoneNumber"]').fill("9876543210");
  await page.locator('textarea[name="description"]').fill("सीने में हल्का दर्द");
  await page.locator('input[name="urgent"]').check();
  await page.locator('input[name="urgentReason"]').fill("कल रात से सीने में दर्द");
  await page.locator('input[name="consent"]').check();
  await shot(page, info, "upload-urgent-hi");
  await page.getByRole("button", { name: hi.reports.uploadButton }).click();
  await expect(page).toHaveURL(/\/report-submitted$/);

  await expect.poll(() => outboxTo(w.cardio.email, since).length, { timeout: 15_000 }).toBe(1);
  const mail = outboxTo(w.cardio.email, since)[0];
  expect(mail).toMatch(/urgent report/i);
  expect(mail).not.toContain("सीने");
  await page.waitForTimeout(500);
  expect(outboxTo(w.radio.email, since)).toEqual([]);
});

test("the cardiologist starts the review; a second expert is refused; the structured opinion is sent", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.cardio);
  await page.goto("/dashboard/pending-report");
  const table = page.getByTestId("pending-reports");
  const row = table.locator("tbody tr", { hasText: w.patient.firstName }).first();
  await expect(row.locator('[data-flag="urgent"]')).toBeVisible();
  await expect(row.locator('[data-flag="match"]')).toBeVisible();
  // Drawn in the theme's brand tones (an undefined token left a current-colour border and the
  // page's text colour): brand-600 border, brand-800 text.
  await expect(row.locator('[data-flag="match"]')).toHaveCSS("border-top-color", "rgb(13, 116, 104)");
  await expect(row.locator('[data-flag="match"]')).toHaveCSS("color", "rgb(9, 76, 69)");
  await expect(row).toContainText("कल रात से सीने में दर्द");
  await shot(page, info, "pending-queue");
  await row.getByRole("button", { name: /Start review/ }).click();
  await expect(page).toHaveURL(/\/dashboard\/add-review\//);
  w.reportId = page.url().split("/").pop()!;
  await expect(toaster(page)).toContainText("You are reviewing this report now");
  await expect(page.getByTestId("report-viewer")).toBeVisible();
  await expectFormFirst(page, info);

  // A second expert: told who is on it, no form, and a claim is refused.
  const other = await person(browser, info, w.radio);
  await other.goto("/dashboard/pending-report");
  const otherRow = other
    .getByTestId("pending-reports")
    .locator("tbody tr", { hasText: w.patient.firstName })
    .first();
  await expect(otherRow).toContainText(`In review by Dr ${w.cardio.firstName}`);
  await expect(otherRow.getByRole("button", { name: /Start review/ })).toHaveCount(0);
  await other.goto(`/dashboard/add-review/${w.reportId}`);
  await expect(other.getByTestId("claim-panel")).toContainText(
    `Dr ${w.cardio.firstName} ${w.cardio.lastName} is reviewing`,
  );
  await expect(other.locator('textarea[name="review"]')).toHaveCount(0);
  await shot(other, info, "add-review-claimed-by-other");
  const login = await other.request.post("/api/v1/auth/login", {
    data: { email: w.radio.email, password: w.radio.password },
  });
  const token = (await login.json()).token;
  const refused = await other.request.post(`/api/v1/report/claim/${w.reportId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(refused.status()).toBe(409);

  await page.getByLabel(/^Summary/).fill(w.summary);
  await page.getByLabel(/^Findings/).fill("Sinus tachycardia, 110/min. No ST changes.");
  await page.getByLabel(/^Recommendations/).fill("ईसीजी दोबारा कराएँ; थायरॉइड जाँच।");
  await page.getByLabel("The patient should see a doctor in person soon").check();
  // The phrase book (decision 0081): sentences the patient reads in her language.
  const picker = page.getByTestId("phrase-picker");
  await picker.getByLabel("Take the medicine your doctor gave you every day.").check();
  await picker.getByLabel("See a doctor at the district hospital within a week.").check();
  expect((await wcagAxe(page).include('[data-testid="phrase-picker"]').analyze()).violations).toEqual([]);
  await shot(page, info, "add-review-structured");
  await page.getByRole("button", { name: "Submit Review" }).click();
  await expect(toaster(page)).toContainText("Review Added Successfully");
  await expect(page).toHaveURL(/\/dashboard\/pending-report$/);
});

test("the patient reads the opinion in Hindi and asks a follow-up question", async ({ browser }, info) => {
  const page = await person(browser, info, w.patient);
  await expect(page.locator("html")).toHaveAttribute("lang", "hi");
  await openPreviousReports(page, w.patient);
  const card = page.locator(`#report-${w.reportId}`);
  await expect(card.getByTestId("see-doctor-soon")).toHaveText(
    new RegExp(hi.opinion.seeDoctorSoonNotice.slice(0, 12)),
  );
  await expect(card.getByTestId("opinion")).toContainText(w.summary);
  // The chosen sentences, in Hindi, as their reviewed translations (decision 0081).
  const said = card.getByTestId("opinion-phrases");
  await expect(said).toContainText(hi.phrases.doctorSays);
  await expect(said.getByRole("listitem")).toHaveText([
    "डॉक्टर ने जो दवा दी है, उसे हर दिन लीजिए।",
    "एक हफ़्ते के अंदर ज़िला अस्पताल में डॉक्टर को दिखाइए।",
  ]);
  // On her phone's width too (this flow runs at 1280 px).
  const desk = page.viewportSize()!;
  await page.setViewportSize({ width: 360, height: 780 });
  await said.scrollIntoViewIfNeeded();
  expect((await wcagAxe(page).include(`#report-${w.reportId}`).analyze()).violations).toEqual([]);
  await shot(page, info, "patient-opinion-phrases-hi-360");
  await page.setViewportSize(desk);
  await expect(card.getByTestId("signed-by")).toContainText(w.cardio.registrationNumber!);
  await shot(page, info, "patient-opinion-hi");
  // The typed question of the thread (the card's voice form has a question field of its own).
  const thread = card.getByTestId("followups");
  await thread.locator('textarea[name="question"]').fill(w.question);
  await thread.getByRole("button", { name: hi.followups.send }).click();
  await expect(toaster(page)).toContainText(hi.followups.askSuccess);
  await expect(page.locator(`#report-${w.reportId}`).getByTestId("followup")).toContainText(w.question);
});

test("the expert answers on the follow-up screen", async ({ browser }, info) => {
  const page = await person(browser, info, w.cardio);
  await page.goto("/dashboard/follow-ups");
  const item = page.getByTestId("followup-report").filter({ hasText: w.question }).first();
  await expect(item).toBeVisible();
  await shot(page, info, "follow-ups-expert");
  await item.getByLabel("Your answer").fill(w.answer);
  await item.getByRole("button", { name: "Send answer" }).click();
  await expect(toaster(page)).toContainText("Your answer was sent to the patient");
  await expect(page.getByTestId("followup-report").filter({ hasText: w.question }).first()).toContainText(
    w.answer,
  );
});

test("the patient downloads the Hindi opinion letter; its text is right and its code verifies", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.patient);
  await openPreviousReports(page, w.patient);
  const card = page.locator(`#report-${w.reportId}`);
  await expect(card.getByTestId("followup")).toContainText(w.answer);
  const link = card.getByTestId("download-opinion");
  await expect(link).toHaveText(hi.reports.downloadOpinion);
  const href = await link.getAttribute("href");
  expect(href).toBe(`/api/v1/report/${w.reportId}/opinion.pdf`);
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const dir = mkdtempSync(path.join(os.tmpdir(), "cb-e2e-letter-"));
  try {
    const file = path.join(dir, "letter.pdf");
    await download.saveAs(file);
    const text = execFileSync("pdftotext", [file, "-"], { encoding: "utf8" });
    for (const expected of [
      hi.letter.title,
      `${w.patient.firstName} ${w.patient.lastName}`,
      w.summary,
      w.question,
      w.answer,
      hi.opinion.seeDoctorSoonNotice,
      w.cardio.registrationNumber!,
      `${w.cardio.firstName} ${w.cardio.lastName}`,
    ]) {
      expect(text, expected).toContain(expected);
    }
    w.code = /[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(text)![0];
    if (info.project.name === "desktop") {
      mkdirSync(path.join("test-results", "screens", "desktop"), { recursive: true });
      execFileSync("pdftoppm", [
        "-r",
        "70",
        "-png",
        "-f",
        "1",
        "-l",
        "1",
        file,
        path.join("test-results", "screens", "desktop", "letter-hi"),
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const visitor = await (await context(browser, info)).newPage();
  await visitor.goto(`/verify/${w.code}`);
  await expect(visitor.getByTestId("verify-result")).toContainText(w.cardio.registrationNumber!);
  await expect(visitor.getByTestId("verify-result")).not.toContainText(w.patient.lastName);
  await shot(visitor, info, "verify-letter");
});

test("the admin sees turnaround, the thread, and the audit trail of the consultation", async ({
  browser,
}, info) => {
  const page = await person(browser, info, ADMIN);
  await page.goto("/dashboard/turnaround");
  await expect(page.getByTestId("queue-counts")).toBeVisible();
  await expect(page.getByTestId("per-expert")).toContainText(w.cardio.firstName);
  await shot(page, info, "turnaround");
  await page.goto("/dashboard/previous-reviewed-reports");
  const row = page
    .getByTestId("all-reviewed-reports")
    .locator("tbody tr", { hasText: w.patient.firstName })
    .first();
  await row.locator("summary", { hasText: "Follow-up questions" }).click();
  await expect(row).toContainText(w.question);
  await expect(row).toContainText(w.answer);
  await shot(page, info, "all-reviewed-followups");
  await page.goto("/dashboard/audit-log?action=report.letter_open");
  await expect(page.getByTestId("audit-log").getByText("Opinion letter downloaded").first()).toBeVisible();
});
