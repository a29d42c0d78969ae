import { expect, test, type Browser, type BrowserContext, type Page, type TestInfo } from "@playwright/test";
import PDFDocument from "pdfkit";
import hi from "../../app/i18n/locales/hi";
import { labPdf } from "../helpers/lab-corpus";
import { approveExperts, hydrated, logIn, newUser, personContext, signUp, type TestUser } from "./fixtures";
import { shot, shotTo } from "./helpers";
import { wcagAxe } from "./axe";

/**
 * Lab values read from reports (decisions 0082, 0084, 0090), in real Chromium: a patient uploads
 * two lab PDFs (made in code, their values known); the reader finds the values; the expert, at
 * 1280 px, finds them before the opinion form, shows one where it was read on the page, confirms,
 * corrects, removes (and undoes it) and adds values (a bad number is refused and kept), confirms
 * the rest in one step — controls never moving under the pointer — and writes the opinion; at
 * 360 px, on the second report, removes, undoes and confirms all by keyboard; the patient, at
 * 360 px in Hindi, sees only the checked values in plain words and Haemoglobin charted over her
 * two reports, with a table.
 */

type World = { patient: TestUser; expert: TestUser; reports: string[]; contexts: BrowserContext[] };
let w: World;

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  const info = test.info();
  w = {
    patient: newUser("Patient", info, "Kamala", "Rao"),
    expert: { ...newUser("Expert", info, "Farah", "Khan"), specialties: ["Pathology"] },
    reports: [],
    contexts: [],
  };
});

test.afterAll(async () => {
  for (const c of w.contexts) await c.close().catch(() => {});
});

async function person(browser: Browser, info: TestInfo, who: TestUser) {
  const c = await personContext(browser, info);
  w.contexts.push(c);
  const page = await c.newPage();
  await logIn(page, who.email, who.password);
  return page;
}

async function tokenOf(page: Page, who: TestUser): Promise<string> {
  const login = await page.request.post("/api/v1/auth/login", {
    data: { email: who.email, password: who.password },
  });
  return (await login.json()).token as string;
}

const toaster = (page: Page) => page.getByTestId("toaster");

/** The add-review screen of `reportId`, reloaded until the reader has stored its values. */
async function openWithValues(page: Page, reportId: string, count: number) {
  await expect(async () => {
    await page.goto(`/dashboard/add-review/${reportId}`);
    await expect(page.getByTestId("lab-value")).toHaveCount(count, { timeout: 1_000 });
  }).toPass({ timeout: 45_000 });
  await hydrated(page);
}

const valueRow = (page: Page, name: string) => page.getByTestId("lab-value").filter({ hasText: name });

/** Where a control is on the page (scrolled out of the picture: the document's coordinates). */
async function placeOf(l: ReturnType<Page["locator"]>) {
  return l.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { x: Math.round(r.x + scrollX), y: Math.round(r.y + scrollY), w: Math.round(r.width) };
  });
}

/** Where each value's row begins. */
const rowTops = (page: Page) =>
  page
    .getByTestId("lab-value")
    .evaluateAll((ls) => ls.map((l) => Math.round(l.getBoundingClientRect().top + scrollY)));

/**
 * Remove, then Undo in the very same place (the same button, focus kept), then Remove again: the
 * value ends removed, and nothing else in the list moved meanwhile.
 */
async function removeUndoRemove(page: Page, name: string) {
  // The row by its id: its buttons' names change, and "MCH" is also in "MCHC".
  const id = await page
    .getByTestId("lab-value")
    .filter({ has: page.getByRole("button", { name: `Remove: ${name}`, exact: true }) })
    .getAttribute("id");
  const row = page.locator(`[id="${id}"]`);
  const remove = row.getByRole("button", { name: `Remove: ${name}`, exact: true });
  const at = await placeOf(remove);
  const rows = await rowTops(page);
  await remove.click();
  await expect(row).toHaveAttribute("data-status", "removed");
  const undo = row.getByRole("button", { name: `Undo removal: ${name}`, exact: true });
  await expect(undo).toBeFocused();
  expect(await placeOf(undo)).toEqual(at);
  expect(await rowTops(page)).toEqual(rows);
  await page.keyboard.press("Enter");
  await expect(row).toHaveAttribute("data-status", "read");
  await expect(toaster(page)).toContainText("Removal undone.");
  await expect(remove).toBeFocused();
  await remove.click();
  await expect(row).toHaveAttribute("data-status", "removed");
}

test("the patient uploads two lab reports; an approved pathologist takes them", async ({ browser }, info) => {
  const setup = await (await personContext(browser, info)).newPage();
  w.contexts.push(setup.context());
  await signUp(setup, w.patient);
  await signUp(setup, w.expert);
  await approveExperts(setup, [w.expert.email]);
  const token = await tokenOf(setup, w.patient);
  // The second prints the sample's date (12 March 2025) and the units of an Indian lab (/cumm, lakhs/cumm).
  for (const layout of ["table", "cumm-units"] as const) {
    const up = await setup.request.post("/api/v1/report/upload-report", {
      headers: { Authorization: `Bearer ${token}` },
      multipart: {
        reportType: "Blood Test",
        phoneNumber: "9876543210",
        description: "CBC",
        report: { name: `${layout}.pdf`, mimeType: "application/pdf", buffer: await labPdf(layout) },
      },
    });
    expect(up.status(), await up.text()).toBe(201);
    w.reports.push((await up.json()).data._id);
  }
  const expertToken = await tokenOf(setup, w.expert);
  for (const id of w.reports) {
    const claim = await setup.request.post(`/api/v1/report/claim/${id}`, {
      headers: { Authorization: `Bearer ${expertToken}` },
    });
    expect(claim.status(), await claim.text()).toBe(200);
  }
});

test("the expert checks the values read from the first report and writes the opinion", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.expert);
  await openWithValues(page, w.reports[0], 8);
  const section = page.getByTestId("lab-review");
  await expect(section.getByRole("heading", { name: "Values read from this report" })).toBeVisible();
  // Beside the file and before the opinion form (decision 0090), open: eight to check.
  await expect(section.getByTestId("lab-counts")).toHaveText("Not checked: 8 · Checked: 0 · Removed: 0");
  expect((await placeOf(section)).y).toBeLessThan((await placeOf(page.getByLabel(/^Summary/))).y);
  const hb = valueRow(page, "Haemoglobin");
  await expect(hb.getByTestId("lab-reading")).toHaveText("9.8 g/dL");
  await expect(hb).toContainText("12.0 - 15.5");
  await expect(hb).toContainText("Below the printed range");
  await expect(hb).toContainText("Not checked");

  // Where it was read: the PDF's page, with the value's line marked on it.
  await hb.getByRole("link", { name: "Show on page: Haemoglobin" }).click();
  const preview = page.getByTestId("lab-preview");
  await expect(preview).toContainText("Where Haemoglobin was read (page 1)");
  const img = preview.locator("img");
  await expect
    .poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth))
    .toBeGreaterThan(500);
  const pic = (await img.boundingBox())!;
  const mark = (await preview.getByTestId("lab-highlight").boundingBox())!;
  expect(mark.width).toBeGreaterThan(pic.width * 0.3);
  expect(mark.height).toBeLessThan(pic.height * 0.05);
  expect(mark.y).toBeGreaterThan(pic.y + pic.height * 0.1);
  expect(mark.y + mark.height).toBeLessThan(pic.y + pic.height * 0.6);
  await shot(page, info, "lab-review-preview");

  // Confirm: its place is left empty, Remove stays where it was, the next value's Confirm has the focus.
  const hbRemove = await placeOf(hb.getByRole("button", { name: "Remove: Haemoglobin" }));
  await hb.getByRole("button", { name: "Confirm: Haemoglobin 9.8 g/dL" }).click();
  await expect(toaster(page)).toContainText("Value saved.");
  await expect(valueRow(page, "Haemoglobin")).toContainText("Confirmed");
  expect(await placeOf(hb.getByRole("button", { name: "Remove: Haemoglobin" }))).toEqual(hbRemove);
  await expect(
    valueRow(page, "Haematocrit").getByRole("button", { name: /^Confirm: Haematocrit/ }),
  ).toBeFocused();

  // A correction in one step.
  const pcv = valueRow(page, "Haematocrit");
  await pcv.locator("label", { hasText: "Correct" }).click();
  await pcv.getByLabel("Value").fill("31.5");
  await pcv.getByRole("button", { name: "Save correction" }).click();
  await expect(valueRow(page, "Haematocrit")).toContainText("Corrected");
  await expect(valueRow(page, "Haematocrit").getByTestId("lab-reading")).toHaveText("31.5 %");

  // A bad number is refused, said next to the field, and what was typed stays.
  const mcv = valueRow(page, "MCV");
  await mcv.locator("label", { hasText: "Correct" }).click();
  await mcv.getByLabel("Value").fill("eighty");
  await mcv.getByRole("button", { name: "Save correction" }).click();
  await expect(valueRow(page, "MCV")).toContainText("Enter the value as a number, e.g. 9.8.");
  await expect(valueRow(page, "MCV").getByLabel("Value")).toHaveValue("eighty");
  await expect(valueRow(page, "MCV")).toContainText("Not checked");

  // A removal undone in the same place, then removed for good.
  await removeUndoRemove(page, "ESR");
  await expect(valueRow(page, "ESR")).toContainText("Removed");

  // One the reader missed.
  await section.getByText("Add a value the reader missed").click();
  await section.getByRole("combobox", { name: "Test" }).selectOption("2132-9");
  const add = section.locator("form", { has: page.locator('input[value="lab-add"]') });
  await add.getByLabel("Value").fill("310");
  await add.getByLabel("Unit").fill("pg/mL");
  await add.getByLabel("Printed range (if any)").fill("211 - 911");
  await add.getByRole("button", { name: "Add value" }).click();
  await expect(valueRow(page, "Vitamin B12")).toContainText("Added");

  // The rest (the refused MCV among them) in one step, once any read with doubt was confirmed on
  // its own (never in bulk, decision 0090); the rows stay where they were.
  await confirmDoubtful(page);
  const rows = await rowTops(page);
  const all = section.getByRole("button", { name: /^Confirm all unchecked values \(\d+\)$/ });
  const n = Number(/\((\d+)\)/.exec((await all.textContent()) ?? "")?.[1]);
  expect(n).toBeGreaterThanOrEqual(4);
  await all.click();
  await expect(toaster(page)).toContainText(`Values confirmed: ${n}.`);
  await expect(section.getByText("Every value has been checked.")).toBeFocused();
  await expect(page.locator('[data-testid="lab-value"][data-status="read"]')).toHaveCount(0);
  await expect(section.getByTestId("lab-counts")).toHaveText("Not checked: 0 · Checked: 8 · Removed: 1");
  expect(await rowTops(page)).toEqual(rows);

  expect((await wcagAxe(page).include('[data-testid="lab-review"]').analyze()).violations).toEqual([]);
  await shot(page, info, "lab-review-checked");

  await page.getByLabel(/^Summary/).fill("Mild anaemia; the rest of the blood count is near normal.");
  await page.getByLabel(/^Findings/).fill("Hb 9.8 g/dL, MCV low: iron deficiency is likely.");
  await page.getByLabel(/^Recommendations/).fill("Iron tablets for three months; repeat the blood count.");
  await page.getByRole("button", { name: "Submit Review" }).click();
  await expect(toaster(page)).toContainText("Review Added Successfully");
});

test("the second report, at 360 px: the expert corrects Haemoglobin, removes and undoes, confirms all by keyboard, sends the opinion", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.expert);
  await page.setViewportSize({ width: 360, height: 740 });
  await openWithValues(page, w.reports[1], 10);
  const hb = valueRow(page, "Haemoglobin");
  await hb.locator("label", { hasText: "Correct" }).click();
  await hb.getByLabel("Value").fill("10.4");
  // The range as the report prints it, in parts by sex: kept whole (decision 0105). Her sex is not
  // recorded, so the part cannot be chosen and nothing is judged against either.
  await hb.getByLabel("Printed range (if any)").fill("Male : 13.0 - 17.0 Female : 12.0 - 15.0");
  await hb.getByRole("button", { name: "Save correction" }).click();
  await expect(valueRow(page, "Haemoglobin")).toContainText("Corrected");
  await expect(valueRow(page, "Haemoglobin")).toContainText("Male : 13.0 - 17.0");
  await expect(valueRow(page, "Haemoglobin")).toContainText("Female : 12.0 - 15.0");
  const partsShot = (width: number) =>
    shotTo(
      valueRow(page, "Haemoglobin"),
      `test-results/screens/${info.project.name}/lab-review-parts-${width}.png`,
    );
  await partsShot(360);
  await page.setViewportSize({ width: 1280, height: 800 });
  await partsShot(1280);
  await page.setViewportSize({ width: 360, height: 740 });
  await removeUndoRemove(page, "MCH");
  // Confirm all, from the keyboard (any value read with doubt first, on its own).
  await confirmDoubtful(page);
  const all = page.getByRole("button", { name: /^Confirm all unchecked values \(\d+\)$/ });
  const n = Number(/\((\d+)\)/.exec((await all.textContent()) ?? "")?.[1]);
  expect(n).toBeGreaterThanOrEqual(7);
  await all.focus();
  await page.keyboard.press("Enter");
  await expect(toaster(page)).toContainText(`Values confirmed: ${n}.`);
  await expect(page.locator('[data-testid="lab-value"][data-status="read"]')).toHaveCount(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  expect((await wcagAxe(page).include('[data-testid="lab-review"]').analyze()).violations).toEqual([]);
  await shot(page, info, "lab-review-360");
  await page.getByLabel(/^Summary/).fill("Haemoglobin is rising with the iron tablets.");
  await page.getByLabel(/^Findings/).fill("Hb 10.4 g/dL.");
  await page.getByLabel(/^Recommendations/).fill("Go on with the iron tablets.");
  await page.getByRole("button", { name: "Submit Review" }).click();
  await expect(toaster(page)).toContainText("Review Added Successfully");
});

test("the patient, at 360 px in Hindi, sees only checked values in plain words and a chart over time", async ({
  browser,
}, info) => {
  const page = await person(browser, info, w.patient);
  await page.setViewportSize({ width: 360, height: 740 });
  await hydrated(page);
  await page.locator("summary[aria-label*='Change language']").first().click();
  await page.locator('button[name="lng"][value="hi"]').first().click();
  await expect(page.locator("html")).toHaveAttribute("lang", "hi");
  const login = await page.request.post("/api/v1/auth/login", {
    data: { email: w.patient.email, password: w.patient.password },
  });
  await page.goto(`/dashboard/previous-report/${(await login.json()).user._id}`);

  const lists = page.getByTestId("lab-values");
  await expect(lists).toHaveCount(2);
  // Newest first: the second report, then the first. Her name for the test, then her report's.
  const [second, first] = await lists.allInnerTexts();
  expect(first).toContain("हीमोग्लोबिन (Haemoglobin) 9.8 g/dL — आपकी रिपोर्ट पर छपी सीमा 12.0 - 15.5 से कम");
  expect(first).toContain("हीमैटोक्रिट (PCV) 31.5 % — आपकी रिपोर्ट पर छपी सीमा 36 - 46 से कम");
  // The range printed in parts, hers unknown: quoted whole, said not compared (decision 0105).
  expect(second).toContain(
    "हीमोग्लोबिन (Haemoglobin) 10.4 gm/dl — आपकी रिपोर्ट पर छपी सीमा Male : 13.0 - 17.0 Female : 12.0 - 15.0 है; इसका कौन-सा भाग आप पर लागू होता है, यह पता नहीं, इसलिए मान की तुलना इससे नहीं की गई",
  );
  expect(second).toContain(
    "प्लेटलेट्स (Platelet Count) 2.1 lakhs/cumm — आपकी रिपोर्ट पर छपी सीमा 1.5 - 4.1 के भीतर",
  );
  expect(first).toContain("310 pg/mL");
  // Removed values are not shown: ESR of the first report, MCH of the second.
  expect(first).not.toContain("ESR");
  expect(second).not.toMatch(/^MCH /m);
  expect(second).toMatch(/^MCHC /m);

  const series = page.getByTestId("lab-series");
  await expect(series.getByRole("heading", { name: hi.labs.seriesTitle })).toBeVisible();
  // Haemoglobin: the second report, dated 12 March 2025 on its paper, comes first; the first prints
  // no date and stands at the day it was uploaded, marked and said so.
  const hb = series.getByTestId("lab-chart").filter({ hasText: "हीमोग्लोबिन" });
  const rows = hb.locator("tbody tr");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText("12 मार्च 2025");
  await expect(rows.nth(0)).toContainText("10.4 g/dL");
  await expect(rows.nth(1)).toContainText("9.8 g/dL");
  await expect(rows.nth(1).locator("td").first()).toHaveText(/\*$/);
  await expect(hb.getByTestId("lab-axis-date")).toHaveText([/^12 मार्च 25$/, /\*$/]);
  await expect(hb.getByTestId("lab-dates-note")).toHaveText(hi.labs.datesMixed);
  await expect(hb.getByTestId("lab-band-label")).toHaveText(hi.labs.bandLabelEach);
  // Platelets in the unit her reports print, the band labelled with the range they print.
  const plt = series.getByTestId("lab-chart").filter({ hasText: "प्लेटलेट्स" });
  await expect(plt.locator("figcaption")).toContainText("प्लेटलेट्स (lakhs/cumm)");
  await expect(plt.locator("figcaption")).toContainText("आपकी रिपोर्ट पर: “Platelet Count”");
  await expect(plt.getByTestId("lab-band-label")).toHaveText(
    "हरी पट्टी: आपकी रिपोर्ट पर छपी सीमा, 1.5 - 4.1 lakhs/cumm",
  );
  await expect(plt.locator("tbody")).toContainText("2.1 lakhs/cumm");
  await expect(plt.locator("tbody")).toContainText("2.45 lakhs/cumm");
  await expect(plt.getByTestId("lab-band")).toHaveCount(2);
  await expect(series.locator("svg").first()).toBeVisible();
  // Readable at 360 px: nothing wider than the screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  expect((await wcagAxe(page).analyze()).violations).toEqual([]);
  await shot(page, info, "lab-values-patient-hi-360");
  const listShot = (width: number) =>
    shotTo(lists.first(), `test-results/screens/${info.project.name}/lab-values-parts-hi-${width}.png`);
  await listShot(360);
  await page.setViewportSize({ width: 1280, height: 800 });
  await listShot(1280);
});

/** Values read with doubt are never confirmed in bulk (decision 0090): each is confirmed on its own. */
async function confirmDoubtful(page: Page) {
  const doubtful = page.locator('[data-testid="lab-value"][data-status="read"]', {
    hasText: "Read with doubt",
  });
  for (let left = await doubtful.count(); left > 0; left--) {
    await doubtful
      .first()
      .getByRole("button", { name: /^Confirm:/ })
      .click();
    await expect(doubtful).toHaveCount(left - 1);
  }
}

/** A text-layer report of serology and the urine strip: words where numbers usually stand. */
function wordsPdf(): Promise<Buffer> {
  const doc = new PDFDocument({ size: "A4", margin: 50 });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((r) => doc.on("end", () => r(Buffer.concat(chunks))));
  doc.fontSize(14).text("City Diagnostics Laboratory", 50, 50);
  doc.fontSize(10).text("Test                Result        Unit      Reference Range", 50, 110);
  [
    "Haemoglobin          13.5          g/dL      12.0 - 15.5",
    "HBsAg : Reactive (Non-reactive)",
    "Anti HCV             Non Reactive            Non Reactive",
    "Urine Sugar          Nil                     Nil",
  ].forEach((l, j) => doc.text(l, 50, 132 + 22 * j, { lineBreak: false }));
  doc.end();
  return done;
}

test("text results (decision 0098), at 360 px: the expert sees the word and its flag and fixes one; the patient reads them in words", async ({
  browser,
}, info) => {
  const patient = newUser("Patient", info, "Lata", "Iyer");
  const expert = { ...newUser("Expert", info, "Ravi", "Menon"), specialties: ["Pathology"] };
  const setup = await (await personContext(browser, info)).newPage();
  w.contexts.push(setup.context());
  await signUp(setup, patient);
  await signUp(setup, expert);
  await approveExperts(setup, [expert.email]);
  const up = await setup.request.post("/api/v1/report/upload-report", {
    headers: { Authorization: `Bearer ${await tokenOf(setup, patient)}` },
    multipart: {
      reportType: "Blood Test",
      phoneNumber: "9876543210",
      report: { name: "serology.pdf", mimeType: "application/pdf", buffer: await wordsPdf() },
    },
  });
  expect(up.status(), await up.text()).toBe(201);
  const reportId = (await up.json()).data._id as string;
  const claim = await setup.request.post(`/api/v1/report/claim/${reportId}`, {
    headers: { Authorization: `Bearer ${await tokenOf(setup, expert)}` },
  });
  expect(claim.status(), await claim.text()).toBe(200);

  const page = await person(browser, info, expert);
  await page.setViewportSize({ width: 360, height: 740 });
  await openWithValues(page, reportId, 4);
  const hbsag = valueRow(page, "HBsAg");
  await expect(hbsag.getByTestId("lab-reading")).toHaveText("Reactive");
  await expect(hbsag.getByTestId("lab-flag")).toHaveText("Not the printed reference");
  await expect(valueRow(page, "Urine").getByTestId("lab-flag")).toHaveText("Same as the printed reference");
  // Fixing a word: a word from the list or typed; markup is refused with the rule, what was typed kept.
  const hcv = valueRow(page, "Anti-HCV");
  await hcv.locator("label", { hasText: "Correct" }).click();
  const result = hcv.getByLabel("Result");
  await expect(result).toHaveAttribute("maxlength", "40");
  await result.fill("<b>Reactive</b>");
  await hcv.getByRole("button", { name: "Save correction" }).click();
  await expect(hcv).toContainText("Use only letters, numbers, spaces and + - : / ( ) . ,");
  await shotTo(hcv, `test-results/screens/${info.project.name}/lab-text-fix-360.png`);
  await result.fill("Reactive");
  await hcv.getByRole("button", { name: "Save correction" }).click();
  await expect(valueRow(page, "Anti-HCV")).toContainText("Corrected");
  await expect(valueRow(page, "Anti-HCV").getByTestId("lab-flag")).toHaveText("Not the printed reference");
  await confirmDoubtful(page);
  await page.getByRole("button", { name: /^Confirm all unchecked values \(\d+\)$/ }).click();
  await expect(page.locator('[data-testid="lab-value"][data-status="read"]')).toHaveCount(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  expect((await wcagAxe(page).include('[data-testid="lab-review"]').analyze()).violations).toEqual([]);
  await shot(page, info, "lab-text-review-360");
  await page.getByLabel(/^Summary/).fill("Hepatitis B surface antigen is reactive.");
  await page.getByLabel(/^Findings/).fill("HBsAg reactive; anti-HCV reactive.");
  await page.getByLabel(/^Recommendations/).fill("See a liver specialist.");
  await page.getByRole("button", { name: "Submit Review" }).click();
  await expect(toaster(page)).toContainText("Review Added Successfully");

  const her = await person(browser, info, patient);
  await her.setViewportSize({ width: 360, height: 740 });
  const login = await setup.request.post("/api/v1/auth/login", {
    data: { email: patient.email, password: patient.password },
  });
  await her.goto(`/dashboard/previous-report/${(await login.json()).user._id}`);
  const list = her.getByTestId("lab-values");
  await expect(list).toContainText(
    "HBsAg: Reactive — not the normal result printed on your report, Non-reactive",
  );
  await expect(list).toContainText("Nil — the normal result printed on your report, Nil");
  await expect(her.getByTestId("lab-chart")).toHaveCount(0);
  expect(await her.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  expect((await wcagAxe(her).analyze()).violations).toEqual([]);
  await shot(her, info, "lab-text-patient-360");
});
