import { expect, test, type Page } from "@playwright/test";
import { samplePng } from "../../scripts/samples";
import { shot } from "./helpers";

// The bootstrap admin that tests/e2e/serve.mjs creates for each run.
const ADMIN = { email: "admin@carebridge.test", password: "Admin-pass-123" };

async function login(page: Page) {
  await page.goto("/login");
  await page.getByLabel("Email Address").fill(ADMIN.email);
  await page.getByLabel(/^Password/).fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/dashboard\/home$/);
}

/** The Logout entry becomes a dialog button once React has hydrated the page. */
async function hydrated(page: Page) {
  await expect(page.locator('button[aria-haspopup="dialog"]').first()).toBeAttached();
}

/** The visible sidebar; on phones it first opens the Menu disclosure. */
async function sidebar(page: Page) {
  const menu = page.locator("aside summary", { hasText: "Menu" });
  if (await menu.isVisible()) {
    const open = await menu.evaluate((summary) => (summary.parentElement as HTMLDetailsElement).open);
    if (!open) await menu.click();
  }
  const nav = page.getByRole("navigation", { name: "Dashboard navigation" });
  await expect(nav).toBeVisible();
  return nav;
}

/** Nothing in the dashboard's own columns is wider than the screen. */
async function expectFitsWidth(page: Page) {
  const viewport = page.viewportSize()!.width;
  for (const selector of ["aside", "main"]) {
    const box = await page.locator(selector).boundingBox();
    expect(box!.x + box!.width, selector).toBeLessThanOrEqual(viewport);
    const overflow = await page.locator(selector).evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow, selector).toBeLessThanOrEqual(0);
  }
}

test.describe("dashboard (admin)", () => {
  test("shell: title, sidebar entries, home buttons", async ({ page }, info) => {
    await login(page);
    await hydrated(page);
    await expect(page.getByRole("heading", { name: "Admin Dashboard" })).toBeVisible();
    // The admin's name may have been changed by the settings test in another project.
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^Welcome, .+!$/);
    await expect(page.locator("h1")).toHaveCount(1);
    const main = page.locator("main");
    await expect(main.getByRole("link", { name: "Pending Expert" })).toHaveAttribute(
      "href",
      "/dashboard/pending-expert",
    );
    await expect(main.getByRole("link", { name: "Approve Expert" })).toHaveAttribute(
      "href",
      "/dashboard/pending-expert",
    );
    await expect(main.getByRole("link", { name: "Pending Report" })).toHaveAttribute(
      "href",
      "/dashboard/pending-report",
    );
    if (info.project.name === "desktop") await shot(page, info, "dashboard-home");

    const nav = await sidebar(page);
    await expect(nav.getByRole("link", { name: "Home" })).toHaveAttribute("aria-current", "page");
    await expect(nav.getByRole("link", { name: "My Profile" })).toHaveAttribute(
      "href",
      "/dashboard/my-profile",
    );
    await expect(nav.getByRole("link", { name: "Pending Expert" })).toHaveAttribute(
      "href",
      "/dashboard/pending-expert",
    );
    await expect(nav.getByRole("link", { name: "Approved Experts" })).toHaveAttribute(
      "href",
      "/dashboard/approved-expert",
    );
    await expect(nav.getByRole("link", { name: "Audit Log" })).toHaveAttribute(
      "href",
      "/dashboard/audit-log",
    );
    await expect(nav.getByRole("link", { name: "Settings" })).toHaveAttribute("href", "/dashboard/settings");
    await expect(nav.getByRole("button", { name: "Logout" })).toBeVisible();
    // Patient and expert entries are not offered to an admin.
    await expect(nav.getByText("Upload Report")).toHaveCount(0);
    await expect(nav.getByText("Previous Report", { exact: true })).toHaveCount(0);
    // The Report group is closed on Home and holds the admin's two report pages.
    const group = nav.locator("details").filter({ hasText: "Report" });
    await expect(group).not.toHaveAttribute("open", "");
    await group.locator("summary").click();
    await expect(nav.getByRole("link", { name: "Pending Report" })).toHaveAttribute(
      "href",
      "/dashboard/pending-report",
    );
    await expect(nav.getByRole("link", { name: "Previous Reviewed Report" })).toHaveAttribute(
      "href",
      "/dashboard/previous-reviewed-reports",
    );
    if (info.project.name === "phone") await shot(page, info, "dashboard-menu");
    await expectFitsWidth(page);
  });

  test("the Report group opens by itself on one of its pages", async ({ page }) => {
    await login(page);
    const res = await page.goto("/dashboard/pending-report");
    test.skip(res?.status() === 404, "the pending-report screen is not built yet");
    const nav = await sidebar(page);
    const group = nav.locator("details").filter({ hasText: "Report" });
    await expect(group).toHaveAttribute("open", "");
    await expect(nav.getByRole("link", { name: "Pending Report" })).toHaveAttribute("aria-current", "page");
  });

  test("settings: profile validation, then a saved profile on My Profile", async ({ page }, info) => {
    await login(page);
    await page.goto("/dashboard/settings");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
    for (const name of ["Change Profile Picture", "Profile Information", "Password", "Delete Account"]) {
      await expect(page.getByRole("heading", { level: 2, name, exact: true })).toBeVisible();
    }
    const form = page.locator("#profile-form");
    // Empty every field (an earlier project's run may have saved a profile for this admin).
    await form.getByLabel("First Name").fill("");
    await form.getByLabel("Date of Birth").fill("");
    await form.getByLabel("Gender").selectOption("");
    await form.getByLabel("Phone Number").fill("");
    await form.getByLabel("About").fill("");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByText("Please enter Your First Name")).toBeVisible();
    await expect(form.getByText("Please enter your Date of Birth.")).toBeVisible();
    await expect(form.getByText("Please select Your Gender")).toBeVisible();
    await expect(form.getByText("Please enter your Contact Number.")).toBeVisible();
    await expect(form.getByText("Please enter your About.")).toBeVisible();
    await expect(form.getByLabel("First Name")).toHaveAttribute("aria-invalid", "true");

    // The gender choices: 'Select' plus the five values.
    await expect(form.getByLabel("Gender").locator("option")).toHaveText([
      "Select",
      "Male",
      "Female",
      "Non-Binary",
      "Prefer not to say",
      "Other",
    ]);
    const today = new Date().toISOString().slice(0, 10);
    await expect(form.getByLabel("Date of Birth")).toHaveAttribute("max", today);
    await form.getByLabel("Date of Birth").fill(`${new Date().getUTCFullYear() + 1}-01-15`);
    await form.getByLabel("Phone Number").fill("123");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByText("Date of Birth cannot be in future")).toBeVisible();
    await expect(form.getByText("Invalid Contact Number")).toBeVisible();
    await shot(page, info, "settings-errors");

    await form.getByLabel("First Name").fill("Asha");
    await form.getByLabel("Last Name").fill("Verma");
    await form.getByLabel("Date of Birth").fill("1990-03-05");
    await form.getByLabel("Gender").selectOption("Female");
    await form.getByLabel("Phone Number").fill("9876543210");
    await form.getByLabel("About").fill("Admin of the CareBridge pilot in Gaya.");
    await form.getByRole("button", { name: "Save" }).click();

    await expect(page).toHaveURL(/\/dashboard\/my-profile$/);
    await expect(page.getByText("Profile Updated Successfully")).toBeVisible();
    const main = page.locator("main");
    await expect(main.getByRole("heading", { level: 1, name: "My Profile" })).toBeVisible();
    await expect(main.getByText("Asha Verma", { exact: true }).first()).toBeVisible();
    await expect(main.getByText("Admin of the CareBridge pilot in Gaya.")).toBeVisible();
    await expect(main.getByText("05 Mar 1990")).toBeVisible();
    await expect(main.getByText("Female")).toBeVisible();
    await expect(main.getByText("9876543210")).toBeVisible();
    await expect(main.getByText("admin@carebridge.test").first()).toBeVisible();
    await expect(main.getByRole("link", { name: /^Edit/ }).first()).toHaveAttribute(
      "href",
      "/dashboard/settings",
    );
    await shot(page, info, "my-profile");

    // The saved values come back into the settings form.
    await page.goto("/dashboard/settings");
    await expect(form.getByLabel("First Name")).toHaveValue("Asha");
    await expect(form.getByLabel("Gender")).toHaveValue("Female");
    await expect(form.getByLabel("Date of Birth")).toHaveValue("1990-03-05");
  });

  test("settings: wrong current password, picture upload and delete confirmation", async ({ page }, info) => {
    await login(page);
    await page.goto("/dashboard/settings");
    await hydrated(page);

    const pw = page.locator("#password-form");
    await pw.getByRole("button", { name: "Update Password" }).click();
    await expect(pw.getByText("Please enter Current Password")).toBeVisible();
    await expect(pw.getByText("Please enter New Password")).toBeVisible();
    await expect(pw.getByText("Please enter Confirm Password")).toBeVisible();
    await pw.getByLabel("Current Password").fill("not-the-password");
    await pw.getByLabel(/^New Password/).fill("Another-pass-456");
    await pw.getByLabel("Confirm New Password").fill("Another-pass-456");
    await pw.getByRole("button", { name: "Update Password" }).click();
    await expect(pw.getByText("The current password is not right")).toBeVisible();
    await expect(pw.getByLabel("Current Password")).toHaveValue("");

    // A file that only claims to be an image is refused by the server, which reads its bytes.
    const picture = page.locator("#picture-form");
    await picture.locator('input[type="file"]').setInputFiles({
      name: "fake.png",
      mimeType: "image/png",
      buffer: Buffer.from("this is not an image at all"),
    });
    await picture.getByRole("button", { name: "Upload" }).click();
    await expect(picture.getByText("Please choose a PNG, JPEG, GIF or WebP image.")).toBeVisible();

    await picture
      .locator('input[type="file"]')
      .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: samplePng(64, 64) });
    await expect(picture.getByText(/^me\.png \(/)).toBeVisible();
    await picture.getByRole("button", { name: "Upload" }).click();
    await expect(page.getByText("Display Picture Updated Successfully")).toBeVisible();
    const img = page.locator("main img").first();
    await expect(img).toHaveAttribute("src", /^\/media\/avatar\/[a-f0-9]{32}$/);
    const src = (await img.getAttribute("src"))!;
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(64);
    const res = await page.request.get(src);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toBe("image/png");
    expect(res.headers()["cache-control"]).toBe("private, max-age=3600");
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    expect((await page.request.get("/media/avatar/0123456789abcdef0123456789abcdef")).status()).toBe(404);
    expect((await page.request.get("/media/avatar/not-a-key")).status()).toBe(404);

    // Delete asks first; Cancel keeps the account.
    await page.getByRole("button", { name: "Delete Account" }).click();
    await expect(page.getByText("Delete your account?")).toBeVisible();
    await expect(page.getByRole("button", { name: "Yes, delete my account" })).toBeVisible();
    await shot(page, info, "settings");
    await page
      .getByRole("group", { name: "Delete your account?" })
      .getByRole("button", { name: "Cancel" })
      .click();
    await expect(page.getByText("Delete your account?")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Delete Account" })).toBeFocused();
  });

  test("logout modal: Escape and Cancel keep you in, Logout logs out", async ({ page }, info) => {
    await login(page);
    await hydrated(page);
    let nav = await sidebar(page);
    await nav.getByRole("button", { name: "Logout" }).click();
    const dialog = page.getByRole("dialog", { name: "Are You Sure?" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("You will be logged out of your account");
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await shot(page, info, "logout-modal");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    if (info.project.name === "desktop")
      await expect(nav.getByRole("button", { name: "Logout" })).toBeFocused();

    nav = await sidebar(page);
    await nav.getByRole("button", { name: "Logout" }).click();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(/\/dashboard\/home$/);

    nav = await sidebar(page);
    await nav.getByRole("button", { name: "Logout" }).click();
    await dialog.getByRole("button", { name: "Logout" }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByText("Logged out Successfully")).toBeVisible();
    await expect(page.getByRole("link", { name: "Log In" })).toBeVisible();
    await page.goto("/dashboard/home");
    await expect(page).toHaveURL(/\/login/);
  });

  test("phone width: the sidebar hides behind Menu, at most about 200px wide", async ({ page }, info) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await login(page);
    await hydrated(page);
    const nav = page.getByRole("navigation", { name: "Dashboard navigation" });
    await expect(nav).toBeHidden();
    const menu = page.locator("aside summary", { hasText: "Menu" });
    await expect(menu).toBeVisible();
    await menu.click();
    await expect(nav).toBeVisible();
    const box = await nav.boundingBox();
    expect(box!.width).toBeLessThanOrEqual(200);
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    await shot(page, info, "dashboard-phone-menu");
    await nav.getByRole("link", { name: "My Profile" }).click();
    await expect(page).toHaveURL(/\/dashboard\/my-profile$/);
    await expect(nav).toBeHidden();
    await expectFitsWidth(page);
    await shot(page, info, "my-profile-phone");
  });
});

test.describe("dashboard without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("menu, server-side profile errors, delete confirmation and logout page", async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await login(page);
    const menu = page.locator("aside summary", { hasText: "Menu" });
    await menu.click();
    const nav = page.getByRole("navigation", { name: "Dashboard navigation" });
    await expect(nav).toBeVisible();
    await nav.getByRole("link", { name: "Settings" }).click();
    await expect(page).toHaveURL(/\/dashboard\/settings$/);

    // The picture's button speaks the page's language; it is the label of the browser's own (hidden)
    // file input, which opens and sends the file without JavaScript.
    const picture = page.locator("#picture-form");
    const [chooser] = await Promise.all([
      page.waitForEvent("filechooser"),
      picture.locator("label", { hasText: "Select" }).click(),
    ]);
    await chooser.setFiles({ name: "me.png", mimeType: "image/png", buffer: samplePng(64, 64) });
    await picture.getByRole("button", { name: "Upload" }).click();
    await expect(page.getByText("Display Picture Updated Successfully")).toBeVisible();

    const form = page.locator("#profile-form");
    await form.getByLabel("First Name").fill("");
    await form.getByLabel("Phone Number").fill("123");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByText("Please enter Your First Name")).toBeVisible();
    await expect(form.getByText("Invalid Contact Number")).toBeVisible();
    // Only the profile form shows errors.
    await expect(page.locator("#password-form").getByText("Please enter Current Password")).toHaveCount(0);

    await page.getByRole("button", { name: "Delete Account" }).click();
    await expect(page.getByText("Delete your account?")).toBeVisible();
    await page
      .getByRole("group", { name: "Delete your account?" })
      .getByRole("link", { name: "Cancel" })
      .click();
    await expect(page.getByText("Delete your account?")).toHaveCount(0);

    await page.locator("aside summary", { hasText: "Menu" }).click();
    await nav.getByRole("link", { name: "Logout" }).click();
    await expect(page).toHaveURL(/\/logout$/);
    await expect(page.getByRole("heading", { level: 1, name: "Are You Sure?" })).toBeVisible();
    await expect(page.getByText("You will be logged out of your account")).toBeVisible();
    await page.getByRole("button", { name: "Logout" }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByText("Logged out Successfully")).toBeVisible();
  });
});
