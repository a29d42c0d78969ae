import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import { ADMIN, logIn, patientWithReport, personContext } from "./fixtures";
import { shot, shotTo } from "./helpers";

/** "Download my data" from Settings, and an admin's download of one patient's data. */
test("a patient downloads their data from Settings; an admin from the patient's reports", async ({
  browser,
}, info) => {
  const { page, report } = await patientWithReport(browser, info);
  await page.goto("/dashboard/settings");
  const block = page.getByRole("region", { name: "Download my data" });
  await expect(block).toBeVisible();
  await block.scrollIntoViewIfNeeded();
  await shot(page, info, "settings-download-my-data");
  await shotTo(block, `test-results/screens/${info.project.name}/download-my-data-block.png`);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    block.getByRole("link", { name: "Download my data (ZIP)" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^carebridge-my-data-\d{4}-\d{2}-\d{2}\.zip$/);
  const zip = readFileSync((await download.path())!);
  expect(zip.subarray(0, 2).toString()).toBe("PK");
  expect(zip.includes(Buffer.from("fhir-bundle.json"))).toBe(true);
  await expect(page).toHaveURL(/\/dashboard\/settings$/); // the page stays

  const admin = await (await personContext(browser, info)).newPage();
  await logIn(admin, ADMIN.email, ADMIN.password);
  await admin.goto(`/dashboard/previous-report/${report.patient._id}`);
  const button = admin.getByRole("link", { name: "Download this patient's data (ZIP)" });
  await expect(button).toBeVisible();
  await shot(admin, info, "admin-patient-data-button");
  await shotTo(
    admin.locator("main"),
    `test-results/screens/${info.project.name}/admin-patient-data-main.png`,
  );
  const [adminDownload] = await Promise.all([admin.waitForEvent("download"), button.click()]);
  expect(adminDownload.suggestedFilename()).toContain(`carebridge-patient-${report.patient._id}-`);
});
