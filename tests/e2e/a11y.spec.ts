import { expect, test, type Page } from "@playwright/test";
import path from "node:path";
import { ADMIN, logIn, newUser, patientWithReport, personContext, readOtp, signUp } from "./fixtures";
import { LANGUAGE_WIDTH, wcagAxe, WIDTHS } from "./axe";
import { shot, SHOTS_ON, sideways } from "./helpers";

/**
 * Accessibility: axe-core with every WCAG 2.x A/AA tag (2.0, 2.1, 2.2) on every screen, for every
 * role, each language once, at its width (LANGUAGE_WIDTH: English and Tamil in the desktop project,
 * Hindi and Bengali in the phone project; decision 0099); and no screen scrolls sideways (the
 * desktop's width check: languages.spec.ts measures every screen at the phone's).
 * The phone project's screenshots of each role's screens, in English, make the gallery under
 * test-results/screens/phone.
 */
const LOCALES = {
  desktop: Object.keys(LANGUAGE_WIDTH).filter((l) => LANGUAGE_WIDTH[l] === WIDTHS[0]),
  phone: Object.keys(LANGUAGE_WIDTH).filter((l) => LANGUAGE_WIDTH[l] === WIDTHS[1]),
};

async function setLang(page: Page, lng: string) {
  const base = test.info().project.use.baseURL!;
  // Remix cookies hold base64-encoded JSON.
  const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
  await page.context().addCookies([{ name: "lng", value, url: base }]);
}

test.describe.configure({ mode: "serial" });

async function axeRun(page: Page, paths: string[], role: string) {
  const info = test.info();
  const failures: string[] = [];
  const locales = info.project.name === "phone" ? LOCALES.phone : LOCALES.desktop;
  for (const p of paths) {
    if (info.project.name === "phone" && SHOTS_ON) {
      await setLang(page, "en");
      await page.goto(p);
      await shot(page, info, `gallery-${role}-${p.replace(/\//g, "_").replace(/^_/, "") || "home"}`);
    }
    for (const lng of locales) {
      await setLang(page, lng);
      await page.goto(p);
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
      const result = await wcagAxe(page).analyze();
      const wide = await sideways(page);
      if (wide) failures.push(`${role} ${p} [${lng}] is ${wide}`);
      // WCAG 2.5.3 on every screen: each header menu's name holds what it shows (the account
      // menu's initials, "WZ"; the language), whatever axe's heuristics make of what is inside.
      for (const menu of await page.locator("header summary").all()) {
        const shown = (await menu.innerText()).trim();
        const name = (await menu.getAttribute("aria-label")) ?? shown;
        if (shown && !name.includes(shown))
          failures.push(`${role} ${p} [${lng}] header menu: name "${name}" lacks its text "${shown}"`);
      }
      for (const v of result.violations) {
        failures.push(
          `${role} ${p} [${lng}] ${v.id}: ${v.help} — ${v.nodes
            .map((n) => n.target.join(" "))
            .slice(0, 3)
            .join(" | ")}`,
        );
      }
    }
    await setLang(page, "en");
  }
  if (failures.length) console.log(failures.join("\n"));
  expect(failures).toEqual([]);
}

type World = {
  patient: Page;
  expert: Page;
  admin: Page;
  report: { _id: string; patient: { _id: string } };
  expertEmail: string;
  patientEmail: string;
  patientPassword: string;
};
let w: World;

test.beforeAll(async ({ browser }, info) => {
  test.setTimeout(120_000);
  const { page: ppage, report, user: patientUser } = await patientWithReport(browser, info);
  const expert = newUser("Expert", info, "Ravi", "Menon");
  const epage = await (await personContext(browser, info)).newPage();
  await signUp(epage, expert);
  await logIn(epage, expert.email, expert.password);
  const apage = await (await personContext(browser, info)).newPage();
  await logIn(apage, ADMIN.email, ADMIN.password);
  w = {
    patient: ppage,
    expert: epage,
    admin: apage,
    report,
    expertEmail: expert.email,
    patientEmail: patientUser.email,
    patientPassword: patientUser.password,
  };
});

test("axe: visitor screens", async ({ browser }, info) => {
  test.setTimeout(360_000);
  const page = await (await personContext(browser, info)).newPage();
  await axeRun(
    page,
    [
      "/",
      "/about-us",
      "/contact-us",
      "/login",
      "/signup",
      "/forgot-password",
      "/no-such-page",
      "/api-docs",
      "/verify",
      "/verify/ABCD-EFGH-JKMN",
    ],
    "visitor",
  );
});

test("axe: patient screens", async () => {
  test.setTimeout(360_000);
  await axeRun(
    w.patient,
    [
      "/dashboard/home",
      "/dashboard/my-profile",
      "/dashboard/settings",
      "/dashboard/upload-report",
      `/dashboard/previous-report/${w.report.patient._id}`,
      "/report-submitted",
      "/logout",
      `/dashboard/share/${w.report._id}`,
    ],
    "patient",
  );
});

test("axe: a shared report's public pages", async ({ browser }, info) => {
  test.setTimeout(360_000);
  const base = info.project.use.baseURL!;
  // The patient makes a link with a passcode through the screen's API twin.
  const login = await w.patient.request.post("/api/v1/auth/login", {
    data: { email: w.patientEmail, password: w.patientPassword },
  });
  const created = await w.patient.request.post("/api/v1/report/share-links", {
    data: { reportId: w.report._id, label: "Dr. Rao", passcode: "482913" },
    headers: { Authorization: `Bearer ${(await login.json()).token}` },
  });
  expect(created.status()).toBe(201);
  const url = new URL((await created.json()).data.url as string);
  const page = await (await personContext(browser, info)).newPage();
  // The landing page (passcode form) and a link that does not exist.
  await axeRun(page, [url.pathname, "/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"], "doctor");
  // Opened: the shared report (the file; the opinion not written yet).
  const opened = await page.request.post(url.pathname, {
    form: { passcode: "482913" },
    headers: { Origin: base },
    maxRedirects: 0,
  });
  expect(opened.status()).toBe(303);
  await axeRun(page, [url.pathname], "doctor-opened");
});

test("axe: unapproved expert screens", async () => {
  test.setTimeout(360_000);
  await axeRun(
    w.expert,
    [
      "/dashboard/home",
      "/dashboard/pending-report",
      `/dashboard/add-review/${w.report._id}`,
      // Screens for other account types: the dashboard says why.
      "/dashboard/upload-report",
      `/dashboard/previous-report/${w.report.patient._id}`,
    ],
    "expert-unapproved",
  );
});

test("axe: admin screens", async () => {
  test.setTimeout(480_000);
  await axeRun(
    w.admin,
    [
      "/dashboard/home",
      "/dashboard/pending-expert",
      "/dashboard/pending-report",
      "/dashboard/previous-reviewed-report",
      "/dashboard/previous-reviewed-reports",
      "/dashboard/approved-expert",
      "/dashboard/audit-log",
      "/dashboard/users",
      "/dashboard/messages",
      "/dashboard/messages?kind=callback",
      "/dashboard/messages?kind=sms",
      "/dashboard/turnaround",
      "/dashboard/settings",
      `/dashboard/previous-report/${w.report.patient._id}`,
      `/dashboard/add-review/${w.report._id}`,
      "/dashboard/upload-report",
    ],
    "admin",
  );
});

test("axe: centres and health workers (admins; a health worker waiting for approval)", async ({
  browser,
}, info) => {
  test.setTimeout(480_000);
  // The admin adds a centre on the centres screen.
  const centreName = `Ayushman Arogya Mandir ${info.project.name} ${Date.now().toString(36)}`;
  await w.admin.goto("/dashboard/centres");
  await w.admin.getByLabel("Centre name").fill(centreName);
  await w.admin.getByLabel("Kind of centre").selectOption("hwc");
  await w.admin.getByLabel("PIN code").fill("635109");
  await w.admin.getByLabel("District").fill("Krishnagiri");
  await w.admin.getByLabel("State").fill("Tamil Nadu");
  await w.admin.getByRole("button", { name: "Add centre" }).click();
  await expect(w.admin).toHaveURL(/\/dashboard\/centres\/[a-f0-9]{24}$/);
  const centrePath = new URL(w.admin.url()).pathname;
  // A health worker signs up for it on the signup screen and waits for approval.
  const hw = newUser("Patient", info, "Lakshmi", "Devi");
  hw.email = hw.email.replace(/^patient-/, "hw-");
  const page = await (await personContext(browser, info)).newPage();
  await page.goto("/signup");
  await page.locator("label", { hasText: /^Health worker$/ }).click();
  await page.getByLabel("First Name").fill(hw.firstName);
  await page.getByLabel("Last Name").fill(hw.lastName);
  await page.getByLabel("Email Address").fill(hw.email);
  await page.getByLabel("Phone Number").fill(hw.phone);
  const details = page.getByTestId("health-worker-details");
  await expect(details).toBeVisible();
  await details
    .locator('select[name="centreId"]')
    .selectOption({ label: `${centreName} — Krishnagiri, Tamil Nadu` });
  await details.locator('select[name="workerRole"]').selectOption("cho");
  await details.locator('input[name="workerId"]').fill("CHO-TN-0042");
  await page.getByLabel(/^Password/).fill(hw.password);
  await page.getByLabel(/^Confirm Password/).fill(hw.password);
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page).toHaveURL(/\/verify-email$/);
  const code = await readOtp(hw.email);
  for (let i = 0; i < 6; i++) await page.getByLabel(`Digit ${i + 1} of 6`).fill(code[i]);
  await page.getByRole("button", { name: "Verify Email" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await logIn(page, hw.email, hw.password);
  await expect(page.getByTestId("awaiting-approval")).toContainText(centreName);
  await axeRun(page, ["/dashboard/home"], "health-worker-waiting");
  await axeRun(
    w.admin,
    [
      "/dashboard/centres",
      centrePath,
      "/dashboard/centres/workers",
      "/dashboard/centres/workers?status=suspended",
    ],
    "admin-centres",
  );
  // Screenshots of each screen in English and Hindi for people to look at.
  for (const lng of ["en", "hi"]) {
    await setLang(w.admin, lng);
    for (const [name, p] of [
      ["centres", "/dashboard/centres"],
      ["centre", centrePath],
      ["workers", "/dashboard/centres/workers"],
    ]) {
      await w.admin.goto(p);
      await shot(w.admin, info, `centres-${name}-${lng}`);
    }
    await setLang(page, lng);
    await page.goto("/dashboard/home");
    await shot(page, info, `centres-hw-waiting-${lng}`);
  }
  await setLang(w.admin, "en");
  // The admin approves them on the health workers screen.
  await w.admin.goto("/dashboard/centres/workers");
  await w.admin
    .locator("li, tr, article")
    .filter({ hasText: hw.email })
    .first()
    .getByRole("button", { name: "Approve" })
    .click();
  await expect(w.admin.getByText("Health worker approved.")).toBeVisible();
  await axeRun(w.admin, ["/dashboard/centres/workers?status=approved"], "admin-centres-approved");
  await w.admin.goto("/dashboard/centres/workers?status=approved");
  await shot(w.admin, info, "centres-workers-approved-en");
});

test("axe: approved expert screens", async () => {
  test.setTimeout(360_000);
  await w.admin.goto("/dashboard/pending-expert");
  await w.admin
    .locator("li, tr, article")
    .filter({ hasText: w.expertEmail })
    .first()
    .getByRole("button", { name: "Approve" })
    .click();
  await expect(w.admin.getByText("Expert Approved!")).toBeVisible();
  await axeRun(
    w.expert,
    [
      "/dashboard/pending-report",
      `/dashboard/add-review/${w.report._id}`,
      "/dashboard/previous-reviewed-report",
      "/dashboard/follow-ups",
      "/dashboard/approved-expert",
      "/dashboard/my-profile",
      "/dashboard/settings",
    ],
    "expert",
  );
});

test("the upload flow and the review flow work with the keyboard alone", async ({ browser }, info) => {
  test.skip(info.project.name !== "desktop", "keyboard flow once, at desktop width");
  test.setTimeout(120_000);
  const patient = newUser("Patient", info, "Kiran", "Rao");
  const ctx = await personContext(browser, info);
  const page = await ctx.newPage();
  await signUp(page, patient);
  await logIn(page, patient.email, patient.password);
  await page.goto("/dashboard/upload-report");
  // Move focus into the form with Tab only, filling each control as it gets focus.
  const tabTo = async (selector: string) => {
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press("Tab");
      if (await page.locator(selector).evaluate((el) => el === document.activeElement)) return;
    }
    throw new Error(`could not Tab to ${selector}`);
  };
  await tabTo('select[name="reportType"]');
  await page.keyboard.press("ArrowDown");
  await tabTo('input[name="report"]');
  await page
    .locator('input[name="report"]')
    .setInputFiles(path.join("tests", "fixtures", "sample-report.pdf"));
  await tabTo('input[name="phoneNumber"]');
  await page.keyboard.type("9876543210");
  await tabTo('input[name="consent"]');
  await page.keyboard.press("Space");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/report-submitted$/);

  const actx = await personContext(browser, info);
  const admin = await actx.newPage();
  await logIn(admin, ADMIN.email, ADMIN.password);
  const expert = newUser("Expert", info, "Neha", "Das");
  const ectx = await personContext(browser, info);
  const epage = await ectx.newPage();
  await signUp(epage, expert);
  await admin.goto("/dashboard/pending-expert");
  await admin
    .locator("li, tr, article")
    .filter({ hasText: expert.email })
    .first()
    .getByRole("button", { name: "Approve" })
    .focus();
  await admin.keyboard.press("Enter");
  await expect(admin.getByText("Expert Approved!")).toBeVisible();

  await logIn(epage, expert.email, expert.password);
  await epage.goto("/dashboard/pending-report");
  const startReview = epage.getByRole("button", { name: /Start review/ }).first();
  await startReview.focus();
  await epage.keyboard.press("Enter");
  await expect(epage).toHaveURL(/\/dashboard\/add-review\//);
  await epage.locator('textarea[name="review"]').focus();
  await epage.keyboard.type("All values normal.");
  // Summary → findings → recommendations → the phrase book's first sentence, ticked with Space
  // (decision 0081) → the rest of the book → the next steps' three "add" buttons (decision 0114)
  // → the "see a doctor soon" box → Submit Review.
  for (let i = 0; i < 3; i++) await epage.keyboard.press("Tab");
  const first = epage.getByLabel("Your report looks normal.");
  await expect(first).toBeFocused();
  await epage.keyboard.press("Space");
  await expect(first).toBeChecked();
  const phrases = await epage.getByTestId("phrase-picker").getByRole("checkbox").count();
  for (let i = 0; i < phrases; i++) await epage.keyboard.press("Tab");
  await expect(epage.getByRole("button", { name: /Repeat tests/ })).toBeFocused();
  for (let i = 0; i < 4; i++) await epage.keyboard.press("Tab");
  await expect(epage.getByRole("button", { name: "Submit Review" })).toBeFocused();
  await epage.keyboard.press("Enter");
  await expect(epage.getByText("Review Added Successfully")).toBeVisible();
});
