import { atBothWidths, axeAtBothWidths } from "./axe";
import { expect, test, type Page } from "@playwright/test";
import { TestAuthenticator } from "../helpers/totp-app";
import { hydrated, logIn, newUser, signUp } from "./fixtures";
import { shot } from "./helpers";

/**
 * Two-step login in the browser: an expert sets it up in Settings ("scanning" = reading
 * the key shown on the page), logs out, and logs in again with the password and a code.
 */

async function typeCode(page: Page, code: string) {
  for (let i = 0; i < 6; i++) await page.getByLabel(`Digit ${i + 1} of 6`).fill(code[i]);
}

/** Nothing in the page's main column is wider than the screen (phones widen the layout viewport instead of overflowing, so measure against the configured width). */
async function fitsWidth(page: Page) {
  // The expert's flow runs at desktop width; each screen is measured at the phone's too.
  await atBothWidths(page, async (viewport) => {
    const main = page.locator("main");
    const box = (await main.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(viewport);
    expect(await main.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  });
}

/** axe with every WCAG 2.x A/AA tag (as tests/e2e/a11y.spec.ts runs it) on the page as it is now. */
async function accessible(page: Page) {
  const result = await axeAtBothWidths(page, ["label-content-name-mismatch", "p-as-heading"]);
  expect(
    result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`),
  ).toEqual([]);
}

test("an expert turns on two-step login in Settings, then logs in with the password and a code", async ({
  page,
}, info) => {
  const expert = newUser("Expert", info, "Asha", "Verma");
  await signUp(page, expert);
  await logIn(page, expert.email, expert.password);
  await hydrated(page);

  await page.goto("/dashboard/settings");
  const section = page.locator("section", { has: page.getByRole("heading", { name: "Two-step login" }) });
  await expect(section).toContainText("authenticator app");
  await section.getByRole("link", { name: "Set up two-step login" }).click();
  await expect(page).toHaveURL(/\/dashboard\/two-step$/);
  // The URL changes before the new screen is drawn: wait for its heading.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Two-step login");
  // The password first, to start and again to turn it on.
  await page.getByLabel("Password", { exact: true }).fill(expert.password);
  await page.getByRole("button", { name: "Set up two-step login" }).click();

  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Set up two-step login");
  const qr = page.getByRole("img", { name: /QR code/ });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const secret = (await page.getByTestId("mfa-secret").textContent())!.replace(/\s/g, "");
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await fitsWidth(page);
  await accessible(page);
  await shot(page, info, "two-step-setup");

  const app = new TestAuthenticator(secret);
  await page.getByLabel("Password", { exact: true }).fill(expert.password);
  await typeCode(page, app.wrong());
  await page.getByRole("button", { name: "Turn on two-step login" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "not right" })).toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill(expert.password);
  await typeCode(page, await app.next());
  await page.getByRole("button", { name: "Turn on two-step login" }).click();

  const codes = page.getByTestId("recovery-codes").locator("li");
  await expect(codes).toHaveCount(10);
  await expect(page.getByRole("heading", { name: "Your recovery codes" })).toBeFocused();
  await fitsWidth(page);
  await accessible(page);
  // Full-page shots draw the sticky header where the page is scrolled to: shoot from the top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, info, "two-step-recovery-codes");
  await page.getByRole("link", { name: "I have saved my codes" }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings$/);
  await expect(section).toContainText("Recovery codes left: 10");

  await page.goto("/logout");
  await page.getByRole("main").getByRole("button", { name: "Logout" }).click();
  await expect(page).toHaveURL(/\/$/);

  await page.goto("/login");
  await page.getByLabel("Email Address").fill(expert.email);
  await page.getByLabel(/^Password/).fill(expert.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/login-2fa$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Two-step login");
  await fitsWidth(page);
  await accessible(page);
  await shot(page, info, "two-step-code");
  await typeCode(page, await app.next());
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(/\/dashboard\/home$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/Welcome/);

  // In Tamil (the longest words): the management page and the code screen still fit the screen.
  await page.request.post("/set-language", { form: { lng: "ta", redirectTo: "/dashboard/two-step" } });
  await page.goto("/dashboard/two-step");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("இரு-படி உள்நுழைவு");
  await fitsWidth(page);
  await accessible(page);
  await shot(page, info, "two-step-manage-ta");
  await page.request.post("/logout");
  await page.request.post("/login", { form: { email: expert.email, password: expert.password } });
  await page.goto("/login-2fa");
  await expect(page.locator('input[name="d1"]')).toBeVisible();
  await page.getByText("தொலைபேசி தொலைந்ததா?").click();
  await expect(page.getByLabel("மீட்புக் குறியீடு")).toBeVisible();
  await fitsWidth(page);
  await accessible(page);
  await shot(page, info, "two-step-code-ta");
});
