import { expect, test, type Browser, type BrowserContext, type Page, type TestInfo } from "@playwright/test";
import { PNG } from "pngjs";
import { ctSeries, makeZip } from "../helpers/dicom";
import { axeAtBothWidths } from "./axe";
import { ADMIN, hydrated, logIn, newUser, personContext, signUp, type TestUser } from "./fixtures";
import { shot } from "./helpers";

/**
 * Medical images through the screens: a patient uploads a CT series as a ZIP and sees what the
 * images carry about them; the expert opens the viewer beside the review form, changes the window
 * preset (the frame's pixels change) and moves the image slider; the viewer passes axe and is
 * photographed at the project's size in all four languages.
 */
type World = { patient: TestUser; expert: TestUser; reportId: string; contexts: BrowserContext[] };
let w: World;

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  const info = test.info();
  const tag = Math.random().toString(36).slice(2, 7);
  w = {
    patient: newUser("Patient", info, "Asha", `Imaging ${tag}`),
    expert: newUser("Expert", info, "Ravi", `Imaging ${tag}`),
    reportId: "",
    contexts: [],
  };
});
test.afterAll(async () => {
  for (const c of w?.contexts ?? []) await c.close().catch(() => {});
});

async function person(browser: Browser, info: TestInfo, who: { email: string; password: string }) {
  const context = await personContext(browser, info);
  w.contexts.push(context);
  const page = await context.newPage();
  await logIn(page, who.email, who.password);
  return page;
}

async function noAxeViolations(page: Page) {
  const result = await axeAtBothWidths(page);
  expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

/** The PNG the viewer shows, decoded (fetched with the page's session). */
async function shownPixels(page: Page): Promise<{ src: string; png: PNG }> {
  const src = (await page.getByTestId("study-frame").getAttribute("src"))!;
  const res = await page.request.get(src);
  expect(res.status()).toBe(200);
  return { src, png: PNG.sync.read(Buffer.from(await res.body())) };
}

test("patient uploads a CT series as a ZIP and sees the personal fields it carries", async ({
  browser,
}, info) => {
  const signupContext = await browser.newContext({
    baseURL: info.project.use.baseURL,
    viewport: { width: 1280, height: 800 },
  });
  w.contexts.push(signupContext);
  await signUp(await signupContext.newPage(), w.patient);
  await signUp(await signupContext.newPage(), w.expert);

  const page = await person(browser, info, w.patient);
  await hydrated(page);
  await page.goto("/dashboard/upload-report");
  // The form's handlers are attached first: a file chosen before would be lost.
  await hydrated(page);
  await expect(page.getByText(/a ZIP of one study, at most 200 MB/)).toBeVisible();
  const { files } = ctSeries(4, { rows: 96, columns: 96 });
  const zip = makeZip(files.map((data, i) => ({ name: `DICOM/IM${i}`, data, deflate: true })));
  await page.getByLabel(/^Report Type/).selectOption("CT Scan");
  await page
    .getByLabel(/^Report File/)
    .setInputFiles({ name: "ct-chest.zip", mimeType: "application/zip", buffer: zip });
  await page.getByLabel(/^Phone Number/).fill("9876543210");
  await page.getByLabel(/I hereby give my consent/).check();
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(page).toHaveURL(/\/report-submitted$/, { timeout: 30_000 });

  await page.getByRole("link", { name: "Previous Report" }).click();
  const link = page.getByTestId("study-link");
  await expect(link).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(/\/dashboard\/images\/[^/?]+/);
  w.reportId = new URL(page.url()).pathname.split("/").pop()!;
  const personal = page.getByTestId("personal-fields");
  await expect(personal).toContainText(
    "This file carries: your name, your hospital ID, your date of birth, your sex",
  );
  await expect(personal).toContainText("the hospital or centre");
  await expect(page.getByTestId("study-summary")).toContainText("4 images in 1 series");
  await expect(page.getByTestId("study-frame")).toBeVisible();
  await expect
    .poll(() => page.getByTestId("study-frame").evaluate((el) => (el as HTMLImageElement).naturalWidth))
    .toBe(96);
  await noAxeViolations(page);
  await shot(page, info, "imaging-patient-en");
});

test("expert: viewer beside the review form, presets change the pixels, the slider moves through the series", async ({
  browser,
}, info) => {
  // The admin approves the expert (the approval screens are reports.spec.ts's subject).
  const admin = await (await personContext(browser, info)).newPage();
  w.contexts.push(admin.context());
  const adminToken = (await (await admin.request.post("/api/v1/auth/login", { data: ADMIN })).json())
    .token as string;
  const expertToken = (
    await (
      await admin.request.post("/api/v1/auth/login", {
        data: { email: w.expert.email, password: w.expert.password },
      })
    ).json()
  ).token as string;
  const me = await (
    await admin.request.get("/api/v1/profile/get-user-details", {
      headers: { Authorization: `Bearer ${expertToken}` },
    })
  ).json();
  const approve = await admin.request.post("/api/v1/expert/approve-expert", {
    headers: { Authorization: `Bearer ${adminToken}` },
    data: { expertId: me.data._id },
  });
  expect(approve.status()).toBe(200);

  const page = await person(browser, info, w.expert);
  await page.goto(`/dashboard/add-review/${w.reportId}`);
  const viewer = page.getByTestId("study-viewer");
  await expect(viewer).toBeVisible();
  await expect(page.getByTestId("report-viewer")).toHaveCount(0);
  await hydrated(page);
  const before = await shownPixels(page);
  expect(before.src).toMatch(/\/0\.png\?preset=default$/);
  await shot(page, info, "imaging-expert-default");

  await page.getByTestId("preset-lung").click();
  await expect(page).toHaveURL(/[?&]p=lung/);
  await expect(page.getByTestId("study-frame")).toHaveAttribute("src", /preset=lung$/);
  const lung = await shownPixels(page);
  expect(lung.png.data.equals(before.png.data)).toBe(false);
  await expect
    .poll(() =>
      page
        .getByTestId("study-frame")
        .evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth),
    )
    .toBe(96);
  await shot(page, info, "imaging-expert-lung");

  // With JavaScript the slider swaps the frame without a reload: image 3 is the third instance.
  const slider = page.getByTestId("frame-slider");
  await slider.fill("3");
  await expect(page.getByTestId("frame-number")).toHaveText("Image 3 of 4");
  await expect(page.getByTestId("study-frame")).not.toHaveAttribute("src", lung.src);
  const third = await shownPixels(page);
  expect(third.src).toMatch(/preset=lung$/);
  expect(third.png.data.equals(lung.png.data)).toBe(false);

  await page.getByTestId("zoom-in").click();
  await expect(page).toHaveURL(/[?&]z=2/);
  await noAxeViolations(page);
  await shot(page, info, "imaging-expert-zoom");
});

test("the viewer without JavaScript: the slider is a form, presets are links", async ({ browser }, info) => {
  const context = await personContext(browser, info, { javaScriptEnabled: false });
  w.contexts.push(context);
  const page = await context.newPage();
  await logIn(page, w.patient.email, w.patient.password);
  await page.goto(`/dashboard/images/${w.reportId}`);
  await page.getByTestId("preset-bone").click();
  await expect(page.getByTestId("study-frame")).toHaveAttribute("src", /preset=bone$/);
  await page.getByTestId("frame-slider").fill("2");
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(/[?&]n=2/);
  await expect(page.getByTestId("frame-number")).toHaveText("Image 2 of 4");
  await expect(page.getByTestId("study-frame")).toHaveAttribute("src", /preset=bone$/);
});

test("the patient's images page in Hindi, Bengali and Tamil", async ({ browser }, info) => {
  const page = await person(browser, info, w.patient);
  for (const lng of ["hi", "bn", "ta"] as const) {
    const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
    await page.context().addCookies([{ name: "lng", value, url: info.project.use.baseURL! }]);
    await page.goto(`/dashboard/images/${w.reportId}`);
    await expect(page.locator("html")).toHaveAttribute("lang", lng);
    await expect(page.getByTestId("personal-fields")).not.toContainText("This file carries");
    await expect(page.getByTestId("study-frame")).toBeVisible();
    await noAxeViolations(page);
    await shot(page, info, `imaging-patient-${lng}`);
  }
});
