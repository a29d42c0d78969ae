import { expect, test, type Browser, type BrowserContext, type Page, type TestInfo } from "@playwright/test";
import path from "node:path";
import {
  ADMIN,
  hydrated,
  logIn,
  newUser,
  patternPng,
  personContext,
  signUpOnScreen,
  type TestUser,
} from "./fixtures";
import { shot } from "./helpers";

/**
 * The whole report loop through the screens, once per project (desktop and phone):
 * a patient uploads, an unapproved expert sees masks, the admin approves the expert, the
 * expert opens the file and reviews, the patient sees the review and who opened the file,
 * deletes a report, and the admin reads the audit log. Plus an upload without JavaScript.
 */

const PDF = path.join("tests", "fixtures", "sample-report.pdf");
const FAKE_PDF = path.join("tests", "fixtures", "fake-report.pdf");

const suffix = () =>
  Array.from({ length: 5 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");

type World = {
  patient: TestUser;
  expert: TestUser;
  patientId: string;
  pdfReportId: string;
  imageReportId: string;
  review: string;
  contexts: BrowserContext[];
};
let w: World;

async function person(browser: Browser, info: TestInfo, who: { email: string; password: string }, js = true) {
  const context = await personContext(browser, info, { javaScriptEnabled: js });
  w.contexts.push(context);
  const page = await context.newPage();
  await logIn(page, who.email, who.password);
  return page;
}

const toaster = (page: Page) => page.getByTestId("toaster");
const idFromFileUrl = (href: string | null) => href?.match(/\/api\/v1\/report\/([^/]+)\/file$/)?.[1] ?? "";

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  const info = test.info();
  w = {
    patient: newUser("Patient", info, "Asha", `Verma ${suffix()}`),
    expert: newUser("Expert", info, "Ravi", `Menon ${suffix()}`),
    patientId: "",
    pdfReportId: "",
    imageReportId: "",
    review: `Haemoglobin is within the normal range. No treatment needed; repeat the test in a year. (${suffix()})`,
    contexts: [],
  };
});

test.afterAll(async () => {
  for (const c of w?.contexts ?? []) await c.close().catch(() => {});
});

test("patient: validation messages, PDF upload, image upload with progress, previous reports", async ({
  browser,
}, info) => {
  // Accounts are made on a desktop-sized page: signing up is not what this file tests.
  const signupContext = await browser.newContext({
    baseURL: info.project.use.baseURL,
    viewport: { width: 1280, height: 800 },
    isMobile: false,
    hasTouch: false,
  });
  w.contexts.push(signupContext);
  await signUpOnScreen(await signupContext.newPage(), w.patient);
  await signUpOnScreen(await signupContext.newPage(), w.expert);

  const page = await person(browser, info, w.patient);
  await hydrated(page);
  await page.goto("/dashboard/upload-report");
  // The form's handlers are attached first: a file chosen before would be lost.
  await hydrated(page);
  await expect(page.getByRole("heading", { level: 1, name: "Upload Medical Report" })).toBeVisible();
  await expect(page.locator("h1")).toHaveCount(1);
  const country = page.getByLabel(/^Country Code/);
  await expect(country).toHaveValue("+91");
  await expect(country.locator("option:checked")).toHaveText("India (+91)");
  // The full dial-code list, not the five of the signup form.
  expect(await country.locator("option").count()).toBeGreaterThan(200);
  await shot(page, info, "upload-report");

  // The account's number is filled in for the patient; emptied, every message of the spec shows.
  // Empty submit: every message of the spec, nothing sent.
  await expect(page.getByLabel(/^Phone Number/)).not.toHaveValue("");
  await country.selectOption("");
  await page.getByLabel(/^Phone Number/).fill("");
  await page.getByLabel(/^Phone Number/).press("Enter");
  for (const message of [
    "Report Type is required",
    "Report file is required",
    "Country code is required",
    "Phone number is required",
    "You must agree before submitting.",
  ]) {
    await expect(page.getByText(message, { exact: true })).toBeVisible();
  }
  await expect(page).toHaveURL(/\/dashboard\/upload-report$/);
  await shot(page, info, "upload-report-errors");

  // A file that only pretends to be a PDF: the server sniffs the bytes and refuses it (415).
  await page.getByLabel(/^Report Type/).selectOption("Blood Test");
  await page.getByLabel(/^Report File/).setInputFiles(FAKE_PDF);
  await country.selectOption({ label: "India (+91)" });
  await page.getByLabel(/^Phone Number/).fill("98765 43210");
  await page.getByLabel(/I hereby give my consent/).check();
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(page.getByText(/This file type is not allowed/)).toBeVisible();
  await expect(toaster(page)).toContainText("Could not Uplaod Report");
  await expect(page).toHaveURL(/\/dashboard\/upload-report$/);

  // The real PDF.
  await page.getByLabel(/^Report File/).setInputFiles(PDF);
  await expect(page.getByTestId("chosen-file")).toContainText("sample-report.pdf");
  await expect(page.getByTestId("chosen-file")).toContainText(/\d+ (byte|B)/);
  await page.getByLabel(/^Description/).fill("Routine blood test before surgery.");
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(toaster(page)).toContainText("Report Submitted Succesfully");
  await expect(page).toHaveURL(/\/report-submitted$/);
  await expect(page.getByRole("heading", { level: 1, name: "Report Submitted Successfully" })).toBeVisible();
  await expect(page.getByText(/contact you on the phone number you provided/)).toBeVisible();
  await shot(page, info, "report-submitted");

  // An image report on a slow link: the real progress bar and 'Uploading...'.
  await page.getByRole("link", { name: "Upload another report" }).click();
  await expect(page).toHaveURL(/\/dashboard\/upload-report$/);
  await page.getByLabel(/^Report Type/).selectOption("X-Ray");
  await page
    .getByLabel(/^Report File/)
    .setInputFiles({ name: "chest-xray.png", mimeType: "image/png", buffer: patternPng(150) });
  await page.getByLabel(/^Phone Number/).fill("9876543210");
  await page.getByLabel(/I hereby give my consent/).check();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 100,
    downloadThroughput: -1,
    uploadThroughput: 16 * 1024,
  });
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(page.getByRole("button", { name: "Uploading..." })).toBeVisible();
  await expect(page.getByTestId("upload-progress")).toBeVisible();
  await expect(page.getByTestId("upload-progress")).toContainText(/\d+% uploaded/);
  await shot(page, info, "upload-report-progress");
  await expect(page).toHaveURL(/\/report-submitted$/, { timeout: 30_000 });
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  await cdp.detach();

  // Previous Report: both, newest first, pending (yellow).
  await page.getByRole("link", { name: "Previous Report" }).click();
  await expect(page).toHaveURL(/\/dashboard\/previous-report\/[^/]+$/);
  w.patientId = page.url().split("/").pop()!;
  const cards = page.getByTestId("report-card");
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0).getByRole("heading")).toHaveText("X-Ray");
  const pdfCard = cards.filter({ hasText: "Blood Test" });
  await expect(pdfCard).toContainText("Routine blood test before surgery.");
  await expect(pdfCard).toContainText(/Submitted on \d{2} [A-Z][a-z]{2} \d{4}/);
  const pending = pdfCard.locator('[data-status="pending"]');
  await expect(pending).toHaveText("Pending");
  // Yellow for Pending (the theme's amber-100 behind the word).
  await expect(pending).toHaveCSS("background-color", "oklch(0.962 0.059 95.617)");
  const pdfLink = pdfCard.getByRole("link", { name: /View PDF Report/ });
  await expect(pdfLink).toHaveAttribute("target", "_blank");
  w.pdfReportId = idFromFileUrl(await pdfLink.getAttribute("href"));
  const imageCard = cards.filter({ hasText: "X-Ray" });
  await expect(imageCard).toContainText("No description provided.");
  const img = imageCard.getByRole("img", { name: "Image of the X-Ray report" });
  await expect(img).toHaveAttribute("loading", "lazy");
  await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(150);
  w.imageReportId = idFromFileUrl(await img.getAttribute("src"));
  expect(w.pdfReportId).not.toBe("");
  expect(w.imageReportId).not.toBe("");
  await shot(page, info, "previous-report-pending");

  // Other account types do not have the upload form: their dashboard says why.
  const admin = await person(browser, info, ADMIN);
  await admin.goto("/dashboard/upload-report");
  await expect(admin.getByRole("heading", { level: 1, name: "Upload Medical Report" })).toBeVisible();
  await expect(admin.getByTestId("not-allowed")).toHaveText("Only patients can upload reports");
  await expect(admin.locator('input[type="file"]')).toHaveCount(0);
  // The admin's own dashboard navigation is there (folded behind "Menu" on a phone).
  await expect(
    admin.getByRole("link", { name: "Pending Expert", includeHidden: true }).first(),
  ).toBeAttached();
});

test("unapproved expert: masked patients, no Add Review, no review form", async ({ browser }, info) => {
  const page = await person(browser, info, w.expert);
  await page.goto("/dashboard/pending-report");
  await expect(page.getByRole("heading", { level: 1, name: "Pending Reports" })).toBeVisible();
  const table = page.getByTestId("pending-reports");
  await expect(table).toBeVisible();
  await expect(table).not.toContainText(w.patient.lastName);
  const firstRow = table.locator("tbody tr").first();
  await expect(firstRow).toContainText("******");
  await expect(firstRow).toContainText("**********");
  await expect(firstRow).toContainText(
    "You do not have access to add a review. Please wait for admin approval.",
  );
  await expect(table.getByRole("link", { name: "Add Review" })).toHaveCount(0);
  await shot(page, info, "pending-report-unapproved");

  await page.goto(`/dashboard/add-review/${w.pdfReportId}`);
  await expect(
    page.getByText("You do not have access to add a review. Please wait for admin approval.").last(),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Submit Review" })).toHaveCount(0);
  // The file itself is refused too.
  const file = await page.request.get(`/api/v1/report/${w.pdfReportId}/file`);
  expect(file.status()).toBe(403);
});

test("admin approves the expert", async ({ browser }, info) => {
  const page = await person(browser, info, ADMIN);
  await page.goto("/dashboard/pending-expert");
  await expect(page.getByRole("heading", { level: 1, name: "Pending Expert Requests" })).toBeVisible();
  const row = page.getByTestId("pending-experts").locator("tbody tr", { hasText: w.expert.email });
  await expect(row).toContainText(`${w.expert.firstName} ${w.expert.lastName}`);
  await expect(row).toContainText(`+91 ${w.expert.phone}`);
  await expect(row).toContainText("Expert");
  await shot(page, info, "pending-expert");
  await hydrated(page);
  await row.getByRole("button", { name: /^Approve/ }).click();
  await expect(toaster(page)).toContainText("Expert Approved!");
  await expect(
    page.getByTestId("pending-experts").locator("tbody tr", { hasText: w.expert.email }),
  ).toHaveCount(0);

  await page.goto("/dashboard/approved-expert");
  await expect(page.getByTestId("expert-card").filter({ hasText: w.expert.email })).toContainText(
    `${w.expert.firstName} ${w.expert.lastName}`,
  );
  await shot(page, info, "approved-expert-admin");
});

test("approved expert: filter, open the file, review; a second review is a conflict", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.expert);
  await hydrated(page);
  await page.goto("/dashboard/pending-report");
  const table = page.getByTestId("pending-reports");
  const patientName = `${w.patient.firstName} ${w.patient.lastName}`;
  await expect(table.locator("tbody tr", { hasText: patientName })).toHaveCount(2);

  // Filter by type (a GET form).
  await page.getByLabel("Filter by report type").selectOption("Blood Test");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/reportType=Blood\+Test/);
  await expect(table.locator("tbody tr", { hasText: patientName })).toHaveCount(1);
  await expect(table.locator("tbody tr", { hasText: "X-Ray" })).toHaveCount(0);
  const row = table.locator("tbody tr", { hasText: patientName });
  await expect(row).toContainText("+919876543210");
  await shot(page, info, "pending-report-expert");

  // The PDF opens with the session cookie (the link opens a new tab; headless Chromium would
  // download a PDF, so the same URL is fetched in the expert's session).
  const href = await row.getByRole("link", { name: /View Report/ }).getAttribute("href");
  expect(href).toBe(`/api/v1/report/${w.pdfReportId}/file`);
  const file = await page.request.get(href!);
  expect(file.status()).toBe(200);
  expect(file.headers()["content-type"]).toContain("application/pdf");
  expect((await file.body()).subarray(0, 5).toString()).toBe("%PDF-");

  // The image opens in a new tab.
  await page.getByLabel("Filter by report type").selectOption("X-Ray");
  await page.getByRole("button", { name: "Filter" }).click();
  const imageRow = table.locator("tbody tr", { hasText: patientName });
  const [popup] = await Promise.all([
    page.context().waitForEvent("page"),
    imageRow.getByRole("link", { name: /View Report/ }).click(),
  ]);
  await popup.waitForLoadState();
  expect(popup.url()).toContain(`/api/v1/report/${w.imageReportId}/file`);
  await popup.close();

  // Add Review: the report's facts, then the review.
  await page.goto(`/dashboard/pending-report?reportType=Blood+Test`);
  // "Start review" claims the report; the opinion is written beside the file.
  await table
    .locator("tbody tr", { hasText: patientName })
    .getByRole("button", { name: /Start review/ })
    .click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/add-review/${w.pdfReportId}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Add Review" })).toBeVisible();
  await expect(page.getByText("Routine blood test before surgery.")).toBeVisible();
  await expect(page.getByRole("link", { name: /Open the file in a new tab/ })).toHaveAttribute(
    "href",
    `/api/v1/report/${w.pdfReportId}/file`,
  );
  await expect(page.getByTestId("report-viewer")).toHaveAttribute(
    "src",
    `/api/v1/report/${w.pdfReportId}/file`,
  );
  await page.getByRole("button", { name: "Submit Review" }).click();
  await expect(page.getByText("Review is required", { exact: true })).toBeVisible();
  await shot(page, info, "add-review");

  // A second tab has the same form open.
  const second = await page.context().newPage();
  await second.goto(`/dashboard/add-review/${w.pdfReportId}`);
  await hydrated(second);
  await second.getByLabel(/^Summary/).fill("A different opinion that must not overwrite the first.");

  await page.getByLabel(/^Summary/).fill(w.review);
  await page.getByRole("button", { name: "Submit Review" }).click();
  await expect(toaster(page)).toContainText("Review Added Successfully");
  await expect(page).toHaveURL(/\/dashboard\/pending-report$/);

  await second.getByRole("button", { name: "Submit Review" }).click();
  await expect(second.getByText("This report has already been reviewed").first()).toBeVisible();
  await shot(second, info, "add-review-conflict");
  await second.close();

  await page.goto("/dashboard/previous-reviewed-report");
  await expect(page.getByRole("heading", { level: 1, name: "Previous Reviewed Reports" })).toBeVisible();
  const reviewed = page.getByTestId("reviewed-reports").locator("tbody tr").first();
  await expect(reviewed).toContainText("Blood Test");
  await expect(reviewed).toContainText(w.review);
  await expect(reviewed).toContainText(w.patient.email);
  await expect(reviewed.locator('[data-status="reviewed"]')).toHaveText("Reviewed");
  await expect(page.getByRole("columnheader", { name: "Expert ID" })).toHaveCount(0);
  await shot(page, info, "previous-reviewed-report-expert");

  await page.goto("/dashboard/approved-expert");
  // Colleagues see name and picture, not e-mail or phone (admins do, above).
  const card = page
    .getByTestId("expert-card")
    .filter({ hasText: `${w.expert.firstName} ${w.expert.lastName}` });
  await expect(card).toBeVisible();
  await expect(card).not.toContainText(w.expert.email);
  await expect(card).not.toContainText(w.expert.phone);
  await shot(page, info, "approved-expert");
});

test("patient: reviewed report in green with the review and who opened it; delete", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.patient);
  await hydrated(page);
  await page.goto(`/dashboard/previous-report/${w.patientId}`);
  const pdfCard = page.locator(`#report-${w.pdfReportId}`);
  const status = pdfCard.locator('[data-status="reviewed"]');
  await expect(status).toHaveText("Reviewed");
  // Green for Reviewed (green-100).
  await expect(status).toHaveCSS("background-color", "oklch(0.962 0.044 156.743)");
  await expect(pdfCard).toContainText("Expert Review");
  await expect(pdfCard).toContainText(w.review);
  await expect(pdfCard.getByTestId("file-views")).toContainText(
    // Her expert's readings of the file are one line (decision 0073).
    new RegExp(
      `Viewed by Dr\\. ${w.expert.firstName} ${w.expert.lastName}, \\d+ times, \\d{2} [A-Z][a-z]{2} \\d{4}`,
    ),
  );
  await shot(page, info, "previous-report-reviewed");

  // Delete the image report, after confirming in the dialog.
  const imageCard = page.locator(`#report-${w.imageReportId}`);
  await imageCard.getByRole("button", { name: /^Delete/ }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this report?" });
  await expect(dialog).toBeVisible();
  await shot(page, info, "previous-report-delete-dialog");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(imageCard).toBeVisible();
  await imageCard.getByRole("button", { name: /^Delete/ }).click();
  await dialog.getByRole("button", { name: "Yes, delete" }).click();
  await expect(toaster(page)).toContainText("Report deleted Successfully");
  await expect(page.locator(`#report-${w.imageReportId}`)).toHaveCount(0);
  await expect(page.getByTestId("report-card")).toHaveCount(1);
  // Its file is gone as well.
  expect((await page.request.get(`/api/v1/report/${w.imageReportId}/file`)).status()).toBe(404);

  // Another patient's list is not there for this patient: the dashboard says so and links to their own.
  await page.goto("/dashboard/previous-report/someone-else");
  await expect(page.getByTestId("not-allowed")).toHaveText("You can only see your own reports");
  await expect(page.getByTestId("report-card")).toHaveCount(0);
  await page.getByRole("link", { name: "See your own reports" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/previous-report/${w.patientId}$`));
  await expect(page.getByTestId("report-card")).toHaveCount(1);
});

test("admin: audit log, all reviewed reports, reviewed reports with Expert ID, a patient's reports", async ({
  browser,
}, info) => {
  const page = await person(browser, info, ADMIN);
  await page.goto("/dashboard/audit-log");
  await expect(page.getByRole("heading", { level: 1, name: "Audit Log" })).toBeVisible();
  const log = page.getByTestId("audit-log");
  for (const label of [
    "Report uploaded",
    "Report file opened",
    "Report reviewed",
    "Report deleted",
    "Expert approved",
  ]) {
    await expect(log.locator("tbody tr", { hasText: label }).first()).toBeVisible();
  }
  await expect(
    log.locator("tbody tr", { hasText: `Report ${w.pdfReportId}` }).filter({ hasText: "Report reviewed" }),
  ).toContainText(w.expert.email);
  await shot(page, info, "audit-log");
  await page.getByLabel("Filter by action").selectOption("report.delete");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/action=report\.delete/);
  await expect(log.locator("tbody tr").first()).toContainText("Report deleted");
  await expect(log.locator("tbody tr", { hasText: "Report uploaded" })).toHaveCount(0);
  await expect(log.locator("tbody tr", { hasText: `Report ${w.imageReportId}` })).toContainText(
    w.patient.email,
  );

  await page.goto("/dashboard/previous-reviewed-reports");
  await expect(page.getByRole("heading", { level: 1, name: "All Reviewed Reports" })).toBeVisible();
  const all = page.getByTestId("all-reviewed-reports").locator("tbody tr", { hasText: w.review });
  await expect(all).toContainText(`${w.expert.firstName} ${w.expert.lastName}`);
  await expect(all).toContainText(`${w.patient.firstName} ${w.patient.lastName}`);
  await expect(all).toContainText("Blood Test");
  await shot(page, info, "all-reviewed-reports");

  await page.goto("/dashboard/previous-reviewed-report");
  await expect(page.getByTestId("reviewed-reports").locator("tbody tr", { hasText: w.review })).toBeVisible();
  if (info.project.name === "desktop") {
    await expect(page.getByRole("columnheader", { name: "Expert ID" })).toBeVisible();
  }
  await shot(page, info, "previous-reviewed-report-admin");

  await page.goto("/dashboard/pending-report");
  await expect(page.getByTestId("pending-reports").getByRole("button", { name: /Start review/ })).toHaveCount(
    0,
  );
  await shot(page, info, "pending-report-admin");

  await page.goto(`/dashboard/previous-report/${w.patientId}`);
  await expect(page.getByTestId("report-card")).toHaveCount(1);
  await expect(page.getByText(`Reports of ${w.patient.firstName} ${w.patient.lastName}`)).toBeVisible();
});

test("without JavaScript: upload as a plain multipart form, errors, delete with a confirm step", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.patient, false);
  await page.goto("/dashboard/upload-report");
  // The server answers the empty form with the same messages.
  await page.getByLabel(/^Country Code/).selectOption("");
  await page.getByLabel(/^Phone Number/).fill(""); // filled in from the account; emptied to see its message
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(page.getByText("Could not Uplaod Report").first()).toBeVisible();
  for (const message of [
    "Report Type is required",
    "Report file is required",
    "Country code is required",
    "Phone number is required",
    "You must agree before submitting.",
  ]) {
    await expect(page.getByText(message, { exact: true })).toBeVisible();
  }
  await shot(page, info, "upload-report-nojs-errors");

  await page.getByLabel(/^Report Type/).selectOption("MRI");
  await page.getByLabel(/^Report File/).setInputFiles(PDF);
  await page.getByLabel(/^Country Code/).selectOption({ label: "India (+91)" });
  await page.getByLabel(/^Phone Number/).fill("9876543210");
  await page.getByLabel(/^Description/).fill("Uploaded without JavaScript.");
  await page.getByLabel(/I hereby give my consent/).check();
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(page).toHaveURL(/\/report-submitted$/);
  await expect(toaster(page)).toContainText("Report Submitted Succesfully");

  await page.getByRole("link", { name: "Previous Report" }).click();
  const card = page.getByTestId("report-card").filter({ hasText: "Uploaded without JavaScript." });
  await expect(card).toContainText("MRI");
  await card.getByRole("link", { name: /^Delete/ }).click();
  await expect(page).toHaveURL(/confirm=/);
  await expect(card.getByText("Delete this report?")).toBeVisible();
  await shot(page, info, "previous-report-nojs-confirm");
  await card.getByRole("button", { name: "Yes, delete" }).click();
  await expect(toaster(page)).toContainText("Report deleted Successfully");
  await expect(page).not.toHaveURL(/confirm=/);
  await expect(
    page.getByTestId("report-card").filter({ hasText: "Uploaded without JavaScript." }),
  ).toHaveCount(0);
});
