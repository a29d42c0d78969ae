import { expect, request, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { insertCentre, makeHealthWorker } from "../helpers/centre-data";
import { openTestDb } from "../helpers/db";
import { BUILD_DIR, freePort, spawnApp, type AppProcess } from "../helpers/server";
import { wcagAxe } from "./axe";
import { logIn, mailedCode } from "./fixtures";
import { offlineRevision, secondRelease } from "./release";

/**
 * The installable offline app (decision 0066) in real Chromium: a health worker's
 * dashboard registers the service worker, which answers a dashboard visit without a network with
 * the precached offline screen in their language; experts and public pages register none; a new
 * release waits until the person reloads through the banner, and IndexedDB survives it. This file
 * starts its own app at a fixed port, so it can start a second release at the same origin.
 */

test.describe.configure({ mode: "serial" });

const PASSWORD = "Offline-pass-2026";
const ADMIN = { email: "admin@offline-app.test", password: "Admin-pass-2026" };
const WORKER = { email: "cho@offline-app.test", firstName: "Sunita" };
const EXPERT = { email: "expert@offline-app.test" };
let root: string;
let secondBuild: string;
let port: number;
let app: AppProcess;
let staff: APIRequestContext;

const env = { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, RATE_LIMIT_DISABLED: "1" };

async function stopApp() {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return;
  app.child.kill("SIGTERM");
  await Promise.race([app.exited, new Promise((r) => setTimeout(r, 10_000))]);
}

async function signUp(email: string, accountType: "Patient" | "Expert", firstName: string): Promise<string> {
  expect((await staff.post("/api/v1/auth/send-otp", { data: { email } })).status()).toBe(200);
  const res = await staff.post("/api/v1/auth/signup", {
    data: {
      accountType,
      firstName,
      lastName: "Devi",
      email,
      contactNumber: "9876543210",
      password: PASSWORD,
      confirmPassword: PASSWORD,
      otp: await mailedCode(app.dataDir, email),
      ...(accountType === "Expert"
        ? {
            specialties: ["Pathology"],
            registrationNumber: "KMC-77001",
            registrationCouncil: "Karnataka Medical Council",
            yearsOfPractice: 6,
          }
        : {}),
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data._id as string;
}

/** A signed-up account made an approved health worker of a centre (as centre-journey.spec.ts does). */
async function makeWorker() {
  const id = await signUp(WORKER.email, "Patient", WORKER.firstName);
  const db = await openTestDb(app.dataDir, { write: true });
  const centre = { id: "c0000000000000000000off1", name: "PHC Offline" };
  await insertCentre(db, { ...centre, district: "Gaya", state: "Bihar", pinCode: "823001" });
  await makeHealthWorker(db, id, centre.id, { workerId: "CHO-9" });
  await db.close();
}

test.beforeAll(async () => {
  test.skip(test.info().project.name !== "desktop", "the offline app's checks run once, at desktop width");
  test.setTimeout(120_000);
  root = mkdtempSync(path.join(os.tmpdir(), "carebridge-offline-"));
  port = await freePort();
  app = await spawnApp(root, env, { port });
  staff = await request.newContext({ baseURL: app.url });
  await makeWorker();
  await signUp(EXPERT.email, "Expert", "Kavitha");
});

test.afterAll(async () => {
  if (app) await stopApp();
  await staff?.dispose();
  if (root) rmSync(root, { recursive: true, force: true });
  if (secondBuild) rmSync(secondBuild, { recursive: true, force: true });
});

/** Signs the worker in and reloads once, after which the service worker controls the page. */
async function workerWithServiceWorker(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await logIn(page, WORKER.email, PASSWORD);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  return page;
}

/** Every request URL in Cache Storage (all caches). */
function cachedUrls(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      for (const req of await (await caches.open(name)).keys()) urls.push(req.url);
    }
    return urls;
  });
}

test("a health worker's dashboard works offline: the offline screen from cache, in their language; the manifest is valid", async ({
  browser,
}) => {
  const page = await workerWithServiceWorker(browser);

  // The manifest is linked in the page's language and is an installable app's, in Hindi too.
  const href = await page.locator('link[rel="manifest"]').getAttribute("href");
  expect(href).toBe("/manifest.webmanifest?lng=en");
  for (const [lng, name] of [
    ["en", "CareBridge second opinions"],
    ["hi", "CareBridge दूसरी राय"],
  ]) {
    const res = await page.request.get(`/manifest.webmanifest?lng=${lng}`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("application/manifest+json");
    const manifest = await res.json();
    expect(manifest).toMatchObject({
      name,
      short_name: "CareBridge",
      lang: lng,
      start_url: "/dashboard/home",
      scope: "/",
      display: "standalone",
      theme_color: "#0b5f56",
    });
    const sizes = (manifest.icons as { sizes: string; purpose: string; src: string }[]).map(
      (i) => `${i.sizes} ${i.purpose}`,
    );
    expect(sizes).toEqual(["192x192 any", "512x512 any", "512x512 maskable"]);
    for (const icon of manifest.icons as { src: string }[]) {
      const png = await page.request.get(icon.src);
      expect(png.status()).toBe(200);
      expect(png.headers()["content-type"]).toBe("image/png");
    }
  }

  // The dashboard told the outbox who is signed in (English here): the worker's offline screen is English.
  await page.context().setOffline(true);
  await page.goto("/dashboard/home");
  await expect(page).toHaveURL(/\/offline\?lng=en$/);
  await page.context().setOffline(false);

  // The outbox keeps the person's language in IndexedDB; the worker reads it to pick the screen.
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open("carebridge-offline");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction("session", "readwrite");
          const store = tx.objectStore("session");
          const get = store.get("current");
          get.onsuccess = () => store.put({ ...get.result, locale: "hi" }, "current");
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
        };
      }),
  );

  await page.context().setOffline(true);
  const res = await page.goto("/dashboard/home");
  expect(res?.status()).toBe(200);
  expect(res?.fromServiceWorker()).toBe(true);
  await expect(page).toHaveURL(/\/offline\?lng=hi$/);
  await expect(page.locator("html")).toHaveAttribute("lang", "hi");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // Another dashboard address, too: nothing of the dashboard is kept, the network is asked and fails.
  await page.goto("/dashboard/follow-ups");
  await expect(page).toHaveURL(/\/offline\?lng=hi$/);
  await page.context().setOffline(false);

  // What is kept: the app's files and the offline screens, drawn for nobody; no page or answer of theirs.
  const urls = await cachedUrls(page);
  expect(urls.filter((u) => u.includes("/offline?lng=")).length).toBe(4);
  expect(urls.some((u) => u.includes("/assets/"))).toBe(true);
  const pages = urls.map((u) => new URL(u).pathname).filter((p) => !p.startsWith("/assets/"));
  expect(pages.filter((p) => p !== "/offline" && p !== "/favicon.svg")).toEqual([]);
  const shell = await page.evaluate(
    async (key) => (await caches.match(key))!.text(),
    urls.find((u) => u.includes("/offline?lng=hi"))!,
  );
  expect(shell).not.toContain(WORKER.firstName);
  expect(shell).not.toContain(WORKER.email);
  await page.context().close();
});

test("an expert's dashboard and the public pages register no service worker", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const asked: string[] = [];
  page.on("request", (r) => asked.push(new URL(r.url()).pathname));
  await page.goto("/");
  await page.waitForLoadState("networkidle");
  await logIn(page, EXPERT.email, PASSWORD);
  await page.waitForLoadState("networkidle");
  expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(0);
  expect(asked.filter((p) => p === "/sw.js" || p.includes("register.client"))).toEqual([]);
  await context.close();
});

test("a new release waits for the person: the banner reloads into it, and IndexedDB is kept", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  // The second release: the same build with a service worker of different bytes (a new precache revision).
  secondBuild = secondRelease("second-release");
  const [oldRevision, newRevision] = [offlineRevision(BUILD_DIR), offlineRevision(secondBuild)];
  expect(newRevision).not.toBe(oldRevision);

  const page = await workerWithServiceWorker(browser);
  // Something the outbox keeps: it must outlive the update.
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        // The outbox's database as the dashboard made it (app/offline/store.ts).
        const open = indexedDB.open("carebridge-offline");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction("items", "readwrite");
          tx.objectStore("items").put({ id: "item-1", state: "waiting", label: "Register Sita Devi" });
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
        };
      }),
  );
  const banner = page.getByTestId("update-banner");
  await expect(banner).toHaveCount(0);

  // Deploy: the same origin now serves the second release.
  await stopApp();
  app = await spawnApp(root, env, { port, buildDir: secondBuild });
  await page.reload();
  await expect(banner).toBeVisible({ timeout: 20_000 });
  await expect(banner).toContainText("A new version is ready");
  // The banner over the dashboard keeps the page accessible.
  await page.waitForFunction(() => document.getAnimations().length === 0);
  expect((await wcagAxe(page).analyze()).violations).toEqual([]);
  // Until the person says so, the new worker only waits: the old one still controls the page.
  expect(
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting !== null),
  ).toBe(true);

  await Promise.all([page.waitForEvent("load"), banner.getByRole("button", { name: "Reload" }).click()]);
  await expect(banner).toHaveCount(0);
  await expect
    .poll(() =>
      page.evaluate(async () => {
        const reg = await navigator.serviceWorker.getRegistration();
        return reg?.waiting === null && navigator.serviceWorker.controller === reg?.active;
      }),
    )
    .toBe(true);
  // The new precache replaced the old one (Workbox's clean-up), and the outbox's record is still there.
  await expect
    .poll(async () => (await cachedUrls(page)).filter((u) => u.includes("/offline?lng=en")).join(" "))
    .toBe(`${app.url}/offline?lng=en&__WB_REVISION__=${newRevision}`);
  const kept = await page.evaluate(
    () =>
      new Promise<unknown>((resolve, reject) => {
        const open = indexedDB.open("carebridge-offline");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction("items").objectStore("items").get("item-1");
          get.onsuccess = () => resolve(get.result);
          get.onerror = () => reject(get.error);
        };
      }),
  );
  expect(kept).toEqual({ id: "item-1", state: "waiting", label: "Register Sita Devi" });
  await page.context().close();
});
