import { expect, test, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { axeAtItsWidth } from "./axe";
import { newUser, patientWithReport, personContext, signUp } from "./fixtures";
import { shot, shotTo } from "./helpers";

/**
 * My data's control sections — who can act for you (with the revoke confirmation), the consents
 * others recorded, the access trail — with axe in all four languages, screenshots at both widths,
 * and the revoke done with the keyboard alone. The family manager, the centre and the consent are
 * written into the e2e server's database (the screens that make them are other parts of the work).
 */

test.describe.configure({ mode: "serial" });

/** The e2e server database holding `email` (servers of other runs may exist side by side). */
function databaseOf(email: string): Database.Database {
  const tmp = os.tmpdir();
  for (const n of readdirSync(tmp).filter((x) => x.startsWith("carebridge-e2e-"))) {
    const file = path.join(tmp, n, "data", "app.db");
    if (!existsSync(file)) continue;
    const db = new Database(file);
    db.pragma("busy_timeout = 5000");
    if (db.prepare("SELECT 1 FROM users WHERE email = ?").get(email)) return db;
    db.close();
  }
  throw new Error(`no e2e database holds ${email}`);
}

async function setLang(page: Page, lng: string) {
  const base = test.info().project.use.baseURL!;
  const value = encodeURIComponent(Buffer.from(JSON.stringify(lng)).toString("base64"));
  await page.context().addCookies([{ name: "lng", value, url: base }]);
}

const SHOTS = path.join("test-results", "screens", "my-data-control");

let page: Page;
let childId = "";

test.beforeAll(async ({ browser }, info) => {
  test.setTimeout(180_000);
  const { page: p, user, report } = await patientWithReport(browser, info);
  page = p;
  const son = newUser("Patient", info, "Ravi", "Kumar");
  const sonPage = await (await personContext(browser, info)).newPage();
  await signUp(sonPage, son);
  const db = databaseOf(user.email);
  const me = db.prepare("SELECT id FROM users WHERE email = ?").get(user.email) as { id: string };
  const sonId = (db.prepare("SELECT id FROM users WHERE email = ?").get(son.email) as { id: string }).id;
  const centreId = randomBytes(12).toString("hex");
  const now = Date.now();
  db.prepare(
    "INSERT INTO centres (id, name, kind, district, state, pin_code, created_at, updated_at) VALUES (?, 'Ayushman Arogya Mandir Sinnar', 'hwc', 'Nashik', 'Maharashtra', '422001', ?, ?)",
  ).run(centreId, now, now);
  db.prepare("UPDATE patients SET centre_id = ? WHERE id = ?").run(centreId, me.id);
  db.prepare(
    "INSERT INTO patient_managers (patient_id, manager_id, relationship, created_at) VALUES (?, ?, 'mother', ?)",
  ).run(me.id, sonId, now);
  db.prepare(
    "INSERT INTO patient_consents (id, patient_id, kind, granted, text_version, locale, method, witness_name, recorded_by_name, centre_id, relationship, created_at) VALUES (?, ?, 'facilitated', 1, 'facilitated-2026-11', 'hi', 'witnessed', 'Gita Bai', 'Sunita Pawar', ?, '', ?)",
  ).run(randomBytes(12).toString("hex"), me.id, centreId, now);
  // A child without a login whom she manages, with her guardian's consent.
  childId = randomBytes(12).toString("hex");
  db.prepare(
    "INSERT INTO patients (id, first_name, last_name, sex, birth_year, birth_year_estimated, locality, locale, phone_owner, phone_relationship, created_at, updated_at) VALUES (?, 'Anu', 'Verma', 'female', 2016, 0, 'Sinnar', 'hi', 'none', '', ?, ?)",
  ).run(childId, now, now);
  db.prepare(
    "INSERT INTO patient_managers (patient_id, manager_id, relationship, created_at) VALUES (?, ?, 'daughter', ?)",
  ).run(childId, me.id, now);
  db.prepare(
    "INSERT INTO patient_consents (id, patient_id, kind, granted, text_version, locale, method, recorded_by, recorded_by_name, relationship, created_at) VALUES (?, ?, 'guardian', 1, 'family-2026-11', 'en', 'online', ?, 'Asha Verma', 'mother', ?)",
  ).run(randomBytes(12).toString("hex"), childId, me.id, now);
  // A child without a login whom she manages, with her guardian's consent.
  childId = randomBytes(12).toString("hex");
  db.prepare(
    "INSERT INTO patients (id, first_name, last_name, sex, birth_year, birth_year_estimated, locality, locale, phone_owner, phone_relationship, created_at, updated_at) VALUES (?, 'Anu', 'Verma', 'female', 2016, 0, 'Sinnar', 'hi', 'none', '', ?, ?)",
  ).run(childId, now, now);
  db.prepare(
    "INSERT INTO patient_managers (patient_id, manager_id, relationship, created_at) VALUES (?, ?, 'daughter', ?)",
  ).run(childId, me.id, now);
  db.prepare(
    "INSERT INTO patient_consents (id, patient_id, kind, granted, text_version, locale, method, recorded_by, recorded_by_name, relationship, created_at) VALUES (?, ?, 'guardian', 1, 'family-2026-11', 'en', 'online', ?, 'Asha Verma', 'mother', ?)",
  ).run(randomBytes(12).toString("hex"), childId, me.id, now);
  db.close();
  // The son opens her reports and her file: two entries in her trail.
  const login = await sonPage.request.post("/api/v1/auth/login", {
    data: { email: son.email, password: son.password },
  });
  const { token } = await login.json();
  const auth = { Authorization: `Bearer ${token}` };
  expect(
    (
      await sonPage.request.get(`/api/v1/report/get-report-by-patientId/${me.id}`, { headers: auth })
    ).status(),
  ).toBe(200);
  expect((await sonPage.request.get(`/api/v1/report/${report._id}/file`, { headers: auth })).status()).toBe(
    200,
  );
});

test("axe: My data's control sections in all four languages, with the revoke confirmation open", async ({
  browser: _browser,
}, info) => {
  test.setTimeout(240_000);
  const failures: string[] = [];
  for (const p of ["/dashboard/my-data", "/dashboard/my-data?revoke=centre"]) {
    for (const lng of ["en", "hi", "bn", "ta"]) {
      await setLang(page, lng);
      await page.goto(p);
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
      await expect(page.locator("#access")).toBeVisible();
      await page.evaluate(() => window.scrollTo(0, 0));
      await expect(page.locator("[data-access-trail] li")).toHaveCount(2);
      await expect(page.locator("[data-profile-consents] li").first()).toBeVisible();
      const result = await axeAtItsWidth(page, lng);
      for (const v of result.violations)
        failures.push(
          `${p} [${lng}] ${v.id}: ${v.help} — ${v.nodes
            .map((n) => n.target.join(" "))
            .slice(0, 3)
            .join(" | ")}`,
        );
      if (lng === "en" || lng === "hi") {
        const name = `${info.project.name}-${lng}-${p.includes("revoke") ? "confirm" : "my-data"}`;
        await shotTo(page.locator("#access"), path.join(SHOTS, `${name}-access.png`));
        await shotTo(page.locator("#consents"), path.join(SHOTS, `${name}-consents.png`));
        await shotTo(page.locator("#trail"), path.join(SHOTS, `${name}-trail.png`));
      }
    }
  }
  // A family member's consents and trail (?patientId=).
  for (const lng of ["en", "hi", "bn", "ta"]) {
    await setLang(page, lng);
    await page.goto(`/dashboard/my-data?patientId=${childId}`);
    await expect(page.locator("#member")).toBeVisible();
    // From the top, as a reader arrives (scrolled, the sticky header covers the sidebar's first link).
    await page.evaluate(() => window.scrollTo(0, 0));
    const result = await axeAtItsWidth(page, lng);
    for (const v of result.violations)
      failures.push(
        `member [${lng}] ${v.id}: ${v.help} — ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(" | ")}`,
      );
    if (lng === "en" || lng === "hi")
      await shotTo(page.locator("#member"), path.join(SHOTS, `${info.project.name}-${lng}-member.png`));
  }
  await setLang(page, "en");
  await shot(page, info, "my-data-control");
  if (failures.length) console.log(failures.join("\n"));
  expect(failures).toEqual([]);
});

test("revoking the family manager with the keyboard alone: Revoke, then confirm", async () => {
  await setLang(page, "en");
  await page.goto("/dashboard/my-data#access");
  const revoke = page.locator("#access").getByRole("link", { name: /Revoke: Ravi Kumar/ });
  await revoke.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("alertdialog")).toContainText("Revoke Ravi Kumar's access?");
  await page.getByRole("button", { name: "Yes, revoke access" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Ravi Kumar can no longer act for you.")).toBeVisible();
  await expect(page.locator("#access")).not.toContainText("Ravi Kumar");
  await expect(page.locator("[data-access-trail]")).toContainText("Access of Ravi Kumar ended by you");
});
