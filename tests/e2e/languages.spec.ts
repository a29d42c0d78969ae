import { expect, test, type Browser, type Page, type TestInfo } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import bn from "../../app/i18n/locales/bn";
import en from "../../app/i18n/locales/en";
import hi from "../../app/i18n/locales/hi";
import ta from "../../app/i18n/locales/ta";
import { ADMIN, approveExperts, logIn, newUser, patientWithReport, personContext, signUp } from "./fixtures";
import { shot, sideways } from "./helpers";

/**
 * Every screen in each language: no English catalogue string may show through untranslated
 * (strings a language keeps the same, such as "PDF", are allowed by being equal in its catalogue).
 */
const flat = (obj: object, prefix = ""): [string, string][] =>
  Object.entries(obj).flatMap(([k, v]) =>
    typeof v === "string" ? [[prefix + k, v] as [string, string]] : flat(v as object, `${prefix}${k}.`),
  );

const CATALOGUES = { hi, bn, ta } as const;
// Names people typed are content, not UI: the bootstrap admin is called "Admin".
const ALLOWED = new Set(["CareBridge", "English", "Admin"]);
/** What the walk types as data, in English whatever the screen's language. */
const DATA = ["Tamil Nadu"];

function englishLeaks(text: string, lng: keyof typeof CATALOGUES) {
  const target = new Map(flat(CATALOGUES[lng]));
  return flat(en)
    .filter(([key, value]) => {
      if (target.get(key) === value || ALLOWED.has(value)) return false;
      const plain = value.replace(/\{\{\w+\}\}/g, "").trim();
      if (plain.length < 5 || !/[a-z]{3}/i.test(plain) || value.includes("{{")) return false;
      // A whole string, not a piece of a longer word ("value" in what a reviewer wrote, "values").
      return new RegExp(
        `(?<![\\p{L}\\p{N}])${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}\\p{N}])`,
        "u",
      ).test(text);
    })
    .map(([key, value]) => `${key}: "${value}"`);
}

async function setLang(page: Page, lng: string) {
  const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
  await page.context().addCookies([{ name: "lng", value, url: test.info().project.use.baseURL! }]);
}

test.describe.configure({ mode: "serial" });

/** An approved expert, signed in (the admin approves through the API). */
async function approvedExpert(browser: Browser, info: TestInfo, admin: Page) {
  const expert = newUser("Expert", info, "Ravi", "Menon");
  await signUp(await (await personContext(browser, info)).newPage(), expert);
  await approveExperts(admin, [expert.email]);
  const page = await (await personContext(browser, info)).newPage();
  await logIn(page, expert.email, expert.password);
  return { page, email: expert.email, password: expert.password };
}

/**
 * What the queues and lists show in every state, so their longest words are on the page (as the
 * other specs leave them when they run first): the patient's report reviewed (her reports screen
 * with its opinion; the expert's and admin's reviewed lists), another patient's urgent report in
 * review (the queues' flags and badges), a centre with no turnaround yet.
 */
async function listsWithEveryState(
  browser: Browser,
  info: TestInfo,
  expert: { page: Page; email: string; password: string },
  apage: Page,
  reportId: string,
) {
  const tokenOf = async (p: Page, email: string, password: string) =>
    (await (await p.request.post("/api/v1/auth/login", { data: { email, password } })).json())
      .token as string;
  const { page, user } = await patientWithReport(browser, info, "Blood Test");
  // What people type is content; no word of it may be a whole English string of the catalogue
  // ("since" is one), or the check below would read it as a leak.
  const urgent = await page.request.post("/api/v1/report/upload-report", {
    headers: { Authorization: `Bearer ${await tokenOf(page, user.email, user.password)}` },
    multipart: {
      reportType: "ECG",
      phoneNumber: "9876543210",
      description: "Chest pain all morning",
      urgent: "true",
      urgentReason: "Chest pain all morning with sweating",
      report: {
        name: "r.pdf",
        mimeType: "application/pdf",
        buffer: readFileSync(path.join("tests", "fixtures", "sample-report.pdf")),
      },
    },
  });
  expect(urgent.status()).toBe(201);
  const headers = { Authorization: `Bearer ${await tokenOf(expert.page, expert.email, expert.password)}` };
  const post = (url: string, data?: object) => expert.page.request.post(url, { headers, data });
  expect((await post(`/api/v1/report/claim/${reportId}`)).status()).toBe(200);
  const review = { review: "Normal ECG: sinus rhythm at 72 a minute, no ST changes." };
  expect((await post(`/api/v1/report/add-review/${reportId}`, review)).status()).toBe(200);
  expect((await post(`/api/v1/report/claim/${(await urgent.json()).data._id}`)).status()).toBe(200);
  await apage.goto("/dashboard/centres");
  await apage.getByLabel("Centre name").fill(`Ayushman Arogya Mandir ${Date.now().toString(36)}`);
  await apage.getByLabel("Kind of centre").selectOption("hwc");
  await apage.getByLabel("PIN code").fill("635109");
  await apage.getByLabel("District").fill("Krishnagiri");
  await apage.getByLabel("State").fill("Tamil Nadu");
  await apage.getByRole("button", { name: "Add centre" }).click();
  await expect(apage).toHaveURL(/\/dashboard\/centres\/[a-f0-9]{24}$/);
}

/**
 * On the phone, in each language: no English shows through, and the page never scrolls sideways —
 * long words wrap, and a table too wide for the screen scrolls inside its own box. The words shown
 * do not depend on the width, so this walk runs once; the desktop's widths are measured by
 * a11y.spec.ts, which shows every screen in English and Tamil (the longest words) at 1280 px
 * (decision 0099).
 */
test("no untranslated English and no sideways page on any screen in Hindi, Bengali or Tamil", async ({
  browser,
}, info) => {
  test.setTimeout(300_000);
  const { page: ppage, report } = await patientWithReport(browser, info, "ECG");
  const apage = await (await personContext(browser, info)).newPage();
  await logIn(apage, ADMIN.email, ADMIN.password);
  const expert = await approvedExpert(browser, info, apage);
  const epage = expert.page;
  const vpage = await (await personContext(browser, info)).newPage();
  await listsWithEveryState(browser, info, expert, apage, report._id);

  const screens: [Page, string][] = [
    ...["/", "/about-us", "/contact-us", "/login", "/login-code", "/signup", "/forgot-password", "/nope"].map(
      (p) => [vpage, p] as [Page, string],
    ),
    ...[
      "/dashboard/home",
      "/dashboard/my-profile",
      "/dashboard/settings",
      "/dashboard/upload-report",
      `/dashboard/previous-report/${report.patient._id}`,
      `/dashboard/share/${report._id}`,
      "/dashboard/my-data",
      "/dashboard/family",
      "/report-submitted",
      "/logout",
    ].map((p) => [ppage, p] as [Page, string]),
    ...[
      "/dashboard/home",
      "/dashboard/pending-report",
      `/dashboard/add-review/${report._id}`,
      "/dashboard/previous-reviewed-report",
      "/dashboard/follow-ups",
    ].map((p) => [epage, p] as [Page, string]),
    ...[
      "/dashboard/home",
      "/dashboard/pending-expert",
      "/dashboard/pending-report",
      "/dashboard/previous-reviewed-report",
      "/dashboard/previous-reviewed-reports",
      "/dashboard/approved-expert",
      "/dashboard/audit-log",
      "/dashboard/users",
      "/dashboard/service",
      "/dashboard/turnaround",
      "/dashboard/rights-requests",
      "/dashboard/messages",
      "/dashboard/messages?kind=calls",
      "/dashboard/phrases",
      "/dashboard/take-overs",
      "/dashboard/centres",
    ].map((p) => [apage, p] as [Page, string]),
  ];
  const leaks: string[] = [];
  const wide: string[] = [];
  const who = new Map([
    [vpage, "visitor"],
    [ppage, "patient"],
    [epage, "expert"],
    [apage, "admin"],
  ]);
  for (const lng of ["hi", "bn", "ta"] as const) {
    for (const [page, p] of screens) {
      await setLang(page, lng);
      await page.goto(p);
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
      const over = await sideways(page);
      if (over) wide.push(`[${lng}] ${p} is ${over}`);
      if (lng === "ta") await shot(page, info, `ta-${who.get(page)}${p.replace(/[^a-z0-9-]+/gi, "_")}`);
      // Every word of the page, shown or not: what the phone layout hides (the desktop's side menu,
      // closed dialogs) is read too, so one width misses nothing.
      // Text marked as English on purpose (a phrase's English wording beside its translations) is
      // not a leak, nor is what this test typed as data (the centre's state, "Tamil Nadu").
      const text = await page.evaluate(() => {
        const body = document.body.cloneNode(true) as HTMLElement;
        for (const el of body.querySelectorAll('script, style, template, [lang="en"]')) el.remove();
        return body.textContent ?? "";
      });
      const words = DATA.reduce((rest, typed) => rest.replaceAll(typed, ""), text);
      for (const leak of englishLeaks(words, lng)) leaks.push(`[${lng}] ${p} ${leak}`);
    }
  }
  for (const page of [vpage, ppage, apage, epage]) await setLang(page, "en");
  expect(leaks).toEqual([]);
  expect(wide).toEqual([]);
});

test("an upload over a 400 kbit/s connection shows steady progress and succeeds", async ({
  browser,
}, info) => {
  test.setTimeout(180_000);
  const patient = newUser("Patient", info, "Gopal", "Singh");
  const page = await (await personContext(browser, info)).newPage();
  await signUp(page, patient);
  await logIn(page, patient.email, patient.password);
  await page.goto("/dashboard/upload-report");
  await expect(page.locator('button[aria-haspopup="dialog"]').first()).toBeAttached();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 300,
    downloadThroughput: 50_000,
    uploadThroughput: 50_000,
  });
  // ~400 KB of real PDF: about 8 s at 400 kbit/s.
  const pdf = readFileSync(path.join("tests", "fixtures", "sample-report.pdf"));
  const big = Buffer.concat([pdf, Buffer.from(`\n%${"x".repeat(400 * 1024)}\n`)]);
  await page.locator('select[name="reportType"]').selectOption("X-Ray");
  await page
    .locator('input[name="report"]')
    .setInputFiles({ name: "slow.pdf", mimeType: "application/pdf", buffer: big });
  await page.locator('input[name="phoneNumber"]').fill("9876543210");
  await page.locator('input[name="consent"]').check();
  await page.getByRole("button", { name: "Upload Report" }).click();
  const progress = page.locator("progress");
  await expect(progress).toBeVisible();
  const seen = new Set<number>();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !page.url().endsWith("/report-submitted")) {
    const v = await progress.getAttribute("value", { timeout: 500 }).catch(() => null);
    if (v !== null) seen.add(Math.round(Number(v)));
    await page.waitForTimeout(250);
  }
  await expect(page).toHaveURL(/\/report-submitted$/, { timeout: 60_000 });
  const steps = [...seen].filter((v) => v > 0 && v < 100);
  expect(steps.length).toBeGreaterThanOrEqual(3);
});
