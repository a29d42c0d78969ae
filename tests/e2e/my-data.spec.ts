import { axeAtItsWidth } from "./axe";
import { expect, test, type Browser, type BrowserContext, type Page, type TestInfo } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ADMIN, hydrated, logIn, newUser, personContext, signUp, type TestUser } from "./fixtures";
import { shot } from "./helpers";

/**
 * My data, once per project (desktop 1280 px, phone 360 px): a patient with a reviewed
 * and a waiting report sees what withdrawing review consent would do, confirms, and the waiting
 * report leaves the queue while the reviewed one stays; the patient asks for a correction and an
 * admin answers it from the rights queue (preview, then send); the patient reads the answer. The
 * pages pass axe (WCAG 2.x A/AA) in every language, and their screenshots are kept.
 */

const PDF = readFileSync(path.join("tests", "fixtures", "sample-report.pdf"));

type World = { patient: TestUser; token: string; adminToken: string; contexts: BrowserContext[] };
let w: World;

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  w = {
    patient: newUser("Patient", test.info(), "Kavita", `Sharma ${Math.random().toString(36).slice(2, 7)}`),
    token: "",
    adminToken: "",
    contexts: [],
  };
});

test.afterAll(async () => {
  for (const c of w.contexts) await c.close().catch(() => {});
});

async function person(browser: Browser, info: TestInfo, who: { email: string; password: string }) {
  const c = await personContext(browser, info);
  w.contexts.push(c);
  const page = await c.newPage();
  await logIn(page, who.email, who.password);
  return page;
}

const toaster = (page: Page) => page.getByTestId("toaster");

async function apiUpload(page: Page, reportType: string) {
  const res = await page.request.post("/api/v1/report/upload-report", {
    headers: { Authorization: `Bearer ${w.token}` },
    multipart: {
      reportType,
      phoneNumber: "9876543210",
      consent: "true",
      report: { name: "r.pdf", mimeType: "application/pdf", buffer: PDF },
    },
  });
  expect(res.status()).toBe(201);
  return (await res.json()).data._id as string;
}

async function setLang(page: Page, lng: string) {
  const base = test.info().project.use.baseURL!;
  const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
  await page.context().addCookies([{ name: "lng", value, url: base }]);
}

async function axe(page: Page, paths: string[]) {
  // The patient's screens run at phone width only (one viewport per flow), so in all four languages,
  // each at its width (decision 0099).
  const locales = ["en", "hi", "bn", "ta"];
  const failures: string[] = [];
  for (const p of paths) {
    for (const lng of locales) {
      await setLang(page, lng);
      await page.goto(p);
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
      const result = await axeAtItsWidth(page, lng, ["label-content-name-mismatch"]);
      if (lng !== "en" && p === "/dashboard/my-data")
        await shot(page, test.info(), `my-data-${lng}-${p.includes("rights") ? "admin" : "page"}`);
      for (const v of result.violations)
        failures.push(
          `${p} [${lng}] ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`,
        );
    }
  }
  await setLang(page, "en");
  expect(failures).toEqual([]);
}

/** Nothing on the page is wider than the screen (phone-first at 360 px). */
async function fitsTheScreen(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test("a patient withdraws review consent on My data: the waiting report leaves the queue, the reviewed one stays", async ({
  browser,
}, info) => {
  const c = await personContext(browser, info);
  w.contexts.push(c);
  const page = await c.newPage();
  await signUp(page, w.patient);
  await logIn(page, w.patient.email, w.patient.password);
  const login = await page.request.post("/api/v1/auth/login", {
    data: { email: w.patient.email, password: w.patient.password },
  });
  w.token = (await login.json()).token;
  w.adminToken = (await (await page.request.post("/api/v1/auth/login", { data: ADMIN })).json()).token;

  // One report is reviewed by an expert; the other still waits (the admin checks the queue).
  const reviewed = await apiUpload(page, "Blood Test");
  const waiting = await apiUpload(page, "ECG");
  const expert = newUser("Expert", info, "Farah", `Khan ${Math.random().toString(36).slice(2, 7)}`);
  const ep = await (await personContext(browser, info)).newPage();
  await signUp(ep, expert);
  const expertToken = (
    await (
      await ep.request.post("/api/v1/auth/login", {
        data: { email: expert.email, password: expert.password },
      })
    ).json()
  ).token;
  const expertId = (
    await (
      await ep.request.get("/api/v1/profile/get-user-details", {
        headers: { Authorization: `Bearer ${expertToken}` },
      })
    ).json()
  ).data._id;
  await ep.request.post("/api/v1/expert/approve-expert", {
    headers: { Authorization: `Bearer ${w.adminToken}` },
    data: { expertId },
  });
  const review = await ep.request.post(`/api/v1/report/add-review/${reviewed}`, {
    headers: { Authorization: `Bearer ${expertToken}` },
    data: { review: "Your blood count is normal." },
  });
  expect(review.status()).toBe(200);
  await ep.context().close();

  const admin = await person(browser, info, ADMIN);
  await admin.goto("/dashboard/pending-report");
  await expect(admin.locator("main")).toContainText(w.patient.lastName);

  await page.goto("/dashboard/settings");
  await page.getByRole("link", { name: "Open My data" }).click();
  await expect(page).toHaveURL(/\/dashboard\/my-data$/);
  await hydrated(page);
  const card = page.locator("#consent-review");
  await expect(card).toContainText("Given");
  await expect(card).toContainText("Text version: review-2026-11");
  // The effect is stated before anything is done: one report waiting, one reviewed.
  await expect(card).toContainText("your reports still waiting for a review (1)");
  await expect(card).toContainText("Your reviewed reports (1) stay with you");
  await fitsTheScreen(page);
  await shot(page, info, "my-data-patient");

  await card.getByRole("link", { name: "Withdraw consent" }).click();
  const confirm = card.getByRole("alertdialog");
  await expect(confirm).toContainText("Withdraw your consent to review?");
  await shot(page, info, "my-data-withdraw-confirm");
  await confirm.getByRole("button", { name: "Withdraw and delete waiting reports (1)" }).click();
  await expect(toaster(page)).toContainText("Reports removed from the experts' queue and deleted: 1");
  await expect(page.locator("#consent-review")).toContainText("Withdrawn");
  await expect(page.locator("#consent-review")).toContainText("You have no reports waiting for a review");
  await shot(page, info, "my-data-withdrawn");

  // The expert queue no longer has it; the patient keeps the reviewed report.
  await admin.goto("/dashboard/pending-report");
  await expect(admin.locator("main")).not.toContainText(w.patient.lastName);
  const own = await page.request.get(
    `/api/v1/report/get-report-by-patientId/${(await login.json()).user._id}`,
    {
      headers: { Authorization: `Bearer ${w.token}` },
    },
  );
  expect((await own.json()).data.map((r: { _id: string }) => r._id)).toEqual([reviewed]);
  expect(waiting).not.toBe(reviewed);
});

test("the patient asks for a correction; an admin answers it from the queue; the patient reads it", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.patient);
  await page.goto("/dashboard/my-data#requests");
  await hydrated(page);
  const details = `Please correct my surname to ${w.patient.lastName}-Rao`;
  await page.getByRole("button", { name: "Send request" }).click();
  await expect(page.locator("#requests")).toContainText("Write what should be corrected.");
  await page.getByLabel("What should we correct?").fill(details);
  await page.getByRole("button", { name: "Send request" }).click();
  await expect(toaster(page)).toContainText("Your request has been sent.");
  await expect(page.locator("#requests")).toContainText(details);
  await expect(page.locator("#requests")).toContainText("Open");

  const admin = await person(browser, info, ADMIN);
  await admin.goto("/dashboard/rights-requests?type=correction");
  await hydrated(admin);
  const item = admin.locator("li[data-request]", { hasText: details });
  await expect(item).toBeVisible();
  await item.getByLabel("Answer to the person").fill("Done: your surname now reads as you asked.");
  await fitsTheScreen(admin);
  await shot(admin, info, "rights-queue");
  await item.getByRole("button", { name: "Mark done" }).click();
  const confirm = item.getByRole("alertdialog");
  await expect(confirm).toContainText("Mark this request done?");
  await expect(confirm).toContainText("Done: your surname now reads as you asked.");
  await shot(admin, info, "rights-queue-confirm");
  await confirm.getByRole("button", { name: "Send the answer" }).click();
  await expect(toaster(admin)).toContainText("The request has been answered.");
  await expect(admin.locator("li[data-request]", { hasText: details })).toHaveCount(0);

  await page.reload();
  const mine = page.locator("#requests li", { hasText: details });
  await expect(mine).toContainText("Done");
  await expect(mine).toContainText("Done: your surname now reads as you asked.");
  await shot(page, info, "my-data-answered");
});

test("My data, the rights queue and the cancel page pass axe in every language", async ({
  browser,
}, info) => {
  test.setTimeout(180_000); // four languages × four pages on a busy 2-core machine
  const page = await person(browser, info, w.patient);
  await axe(page, ["/dashboard/my-data", "/my-data/cancel-erasure/not-a-token"]);
  const admin = await person(browser, info, ADMIN);
  await axe(admin, ["/dashboard/rights-requests?status=all", "/dashboard/my-data"]);
  await admin.goto("/dashboard/rights-requests?status=all");
  await shot(admin, info, "rights-queue-all");
});
