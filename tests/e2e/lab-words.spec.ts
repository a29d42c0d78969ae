import { expect, test, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { atBothWidths, axeAtItsWidth } from "./axe";
import { ADMIN, hydrated, logIn, personContext } from "./fixtures";

/**
 * The admin's lab words in a real browser (decision 0108): a review of the ticked words recorded
 * and a word corrected (with JavaScript), the same review without it (the list's checkboxes belong
 * to the review form by its id); in English and Hindi nothing is wider than the screen at 360 or
 * 1280 px and axe finds nothing. Screenshots at both widths go to SHOTS_DIR when it is set.
 */

const SHOTS = process.env.SHOTS_DIR;
const SCREEN = "/dashboard/lab-words";

async function setLang(page: Page, lng: string) {
  const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
  await page.context().addCookies([{ name: "lng", value, url: test.info().project.use.baseURL! }]);
}

/** The row of a word, found by its checkbox's name. */
const rowOf = (page: Page, name: string | RegExp) =>
  page.locator("tr", { has: page.getByRole("checkbox", { name }) });

test.describe.configure({ mode: "serial" });

test("an admin records a review of the ticked words and corrects one, then takes the correction back", async ({
  browser,
}, info) => {
  test.setTimeout(180_000);
  const page = await (await personContext(browser, info)).newPage();
  await logIn(page, ADMIN.email, ADMIN.password);
  await setLang(page, "en");
  await page.goto(`${SCREEN}?language=hi&kind=all`);
  await hydrated(page);
  await expect(
    page.getByRole("heading", { level: 1, name: "Lab words in patients' languages" }),
  ).toBeVisible();
  await expect(page.getByRole("link", { name: /^Hindi: \d+ of \d+ reviewed$/ })).toHaveAttribute(
    "aria-current",
    "page",
  );
  const below = rowOf(page, /^The reviewer approved: test name value unit — below the range/);
  const hb = rowOf(page, "The reviewer approved: Haemoglobin");
  await expect(below).toContainText("Not yet reviewed");
  await below.getByRole("checkbox").check();
  await hb.getByRole("checkbox").check();
  await page.getByLabel("Reviewed by (name and qualification)").fill("Dr Meena Iyer, MD (Pathology)");
  await page.getByRole("button", { name: "Record the review of the ticked words" }).first().click();
  await expect(page.getByText("Review recorded. Words: 2.")).toBeVisible();
  await expect(below).toContainText("Reviewed by Dr Meena Iyer, MD (Pathology) on");
  await expect(hb).toContainText("Reviewed by Dr Meena Iyer, MD (Pathology) on");
  await expect(rowOf(page, /^The reviewer approved: test name value unit — above the range/)).toContainText(
    "Not yet reviewed",
  );

  // A correction: the form opens at the word, refuses Latin letters with the reason, then saves.
  await expect(hb.getByRole("checkbox")).not.toBeChecked();
  await hb.getByRole("link", { name: /^Correct ?: Haemoglobin$/ }).click();
  const form = page.getByTestId("lab-correct-form");
  await expect(form).toBeVisible();
  await form.getByLabel("Corrected text").fill("Haemoglobin");
  await form
    .getByLabel("Who gave or checked the correction (name and qualification)")
    .fill("Dr Meena Iyer, MD");
  await form.getByRole("button", { name: "Save the correction" }).click();
  await expect(form.getByText("Write the correction in Hindi (Devanagari script).")).toBeVisible();
  await form.getByLabel("Corrected text").fill("हीमोग्लोबिन (ख़ून का लाल तत्व)");
  await form.getByRole("button", { name: "Save the correction" }).click();
  await expect(page.getByText("Correction saved: patients read it from now on.")).toBeVisible();
  await expect(hb).toContainText("हीमोग्लोबिन (ख़ून का लाल तत्व)");
  await expect(hb).toContainText("Corrected on");

  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  // The sentences (the longest words) with the correction form open: axe sees every kind of control
  // and cell the whole list has, in a page a tenth of its length.
  for (const lng of ["en", "hi"]) {
    await setLang(page, lng);
    await page.goto(`${SCREEN}?language=hi&kind=judgement&word=labs.below`);
    await expect(page.locator("html")).toHaveAttribute("lang", lng);
    await atBothWidths(page, async (width) => {
      const over = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(over, `${lng} at ${width} px`).toBeLessThanOrEqual(0);
      if (SHOTS) {
        await page.screenshot({ path: `${SHOTS}/lab-words-${lng}-${width}.png` });
        await page.screenshot({ path: `${SHOTS}/lab-words-${lng}-${width}-full.png`, fullPage: true });
      }
    });
    const { violations } = await axeAtItsWidth(page, lng);
    expect(
      violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
      lng,
    ).toEqual([]);
  }

  // Taken back: the first text again.
  await setLang(page, "en");
  await page.goto(`${SCREEN}?language=hi&kind=all&word=name.718-7`);
  await page.getByRole("button", { name: "Remove the correction and show the first text again" }).click();
  await expect(page.getByText("Correction removed: the first text is shown again.")).toBeVisible();
  await expect(hb).not.toContainText("ख़ून का लाल तत्व");
  await expect(hb).toContainText("reviewed an earlier text");
});

test("without JavaScript the ticked words' review is recorded all the same", async ({ browser }, info) => {
  const page = await (await personContext(browser, info, { javaScriptEnabled: false })).newPage();
  await page.goto("/login");
  await page.getByLabel("Email Address").fill(ADMIN.email);
  await page.getByLabel(/^Password/).fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.goto(`${SCREEN}?language=ta&kind=flag`);
  const flag = rowOf(page, "The reviewer approved: Above the printed range");
  await expect(flag).toContainText("Not yet reviewed");
  await flag.getByRole("checkbox").check();
  await page.getByLabel("Reviewed by (name and qualification)").fill("Dr S. Lakshmi, MD");
  await page.getByRole("button", { name: "Record the review of the ticked words" }).last().click();
  await expect(page.getByText("Review recorded. Words: 1.")).toBeVisible();
  await expect(flag).toContainText("Reviewed by Dr S. Lakshmi, MD on");
});
