import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { approveExperts, logIn, newUser, patientWithReport, personContext, signUp, ADMIN } from "./fixtures";
import { pastTheEdge, shotTo, SHOTS_ON } from "./helpers";

/**
 * An opinion's next steps (decision 0114) on a 360 px phone: the expert adds a repeat-tests step
 * (HbA1c, found by typing) and a specialist step in the review form, each added through the
 * form's own "add" buttons; the patient reads them on her report's card in Hindi, in words of
 * her language (the test's and the specialty's names, the due date), and marks one done.
 */

test.describe.configure({ mode: "serial" });

const SHOTS = "/tmp/shots-steps-ui";
const contexts: BrowserContext[] = [];
let patientPage: Page;
let patientId = "";
let reportId = "";

test.afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
});

const toaster = (page: Page) => page.getByTestId("toaster");

/** The language cookie as the switcher sets it. */
const language = (lng: string) => encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));

test("the expert adds a tests step and a specialist step on the phone", async ({ browser }, info) => {
  test.setTimeout(120_000);
  const expert = {
    ...newUser("Expert", info, "Kavya", "Rao"),
    specialties: ["Pathology"],
    registrationNumber: `KMC-${Math.floor(Math.random() * 90000) + 10000}`,
  };
  const ec = await personContext(browser, info);
  contexts.push(ec);
  const page = await ec.newPage();
  await signUp(page, expert);
  const ac = await personContext(browser, info);
  contexts.push(ac);
  const admin = await ac.newPage();
  await logIn(admin, ADMIN.email, ADMIN.password);
  await approveExperts(admin, [expert.email]);
  const { page: p, report } = await patientWithReport(browser, info, "Blood Test");
  patientPage = p;
  contexts.push(p.context());
  patientId = report.patient._id;
  reportId = report._id;

  await logIn(page, expert.email, expert.password);
  await page.goto(`/dashboard/add-review/${reportId}`);
  await page.getByRole("button", { name: /Start review/ }).click();
  await expect(toaster(page)).toContainText("You are reviewing this report now");
  if (SHOTS_ON) {
    // The form in Hindi, at 360 and 1280 px, for people to look at; then back to English.
    await page.context().addCookies([{ name: "lng", value: language("hi"), url: page.url() }]);
    await page.goto(`/dashboard/add-review/${reportId}`);
    await page.getByTestId("add-step-specialist").click();
    const added = page.getByTestId("step-fields");
    await expect(added).toHaveCount(1);
    await shotTo(page.getByTestId("next-steps"), `${SHOTS}/form-phone-hi.png`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shotTo(page.getByTestId("next-steps"), `${SHOTS}/form-1280-hi.png`);
    await page.setViewportSize({ width: 360, height: 740 });
    await added.locator('button[name="__intent__"]').click();
    await expect(added).toHaveCount(0);
    await page.context().addCookies([{ name: "lng", value: language("en"), url: page.url() }]);
    await page.goto(`/dashboard/add-review/${reportId}`);
  }
  await page.getByLabel(/^Summary/).fill("Sugar has been high for months.");

  const steps = page.getByTestId("next-steps");
  await steps.getByTestId("add-step-tests").click();
  const first = steps.getByTestId("step-fields").nth(0);
  await expect(first).toBeVisible();
  // What was typed stays (the add went to the server and back).
  await expect(page.getByLabel(/^Summary/)).toHaveValue("Sugar has been high for months.");
  await first.getByTestId("step-test-search").fill("HbA1c");
  await first.getByLabel("HbA1c", { exact: true }).check();
  await first.getByLabel("In", { exact: true }).fill("3");
  await first.getByLabel("Days or weeks").selectOption("weeks");

  await steps.getByTestId("add-step-specialist").click();
  const second = steps.getByTestId("step-fields").nth(1);
  await expect(second).toBeVisible();
  // The first step kept what was chosen.
  await expect(steps.getByTestId("step-fields").nth(0).getByLabel("HbA1c", { exact: true })).toBeChecked();
  await second.getByLabel("Which specialist").selectOption("Cardiology");
  await second.getByLabel("How soon").selectOption("weeks");
  await second.getByLabel("Within how many weeks").fill("2");
  expect(await pastTheEdge(page)).toBe("");
  await shotTo(steps, `${SHOTS}/form-${info.project.name}-en.png`);
  if (SHOTS_ON) {
    // The same form at 1280 px, for people to look at.
    await page.setViewportSize({ width: 1280, height: 800 });
    await shotTo(steps, `${SHOTS}/form-1280-en.png`);
    await page.setViewportSize({ width: 360, height: 740 });
  }

  await page.getByRole("button", { name: "Submit Review" }).click();
  await expect(toaster(page)).toContainText("Review Added Successfully");
});

test("the patient reads the steps in Hindi and marks one done", async () => {
  const info = test.info();
  const page = patientPage;
  await page.context().addCookies([{ name: "lng", value: language("hi"), url: page.url() }]);
  await page.goto(`/dashboard/previous-report/${patientId}`);
  const card = page.locator(`#report-${reportId}`);
  const steps = card.getByTestId("next-steps");
  await expect(steps).toContainText("अगले कदम");
  const items = steps.getByTestId("next-step");
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toContainText("ये जाँचें दोबारा कराएँ: तीन महीने की औसत शुगर");
  await expect(items.nth(1)).toContainText("विशेषज्ञ को दिखाएँ: हृदय रोग (कार्डियोलॉजी)");
  await expect(items.nth(0)).toContainText(/तक/);
  await expect(items.nth(0)).toContainText("करना है");
  expect(await pastTheEdge(page)).toBe("");
  await shotTo(steps, `${SHOTS}/patient-${info.project.name}-hi.png`);

  await items.nth(0).getByTestId("step-done").click();
  await expect(toaster(page)).toContainText("कदम अपडेट हो गया");
  await expect(card.getByTestId("next-step").nth(0)).toContainText("हो गया");
  await shotTo(card.getByTestId("next-steps"), `${SHOTS}/patient-${info.project.name}-hi-done.png`);
  if (SHOTS_ON) {
    await page.setViewportSize({ width: 1280, height: 800 });
    await shotTo(card, `${SHOTS}/patient-1280-hi.png`);
    await page.context().addCookies([{ name: "lng", value: language("en"), url: page.url() }]);
    await page.reload();
    await shotTo(page.locator(`#report-${reportId}`), `${SHOTS}/patient-1280-en.png`);
    await page.setViewportSize({ width: 360, height: 740 });
    await shotTo(
      page.locator(`#report-${reportId}`).getByTestId("next-steps"),
      `${SHOTS}/patient-phone-en.png`,
    );
  }
});
