import { expect, test, type Page } from "@playwright/test";
import { atBothWidths, axeAtItsWidth } from "./axe";
import { ADMIN, logIn, personContext } from "./fixtures";

/**
 * The admin's Service screen in a real browser (decision 0034), in each language: the charts are
 * there, nothing is wider than the screen, every table opens, axe finds nothing; without
 * JavaScript the same charts and tables are in the page. Screenshots go to SHOTS_DIR when set.
 */

const SHOTS = process.env.SHOTS_DIR;

async function setLang(page: Page, lng: string) {
  const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
  await page.context().addCookies([{ name: "lng", value, url: test.info().project.use.baseURL! }]);
}

test.describe.configure({ mode: "serial" });

test("the Service screen in four languages: charts, tables, no overflow, no axe violations", async ({
  browser,
}, info) => {
  test.setTimeout(120_000);
  const page = await (await personContext(browser, info)).newPage();
  await logIn(page, ADMIN.email, ADMIN.password);
  // Some traffic of its own, so the charts have something to draw.
  for (const p of ["/", "/about-us", "/api/v1/report/get-pending-reports", "/nope"])
    await page.request.get(p);
  for (const lng of ["en", "hi", "bn", "ta"]) {
    await setLang(page, lng);
    await page.goto("/dashboard/service");
    await expect(page.locator("html")).toHaveAttribute("lang", lng);
    await expect(page.locator("h1")).toHaveCount(1);
    await expect(page.locator('main svg[role="img"]')).toHaveCount(3 + 9);
    for (const summary of await page.locator("main details > summary").all()) await summary.click();
    await expect(page.locator("main details[open] table")).toHaveCount(4);
    // The admin's screen runs at desktop width; its width is measured at the phone's too, and axe runs
    // at each language's width (decision 0099).
    await atBothWidths(page, async (viewport) => {
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `page width in ${lng} at ${viewport} px`).toBeLessThanOrEqual(viewport);
    });
    const { violations } = await axeAtItsWidth(page, lng);
    expect(
      violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
      lng,
    ).toEqual([]);
    if (SHOTS) {
      await page.screenshot({ path: `${SHOTS}/service-${info.project.name}-${lng}.png`, fullPage: true });
      const sections = await page.locator("main section.card").all();
      for (const [i, section] of sections.entries())
        await section.screenshot({ path: `${SHOTS}/service-${info.project.name}-${lng}-${i + 1}.png` });
    }
  }
});

test("without JavaScript the charts and tables are in the page", async ({ browser }, info) => {
  const page = await (await personContext(browser, info, { javaScriptEnabled: false })).newPage();
  await page.goto("/login");
  await page.getByLabel("Email Address").fill(ADMIN.email);
  await page.getByLabel(/^Password/).fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.goto("/dashboard/service");
  await expect(page.getByRole("heading", { level: 1, name: "Service" })).toBeVisible();
  await expect(page.locator('main svg[role="img"]')).toHaveCount(3 + 9);
  await page.locator("main details > summary").first().click();
  await expect(page.locator('table[data-testid="table-requests"]')).toBeVisible();
});
