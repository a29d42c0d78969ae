import { expect, test } from "@playwright/test";
import { logIn, newUser, signUp } from "./fixtures";
import { pastTheEdge, shotTo } from "./helpers";

/*
 * Next steps' reminders (decision 0114): the patient chooses how and at what hour of the clinic's
 * day she is reminded, in Settings; saved, the screen says so and keeps her choice. Screens at 360
 * and 1280 px in English and Hindi for people to look at (SHOTS=1, /tmp/shots-reminders/).
 */

/** Her language, as the switcher sets it (her account's and the cookie). */
async function setLang(page: import("@playwright/test").Page, lng: string) {
  await page.evaluate((l) => {
    const f = document.createElement("form");
    f.method = "post";
    f.action = "/set-language";
    for (const [k, v] of [
      ["lng", l],
      ["redirectTo", "/dashboard/settings"],
    ]) {
      const i = document.createElement("input");
      i.type = "hidden";
      i.name = k;
      i.value = v;
      f.append(i);
    }
    document.body.append(f);
    f.submit();
  }, lng);
  await expect(page.locator("html")).toHaveAttribute("lang", lng);
}

test("the patient sets how and when she is reminded of her next steps", async ({ page }, info) => {
  const user = newUser("Patient", info, "Asha", "Devi");
  await signUp(page, user);
  await logIn(page, user.email, user.password);
  await page.goto("/dashboard/settings");
  const section = page.locator("section", { has: page.locator("#reminders-heading") });
  await expect(section.getByRole("radio", { name: "SMS" })).toBeChecked();
  await section.getByRole("radio", { name: "Do not remind me" }).check();
  await section.getByLabel("At this hour").selectOption("19");
  await section.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Reminder settings saved.")).toBeVisible();
  await expect(section.getByRole("radio", { name: "Do not remind me" })).toBeChecked();
  await expect(section.getByLabel("At this hour")).toHaveValue("19");
  // A success toast stays 2 s (spec section 9): the first one has gone before the second save,
  // so the toast seen next is the second save's own.
  await expect(page.getByText("Reminder settings saved.")).toHaveCount(0);
  await section.getByRole("radio", { name: "SMS" }).check();
  await section.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Reminder settings saved.")).toBeVisible();

  for (const lng of ["en", "hi"]) {
    await setLang(page, lng);
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/dashboard/settings#reminders-heading");
      const heading = page.locator("#reminders-heading");
      await heading.scrollIntoViewIfNeeded();
      expect(await pastTheEdge(page)).toBe("");
      await shotTo(
        page.locator("section", { has: heading }),
        `/tmp/shots-reminders/settings-${lng}-${width}.png`,
      );
    }
  }
});
