import {
  expect,
  test,
  type Browser,
  type BrowserContext,
  type CDPSession,
  type Page,
  type TestInfo,
} from "@playwright/test";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PHOTO_MAX_SIDE } from "../../app/components/reports/photo";
import { samplePdf } from "../../scripts/samples";
import { hydrated, logIn, newUser, personContext, phonePhoto, signUp, type TestUser } from "./fixtures";
import { shot } from "./helpers";

/**
 * Uploads that survive a dropped connection (decision 0015), in Chromium at 1280 and
 * 360 px: a 1.2 MB PDF over a throttled link cut mid-way (offline) continues from the server's
 * offset when the link is back; an upload cut by a reload continues after choosing the same file
 * again (at 50 kbit/s); a large photo is made smaller before it travels, a PDF is sent as it is.
 */

test.describe.configure({ mode: "serial" });

const CHUNK = 512 * 1024;
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** A real PDF (the sample) followed by incompressible filler after its end: `size` bytes. */
function bigPdf(size: number): Buffer {
  const head = samplePdf("Resumable upload test");
  const filler = Buffer.from(`%${randomBytes(size).toString("base64")}`, "latin1");
  return Buffer.concat([head, filler]).subarray(0, size);
}

let patient: TestUser;
const contexts: BrowserContext[] = [];

test.beforeAll(async ({ browser }) => {
  const info = test.info();
  patient = newUser("Patient", info, "Meena", "Kumari");
  const context = await browser.newContext({
    baseURL: info.project.use.baseURL,
    viewport: { width: 1280, height: 800 },
  });
  contexts.push(context);
  await signUp(await context.newPage(), patient);
});

test.afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
});

async function patientPage(browser: Browser, info: TestInfo): Promise<Page> {
  const context = await personContext(browser, info);
  contexts.push(context);
  const page = await context.newPage();
  await logIn(page, patient.email, patient.password);
  await hydrated(page);
  return page;
}

/** Throughput in bytes per second; 0 = offline; null = unthrottled. */
async function network(cdp: CDPSession, bytesPerSecond: number | null) {
  await cdp.send("Network.emulateNetworkConditions", {
    offline: bytesPerSecond === 0,
    latency: bytesPerSecond === null ? 0 : 150,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond === null || bytesPerSecond === 0 ? -1 : bytesPerSecond,
  });
}

async function fillForm(page: Page, reportType: string, description: string) {
  await page.getByLabel(/^Report Type/).selectOption(reportType);
  await page.getByLabel(/^Phone Number/).fill("9876543210");
  await page.getByLabel(/^Description/).fill(description);
  await page.getByLabel(/I hereby give my consent/).check();
}

/** Every tus request of the page: PATCH offsets and the bytes each meant to send, HEAD answers. */
function watchTus(page: Page, fileSize: number) {
  const log = { patches: [] as number[], heads: [] as number[], bytes: 0 };
  page.on("request", (r) => {
    if (r.method() !== "PATCH" || !r.url().includes("/api/v1/uploads/")) return;
    const offset = Number(r.headers()["upload-offset"]);
    log.patches.push(offset);
    log.bytes += Math.min(CHUNK, fileSize - offset);
  });
  page.on("response", (r) => {
    if (r.request().method() === "HEAD" && r.url().includes("/api/v1/uploads/")) {
      log.heads.push(Number(r.headers()["upload-offset"]));
    }
  });
  return log;
}

const progress = (page: Page) => page.getByTestId("upload-progress");
const percent = async (page: Page) => Number(await progress(page).getAttribute("data-percent"));

async function downloadOf(
  page: Page,
  description: string,
): Promise<{ bytes: Buffer; type: string; id: string }> {
  await page.goto("/dashboard/home");
  // The navigation may be folded behind "Menu" on a phone: follow the link's address.
  const previous = page.getByRole("link", { name: "Previous Report", includeHidden: true }).first();
  await page.goto((await previous.getAttribute("href"))!);
  const card = page.getByTestId("report-card").filter({ hasText: description });
  const link = card.locator('a[href*="/api/v1/report/"], img[src*="/api/v1/report/"]').first();
  const href = (await link.getAttribute("href")) ?? (await link.getAttribute("src"))!;
  const res = await page.request.get(href);
  expect(res.status()).toBe(200);
  return {
    bytes: Buffer.from(await res.body()),
    type: res.headers()["content-type"],
    id: href.match(/\/report\/([^/]+)\/file/)![1],
  };
}

test("a 1.2 MB PDF over a throttled link: cut mid-way, it waits below 100 %, continues from the server's offset, and arrives unchanged", async ({
  browser,
}, info) => {
  test.setTimeout(120_000);
  const page = await patientPage(browser, info);
  const file = bigPdf(1_200_000);
  const tus = watchTus(page, file.length);
  await page.goto("/dashboard/upload-report");
  // The form's handlers are attached first: a file chosen before would be lost.
  await hydrated(page);
  await fillForm(page, "Blood Test", `Resumed PDF ${info.project.name}`);
  await page
    .getByLabel(/^Report File/)
    .setInputFiles({ name: "blood-test.pdf", mimeType: "application/pdf", buffer: file });
  // A PDF is sent as it is: its own size, no photo line.
  await expect(page.getByTestId("chosen-file")).toContainText("blood-test.pdf (1.1 MB)");
  await expect(page.getByTestId("photo-size")).toHaveCount(0);

  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await network(cdp, 64 * 1024); // 512 kbit/s
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(progress(page)).toContainText(/\d+% uploaded · .+ of 1\.1 MB/);
  await expect.poll(() => percent(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(35);

  // The link drops.
  await network(cdp, 0);
  await expect(page.getByTestId("upload-waiting")).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("upload-waiting")).toContainText(
    "The connection was lost. The upload will continue by itself when the connection is back.",
  );
  const stopped = await percent(page);
  expect(stopped).toBeLessThan(100);
  await page.waitForTimeout(2_000);
  expect(await percent(page)).toBe(stopped); // nothing moves while offline
  await shot(page, info, "resumable-waiting");
  const patchesBefore = tus.patches.length;

  // The link is back: the page notices by itself, asks the server where to continue, and goes on.
  await network(cdp, 256 * 1024);
  await expect(page).toHaveURL(/\/report-submitted$/, { timeout: 60_000 });
  const resumedAt = tus.heads.find((o) => o > 0);
  expect(resumedAt, "HEAD told a non-zero offset").toBeGreaterThan(0);
  expect(tus.patches.slice(patchesBefore)).toContain(resumedAt);
  expect(tus.patches.slice(patchesBefore).every((o) => o > 0)).toBe(true);
  // Far less than sending the file twice: at most one chunk again.
  expect(tus.bytes).toBeLessThan(file.length * 1.5);
  await network(cdp, null);
  await cdp.detach();

  const stored = await downloadOf(page, `Resumed PDF ${info.project.name}`);
  expect(stored.type).toMatch(/^application\/pdf/);
  expect(sha(stored.bytes)).toBe(sha(file));
});

test("a reload mid-upload at 50 kbit/s: choosing the same file again offers to continue, with the details filled in", async ({
  browser,
}, info) => {
  test.setTimeout(120_000);
  const page = await patientPage(browser, info);
  const file = bigPdf(150_000);
  // A file on disk, as a patient chooses it: the same name, size and date both times.
  const dir = path.join("test-results", "tmp");
  mkdirSync(dir, { recursive: true });
  const onDisk = path.join(dir, `ecg-${info.project.name}.pdf`);
  writeFileSync(onDisk, file);
  const description = `Reloaded upload ${info.project.name}`;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await page.goto("/dashboard/upload-report");
  // The form's handlers are attached first: a file chosen before would be lost.
  await hydrated(page);
  await fillForm(page, "ECG", description);
  await page.getByLabel(/^Report File/).setInputFiles(onDisk);
  await network(cdp, 6_250); // 50 kbit/s
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect.poll(() => percent(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(30);

  // The patient reloads (or the browser is killed): the PATCH in flight is cut.
  await page.reload();
  await hydrated(page);
  await expect(page.getByTestId("resume-hint")).toHaveText(
    "An upload did not finish. Choose the same file again and it will continue where it stopped.",
  );
  await shot(page, info, "resumable-after-reload");

  const tus = watchTus(page, file.length);
  await page.getByLabel(/^Report File/).setInputFiles(onDisk);
  const found = page.getByTestId("resume-found");
  await expect(found).toContainText(/^\d+ kB of 146 kB of this file reached us before\./);
  const already = Number((await found.textContent())!.match(/^(\d+) kB/)![1]) * 1024;
  expect(already).toBeGreaterThan(30_000);
  // The details given then are back in the form.
  await expect(page.getByLabel(/^Report Type/)).toHaveValue("ECG");
  await expect(page.getByLabel(/^Description/)).toHaveValue(description);
  await expect(page.getByLabel(/I hereby give my consent/)).toBeChecked();
  await expect(page.getByTestId("resume-hint")).toHaveCount(0);
  await shot(page, info, "resumable-resume-found");

  await network(cdp, 6_250);
  await page.getByRole("button", { name: "Continue upload" }).click();
  await expect(progress(page)).toBeVisible();
  expect(await percent(page)).toBeGreaterThanOrEqual(20); // starts where the server is, not at 0
  await expect(page).toHaveURL(/\/report-submitted$/, { timeout: 60_000 });
  expect(tus.patches.length).toBeGreaterThanOrEqual(1);
  expect(tus.patches[0]).toBeGreaterThan(30_000);
  expect(tus.bytes).toBeLessThan(file.length);
  await network(cdp, null);
  await cdp.detach();

  const stored = await downloadOf(page, description);
  expect(sha(stored.bytes)).toBe(sha(file));
});

test("a phone photo is made smaller before it travels (sizes before and after), a PDF is sent as it is", async ({
  browser,
}, info) => {
  test.setTimeout(120_000);
  const page = await patientPage(browser, info);
  await page.goto("/dashboard/upload-report");
  // The form's handlers are attached first: a file chosen before would be lost.
  await hydrated(page);
  const photo = await phonePhoto(page);
  expect(photo.length).toBeGreaterThan(2_000_000);

  await fillForm(page, "Blood Test", `Photo ${info.project.name}`);
  await page
    .getByLabel(/^Report File/)
    .setInputFiles({ name: "IMG_20260301.jpg", mimeType: "image/jpeg", buffer: photo });
  const line = page.getByTestId("photo-size");
  await expect(line).toContainText(/^Photo made smaller for a quicker upload: [\d.]+ MB → [\d.]+ kB$/, {
    timeout: 20_000,
  });
  await expect(page.getByTestId("chosen-file")).toContainText("IMG_20260301.jpg");
  await shot(page, info, "resumable-photo-smaller");
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(page).toHaveURL(/\/report-submitted$/, { timeout: 30_000 });

  const stored = await downloadOf(page, `Photo ${info.project.name}`);
  expect(stored.type).toMatch(/^image\/(webp|jpeg)/);
  expect(stored.bytes.length).toBeLessThan(photo.length / 4);
  const img = page.getByRole("img", { name: "Image of the Blood Test report" }).first();
  // The 4000 × 3000 photo at the upload screen's long side (decision 0109).
  await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(PHOTO_MAX_SIDE);
  expect(await img.evaluate((el) => (el as HTMLImageElement).naturalHeight)).toBe((PHOTO_MAX_SIDE * 3) / 4);

  // A PDF next: untouched, byte for byte.
  const pdf = bigPdf(300_000);
  await page.goto("/dashboard/upload-report");
  // The form's handlers are attached first: a file chosen before would be lost.
  await hydrated(page);
  await fillForm(page, "MRI", `Untouched PDF ${info.project.name}`);
  await page
    .getByLabel(/^Report File/)
    .setInputFiles({ name: "mri.pdf", mimeType: "application/pdf", buffer: pdf });
  await expect(page.getByTestId("chosen-file")).toContainText("mri.pdf (293 kB)");
  await page.waitForTimeout(500);
  await expect(page.getByTestId("photo-size")).toHaveCount(0);
  await page.getByRole("button", { name: "Upload Report" }).click();
  await expect(page).toHaveURL(/\/report-submitted$/, { timeout: 30_000 });
  const storedPdf = await downloadOf(page, `Untouched PDF ${info.project.name}`);
  expect(sha(storedPdf.bytes)).toBe(sha(pdf));
});
