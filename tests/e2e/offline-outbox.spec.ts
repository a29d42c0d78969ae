import {
  expect,
  request,
  test,
  type APIRequestContext,
  type BrowserContext,
  type Page,
} from "@playwright/test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import hi from "../../app/i18n/locales/hi";
import { wav } from "../helpers/audio";
import { insertCentre, makeHealthWorker } from "../helpers/centre-data";
import { openTestDb, type TestDb } from "../helpers/db";
import { freePort, spawnApp, type AppProcess } from "../helpers/server";
import bn from "../../app/i18n/locales/bn";
import en from "../../app/i18n/locales/en";
import ta from "../../app/i18n/locales/ta";
import { wcagAxe } from "./axe";
import { hydrated, mailedCode, patternPng, phonePhoto } from "./fixtures";
import { shot } from "./helpers";
import { secondRelease } from "./release";

/**
 * Decision 0063: a health worker works without a signal, in Hindi at 360 px. Signs in
 * online, goes offline, reloads (the app opens from the service worker's cache), registers two
 * patients (one with a thumbprint photo), keeps three report photos and a voice description, prints
 * a slip; back online everything arrives once (counted in the database) and every item says "sent".
 * Then a large upload cut off half way resumes, another account on the same phone sees nothing of
 * the first, and the outbox's database opened at every older shape keeps its waiting items.
 * What the phone keeps opens only with the person's password (decision 0072): a reload asks for it.
 * This file starts its own app.
 */

test.describe.configure({ mode: "serial" });

const CATALOGUES = { en, hi, bn, ta };

const PASSWORD = "Village-pass-2026";
const ADMIN = { email: "admin@offline.test", password: "Admin-pass-2026" };
const CENTRE = { id: "c00000000000000000000e45", name: "उप स्वास्थ्य केंद्र सोनपुर" };
const ENV = {
  RATE_LIMIT_DISABLED: "1",
  WEB_CONCURRENCY: "1",
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
};
let app: AppProcess;
let port: number;
let secondBuild: string | undefined;
let root: string;
let db: TestDb;
let staff: APIRequestContext;
const worker = { email: `asha-${Date.now().toString(36)}@offline.test`, id: "" };
const patient = { email: `meena-${Date.now().toString(36)}@offline.test`, id: "" };

async function signUp(email: string, firstName: string): Promise<string> {
  expect((await staff.post("/api/v1/auth/send-otp", { data: { email } })).status()).toBe(200);
  const res = await staff.post("/api/v1/auth/signup", {
    data: {
      accountType: "Patient",
      firstName,
      lastName: "देवी",
      email,
      contactNumber: `98${String(Date.now()).slice(-8)}`,
      password: PASSWORD,
      confirmPassword: PASSWORD,
      otp: await mailedCode(app.dataDir, email),
    },
  });
  const body = await res.json();
  expect(res.status(), JSON.stringify(body)).toBe(201);
  const id = body.data._id as string;
  await db.run("UPDATE users SET locale = 'hi' WHERE id = ?", id);
  return id;
}

/** An approved ASHA of the centre (the admin's approval is tested elsewhere). */
async function makeWorker() {
  worker.id = await signUp(worker.email, "आशा");
  await insertCentre(db, { ...CENTRE, kind: "sc", district: "गया", state: "बिहार", pinCode: "823001" });
  await makeHealthWorker(db, worker.id, CENTRE.id, { role: "asha", workerId: "ASHA-7" });
}

/** React has taken over the page's form (what its submit handler does happens). */
async function formHydrated(page: Page, selector: string) {
  await page.waitForFunction((sel) => {
    const form = document.querySelector(sel);
    return !!form && Object.keys(form).some((k) => k.startsWith("__reactProps"));
  }, selector);
}

async function signIn(page: Page, email: string) {
  await page.goto(`${app.url}/login`);
  // The page keeps the typed password for the outbox's key (decision 0072): only once it runs.
  await formHydrated(page, "form:has(input[name=password])");
  await page.locator("input[name=email]").fill(email);
  await page.locator("input[name=password]").fill(PASSWORD);
  await page.locator("form button[type=submit]").last().click();
  await expect(page).toHaveURL(/\/dashboard/);
  await expect(page.locator("html")).toHaveAttribute("lang", "hi");
  // The dashboard has told this phone who is signed in (what the offline screen goes by).
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          new Promise<string | null>((ok) => {
            const r = indexedDB.open("carebridge-offline");
            // Not there yet: looking must not create it.
            r.onupgradeneeded = () => r.transaction?.abort();
            r.onsuccess = () => {
              const db = r.result;
              if (!db.objectStoreNames.contains("session")) return ok((db.close(), null));
              const get = db.transaction("session").objectStore("session").get("current");
              get.onsuccess = () =>
                ok((db.close(), (get.result as { accountId?: string } | undefined)?.accountId ?? null));
            };
            r.onerror = () => ok(null);
          }),
      ),
    )
    .toBe(email === worker.email ? worker.id : patient.id);
}

/** The sign-out dialog, from the phone's menu. */
async function openSignOut(page: Page) {
  await page.goto(`${app.url}/dashboard/home`);
  await hydrated(page);
  await page.locator("summary", { hasText: hi.common.menu }).click();
  await page.locator('button[aria-haspopup="dialog"]:visible').first().click();
}

async function signOut(page: Page) {
  await openSignOut(page);
  await page.getByRole("dialog").getByRole("button", { name: hi.accounts.logoutButton }).click();
  await expect(page).toHaveURL(/\/login|\/$/);
}

/** The dashboard page registers the service worker; after it is active a reload puts the page under it. */
async function underServiceWorker(page: Page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await page.reload();
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
}

const items = (page: Page) => page.getByTestId("outbox-item");

/** The outbox after a full page load: locked, opened with the password (checked on the phone, 0072). */
async function unlock(p: Page, password = PASSWORD) {
  const form = p.getByTestId("outbox-unlock");
  await form.locator("input[name=password]").fill(password);
  await form.getByRole("button").click();
  if (password === PASSWORD) await expect(p.getByTestId("outbox")).toBeVisible();
}

async function openOutbox(p: Page) {
  await p.goto(`${app.url}/offline`);
  await unlock(p);
}

/**
 * What anyone with the phone can do with its database (another person's developer tools on
 * /login): every key kept there tried on every item and list. Returns what opened.
 */
function tryEveryKey(p: Page) {
  return p.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((ok, no) => {
      const r = indexedDB.open("carebridge-offline");
      r.onsuccess = () => ok(r.result);
      r.onerror = () => no(r.error);
    });
    const all = <T>(store: string) =>
      new Promise<T[]>((ok) => {
        if (!db.objectStoreNames.contains(store)) return ok([]); // a shape before it had this store
        const r = db.transaction(store).objectStore(store).getAll();
        r.onsuccess = () => ok(r.result as T[]);
      });
    type Sealed = { sealed: { iv: ArrayBuffer; data: ArrayBuffer } };
    const keys = await all<unknown>("keys");
    const sealed = [...(await all<Sealed>("items")), ...(await all<Sealed>("snapshots"))];
    const snapshots = (await all<Sealed>("snapshots")).length;
    const session = await new Promise<unknown>((ok) => {
      const r = db.transaction("session").objectStore("session").get("current");
      r.onsuccess = () => ok(r.result);
    });
    db.close();
    const opened: string[] = [];
    for (const key of keys) {
      if (!(key instanceof CryptoKey)) continue;
      for (const s of sealed) {
        try {
          const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: s.sealed.iv }, key, s.sealed.data);
          opened.push(new TextDecoder().decode(plain).slice(4, 80));
        } catch {
          /* not this key's */
        }
      }
    }
    return { keys: keys.length, sealed: sealed.length, snapshots, session: session ?? null, opened };
  });
}

async function expectAllSent(page: Page, count: number) {
  await expect(items(page)).toHaveCount(count);
  await expect(page.locator('[data-testid=outbox-item]:not([data-state="sent"])')).toHaveCount(0, {
    timeout: 45_000,
  });
}

async function registerOffline(
  page: Page,
  p: { first: string; age: string; method: "verbal" | "thumbprint"; phone?: string; evidence?: Buffer },
) {
  await page.getByRole("button", { name: hi.offline.tabs.register, exact: true }).click();
  await page.locator("label:has(input[name=consent][value=granted])").click();
  await page.locator(`label:has(input[name=consentMethod][value=${p.method}])`).click();
  if (p.evidence)
    await page
      .locator("input#evidence")
      .setInputFiles({ name: "thumb.png", mimeType: "image/png", buffer: p.evidence });
  await page.locator("input[name=firstName]").fill(p.first);
  await page.locator("input[name=lastName]").fill("देवी");
  await page.locator("label:has(input[name=sex][value=female])").click();
  await page.locator("input[name=age]").fill(p.age);
  await page.locator("input[name=locality]").fill("सोनपुर");
  if (p.phone) {
    await page.locator("label:has(input[name=phoneOwner][value=self])").click();
    await page.locator("input[name=phone]").fill(p.phone);
  } else await page.locator("label:has(input[name=phoneOwner][value=none])").click();
  await page.getByRole("button", { name: hi.registration.registerButton }).click();
  // The slip, offline: this phone's reference until the server gives the patient's ID.
  await expect(page.getByTestId("slip")).toContainText(hi.offline.slipReference);
  await expect(page.getByTestId("slip")).toContainText(p.first);
  await expect(page.getByTestId("slip")).toContainText(CENTRE.name);
}

async function uploadOffline(
  page: Page,
  p: { whom?: string; photo: Buffer; phone?: string; voice?: Buffer; name?: string; type?: string },
) {
  await page.getByRole("button", { name: hi.offline.tabs.upload, exact: true }).click();
  // A patient registered here and not sent yet is listed by name; one the server has, with their ID.
  // No name given: the one shown first is the one sent for (a patient's own profile).
  if (p.whom) {
    const option = page.locator("#offline-whom option", { hasText: p.whom }).first();
    await page
      .locator("#offline-whom")
      .selectOption((await option.getAttribute("value", { timeout: 10_000 }))!);
  }
  await page.locator("#offline-type").selectOption("Blood Test");
  if (p.phone) await page.locator("#offline-phone").fill(p.phone);
  await page
    .locator("input#offline-report")
    .setInputFiles({ name: p.name ?? "report.jpg", mimeType: p.type ?? "image/jpeg", buffer: p.photo });
  if (p.voice)
    await page
      .locator("input#offline-voice")
      .setInputFiles({ name: "v.wav", mimeType: "audio/wav", buffer: p.voice });
  await page.locator("input[name=consent]").check();
  await page.getByRole("button", { name: hi.offline.keep }).click();
  await expect(page.getByTestId("outbox")).toBeVisible();
}

async function count(sql: string, ...params: unknown[]): Promise<number> {
  return Number((await db.get<{ n: number }>(sql, ...params))?.n ?? 0);
}

test.beforeAll(async () => {
  test.skip(test.info().project.name !== "phone", "the offline journey runs at 360 px");
  test.setTimeout(120_000);
  root = mkdtempSync(path.join(os.tmpdir(), "carebridge-offline-"));
  port = await freePort();
  app = await spawnApp(root, ENV, { port });
  staff = await request.newContext({ baseURL: app.url, extraHTTPHeaders: { "Accept-Language": "en" } });
  db = await openTestDb(app.dataDir, { write: true });
  await makeWorker();
  patient.id = await signUp(patient.email, "मीना");
});

test.afterAll(async () => {
  await db?.close();
  if (app && app.child.exitCode === null) {
    app.child.kill("SIGTERM");
    await Promise.race([app.exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  await staff?.dispose();
  if (root) rmSync(root, { recursive: true, force: true });
  if (secondBuild) rmSync(secondBuild, { recursive: true, force: true });
});

let context: BrowserContext;
let page: Page;

test("a health worker registers, photographs and records without a signal; everything arrives once", async ({
  browser,
}, info) => {
  test.setTimeout(180_000);
  context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
    locale: "hi-IN",
  });
  page = await context.newPage();
  await signIn(page, worker.email);
  await underServiceWorker(page);
  // Online once: the centre's list is kept for offline use (the reload locked the outbox: 0072).
  await openOutbox(page);
  await expect(page.getByTestId("offline-queue")).toContainText(
    hi.offline.asOf.replace(" {{time}}", "").replace("{{time}} ", ""),
  );

  // No signal: the app opens from the cache.
  await context.setOffline(true);
  await page.goto(`${app.url}/dashboard/home`).catch(() => {});
  await expect(page).toHaveURL(/\/offline/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(hi.offline.title);
  // Opened without a signal, the outbox asks for her password and checks it on the phone.
  await expect(page.getByTestId("outbox-unlock")).toContainText(hi.outboxLock.text);
  await unlock(page, "Not-her-password-1");
  await expect(page.getByTestId("outbox-unlock").getByRole("alert")).toHaveText(hi.outboxLock.wrong);
  await shot(page, info, "offline-unlock-hi");
  await expect(page.getByTestId("outbox")).toHaveCount(0);
  await unlock(page);
  await expect(page.getByTestId("connection")).toHaveText(hi.offline.offline);
  // Every tab in words, from the cached screen (no raw key such as offline.tabs.follow-up).
  for (const tab of ["outbox", "register", "upload", "follow-up"] as const)
    await expect(page.getByRole("button", { name: hi.offline.tabs[tab], exact: true })).toBeVisible();
  await expect(page.locator("main")).not.toContainText(/offline\.[a-z]/);

  await registerOffline(page, { first: "सीता", age: "62", method: "verbal" });
  await shot(page, info, "offline-slip-hi");
  await page.getByRole("button", { name: hi.offline.backToOutbox }).click();
  await registerOffline(page, {
    first: "गीता",
    age: "35",
    method: "thumbprint",
    phone: "9812345670",
    evidence: patternPng(64, 3),
  });
  await page.getByRole("button", { name: hi.offline.backToOutbox }).click();

  const photo = await phonePhoto(page);
  await uploadOffline(page, { whom: "सीता देवी", photo, phone: "9876500001" });
  await uploadOffline(page, {
    whom: "गीता देवी",
    photo: patternPng(200, 5),
    type: "image/png",
    name: "r2.png",
  });
  await uploadOffline(page, {
    whom: "गीता देवी",
    photo: patternPng(220, 9),
    type: "image/png",
    name: "r3.png",
    voice: wav(2),
  });
  await expect(items(page)).toHaveCount(6);
  await expect(page.locator('[data-testid=outbox-item][data-state="waiting"]')).toHaveCount(6);
  await shot(page, info, "offline-outbox-waiting-hi");
  expect(await count("SELECT COUNT(*) AS n FROM patients WHERE centre_id = ?", CENTRE.id)).toBe(0);

  // The signal returns: everything is sent by itself, in order, once.
  await context.setOffline(false);
  await expectAllSent(page, 6);
  await shot(page, info, "offline-outbox-sent-hi");
  expect(await count("SELECT COUNT(*) AS n FROM patients WHERE centre_id = ?", CENTRE.id)).toBe(2);
  const reports =
    "SELECT COUNT(*) AS n FROM reports r JOIN patients p ON p.id = r.patient_id WHERE p.centre_id = ?";
  expect(await count(reports, CENTRE.id)).toBe(3);
  expect(
    await count(
      "SELECT COUNT(*) AS n FROM voice_notes v JOIN reports r ON r.id = v.report_id JOIN patients p ON p.id = r.patient_id WHERE p.centre_id = ?",
      CENTRE.id,
    ),
  ).toBe(1);
});

test("a large upload cut off half way resumes where the server has it", async () => {
  test.setTimeout(120_000);
  const pdf = Buffer.concat([
    readFileSync("tests/fixtures/sample-report.pdf"),
    Buffer.from("\n%" + "x".repeat(64) + "\n"),
    Buffer.alloc(3 * 1024 * 1024, 0x25),
  ]);
  // The connection drops while the third chunk is on its way (whoever sends: page or worker).
  const patches: number[] = [];
  let heads = 0;
  await context.route("**/api/v1/uploads/**", async (route) => {
    const r = route.request();
    if (r.method() === "HEAD") heads++;
    if (r.method() !== "PATCH") return route.continue();
    patches.push(Number(r.headers()["upload-offset"]));
    if (patches.length === 3) {
      await context.setOffline(true);
      return route.abort("internetdisconnected");
    }
    return route.continue();
  });
  await context.setOffline(true);
  await uploadOffline(page, {
    whom: "सीता देवी",
    photo: pdf,
    name: "big.pdf",
    type: "application/pdf",
    phone: "9876500001",
  });
  const big = items(page).filter({ hasText: "सीता" }).last();
  await context.setOffline(false);
  await page.evaluate(() => window.dispatchEvent(new Event("online")));
  await expect.poll(() => patches.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
  await expect(big).toHaveAttribute("data-state", "waiting", { timeout: 30_000 });
  expect(
    await count(
      "SELECT COUNT(*) AS n FROM reports r JOIN patients p ON p.id = r.patient_id WHERE p.centre_id = ?",
      CENTRE.id,
    ),
  ).toBe(3);

  await context.setOffline(false);
  await page.evaluate(() => window.dispatchEvent(new Event("online")));
  await expect(big).toHaveAttribute("data-state", "sent", { timeout: 45_000 });
  await context.unroute("**/api/v1/uploads/**");
  // It asked the server where to go on, and went on from there: the two chunks that arrived were
  // not sent again.
  expect(heads).toBeGreaterThan(0);
  expect(patches[3]).toBe(patches[2]);
  expect(patches[2]).toBeGreaterThan(0);
  expect(
    await count(
      "SELECT COUNT(*) AS n FROM reports r JOIN patients p ON p.id = r.patient_id WHERE p.centre_id = ?",
      CENTRE.id,
    ),
  ).toBe(4);
});

test("on a shared phone another account sees nothing of the first; the items wait for their owner", async () => {
  test.setTimeout(120_000);
  // An item that cannot go yet (the upload route held back on this page), then signing out.
  await context.route("**/api/v1/uploads**", (route) => route.abort());
  await openOutbox(page);
  await uploadOffline(page, {
    whom: "गीता देवी",
    photo: patternPng(120, 11),
    type: "image/png",
    name: "w.png",
  });
  const waiting = items(page).filter({ hasText: "गीता" }).last();
  await expect(waiting).toHaveAttribute("data-state", "waiting", { timeout: 20_000 });
  await openSignOut(page);
  await expect(page.getByTestId("logout-waiting")).toContainText("1");
  await page.getByRole("dialog").getByRole("button", { name: hi.accounts.logoutButton }).click();
  await expect(page).not.toHaveURL(/\/dashboard/);
  await context.unroute("**/api/v1/uploads**");

  // Signed out, the next person's developer tools on /login: every key on the phone tried on
  // everything it keeps opens nothing (the old build's bare keys opened it all, decision 0072);
  // the synced lists and the record of who was signed in are gone; the items are still there.
  await page.goto(`${app.url}/login`);
  const seen = await tryEveryKey(page);
  expect(seen.opened).toEqual([]);
  expect(seen.snapshots).toBe(0);
  expect(seen.session).toBeNull();
  expect(seen.keys).toBeGreaterThan(0);
  expect(seen.sealed).toBeGreaterThanOrEqual(8);

  // Someone else signs in on the same phone: their outbox is empty, nothing of the worker's shows.
  await signIn(page, patient.email);
  await openOutbox(page);
  await expect(page.getByTestId("outbox")).toContainText(hi.offline.nothingWaiting);
  await expect(page.locator("body")).not.toContainText("गीता");
  await expect(page.locator("body")).not.toContainText("सीता");
  const stored = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((ok, no) => {
      const r = indexedDB.open("carebridge-offline");
      r.onsuccess = () => ok(r.result);
      r.onerror = () => no(r.error);
    });
    const all = await new Promise<{ sealed: { data: ArrayBuffer }; [k: string]: unknown }[]>((ok) => {
      const r = db.transaction("items").objectStore("items").getAll();
      r.onsuccess = () => ok(r.result);
    });
    db.close();
    return all.map((i) => ({
      keys: Object.keys(i).sort().join(","),
      text: new TextDecoder("utf-8", { fatal: false }).decode(i.sealed.data),
      bytes: i.sealed.data.byteLength,
    }));
  });
  // On the phone the worker's words are only ciphertext: no field in the clear, no name in the bytes.
  expect(stored.length).toBeGreaterThanOrEqual(8);
  for (const item of stored) {
    expect(item.keys).not.toMatch(/label|fields|file/);
    expect(item.bytes).toBeGreaterThan(16);
    expect(item.text).not.toContain("गीता");
    expect(item.text).not.toContain("Blood Test");
  }
  // Her own report and a voice description, kept offline, go when the signal returns; the worker's do not.
  await context.setOffline(true);
  await uploadOffline(page, {
    photo: patternPng(80, 29),
    type: "image/png",
    name: "m.png",
    phone: "9876500009",
    voice: wav(1),
  });
  // Kept for her own profile, the one shown first (she did not have to pick it).
  await expect(items(page).filter({ hasText: "मीना" })).toHaveCount(2);
  await context.setOffline(false);
  await expect(page.locator('[data-testid=outbox-item]:not([data-state="sent"])')).toHaveCount(0, {
    timeout: 30_000,
  });
  expect(await count("SELECT COUNT(*) AS n FROM reports WHERE patient_id = ?", patient.id)).toBe(1);
  expect(
    await count(
      "SELECT COUNT(*) AS n FROM voice_notes v JOIN reports r ON r.id = v.report_id WHERE r.patient_id = ?",
      patient.id,
    ),
  ).toBe(1);
  await signOut(page);

  // The worker again: signing in with her password opens her outbox, and the item goes.
  const gita = () =>
    count(
      "SELECT COUNT(*) AS n FROM reports r JOIN patients p ON p.id = r.patient_id WHERE p.first_name = ?",
      "गीता",
    );
  const before = await gita();
  await signIn(page, worker.email);
  await expect.poll(gita, { timeout: 30_000 }).toBe(before + 1);
  await openOutbox(page);
  await expect(items(page).filter({ hasText: "गीता" }).last()).toHaveAttribute("data-state", "sent", {
    timeout: 30_000,
  });
});

test("signing out on the /logout screen with no service worker: this phone forgets her too", async ({
  browser,
}) => {
  // A phone whose page no service worker controls (blocked here; a first visit, a private window).
  const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, serviceWorkers: "block" });
  const p = await phone.newPage();
  await signIn(p, patient.email);
  // Signed in with her password: the outbox is open and her family list kept, sealed.
  await expect.poll(async () => (await tryEveryKey(p)).snapshots).toBe(1);
  await p.goto(`${app.url}/logout`);
  await formHydrated(p, 'form[action="/logout"]');
  await p.getByRole("button", { name: hi.accounts.logoutButton }).click();
  await expect(p).not.toHaveURL(/\/logout/);
  const seen = await tryEveryKey(p);
  expect(seen.session).toBeNull();
  expect(seen.snapshots).toBe(0);
  expect(seen.opened).toEqual([]);
  await phone.close();
});

test("a new release deployed while items wait loses none of them", async () => {
  test.setTimeout(120_000);
  test.skip(!context, "needs the journey's phone");
  secondBuild = secondRelease("offline-journey");
  // An item that cannot go yet (the upload route held back), then the centre's server is updated.
  await context.route("**/api/v1/uploads**", (route) => route.abort());
  await openOutbox(page);
  await uploadOffline(page, {
    whom: "गीता देवी",
    photo: patternPng(70, 31),
    type: "image/png",
    name: "u.png",
  });
  const waiting = items(page).last();
  await expect(waiting).toHaveAttribute("data-state", "waiting", { timeout: 20_000 });
  const reports = async () =>
    count(
      "SELECT COUNT(*) AS n FROM reports r JOIN patients p ON p.id = r.patient_id WHERE p.first_name = ?",
      "गीता",
    );
  const before = await reports();
  app.child.kill("SIGTERM");
  await Promise.race([app.exited, new Promise((r) => setTimeout(r, 10_000))]);
  app = await spawnApp(root, ENV, { port, buildDir: secondBuild });

  // The new version waits for the worker; she takes it; the item is still there and then goes.
  await page.goto(`${app.url}/dashboard/home`);
  // A full load starts locked (decision 0072): the dashboard says an item waits and where to open it.
  await expect(page.getByTestId("outbox-locked")).toContainText(
    hi.outboxLock.lockedNotice.replace("{{count}}", "1"),
  );
  const banner = page.getByTestId("update-banner");
  await expect(banner).toContainText(hi.common.updateReady, { timeout: 20_000 });
  await Promise.all([
    page.waitForEvent("load"),
    banner.getByRole("button", { name: hi.common.reload }).click(),
  ]);
  await expect
    .poll(() =>
      page.evaluate(async () => {
        const reg = await navigator.serviceWorker.getRegistration();
        return reg?.waiting === null && navigator.serviceWorker.controller === reg?.active;
      }),
    )
    .toBe(true);
  await context.unroute("**/api/v1/uploads**");
  await openOutbox(page);
  await expect(items(page).last()).toHaveAttribute("data-state", "sent", { timeout: 30_000 });
  expect(await reports()).toBe(before + 1);
});

test("an outbox kept by an older version of the app is opened by this one and sent", async ({ browser }) => {
  test.setTimeout(90_000);
  const phone = await browser.newContext({
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
  });
  const p = await phone.newPage();
  await p.goto(`${app.url}/login`);
  // The database as version 1 of the app left it (app/offline/store.ts UPGRADES[0]), with a
  // registration waiting, sealed with the account's key the way that version sealed it.
  await p.evaluate(
    async ({ accountId, centre }) => {
      const db = await new Promise<IDBDatabase>((ok, no) => {
        const r = indexedDB.open("carebridge-offline", 1);
        r.onupgradeneeded = () => {
          r.result.createObjectStore("session");
          r.result.createObjectStore("keys");
          r.result.createObjectStore("items", { keyPath: "id" });
        };
        r.onsuccess = () => ok(r.result);
        r.onerror = () => no(r.error);
      });
      const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
        "encrypt",
        "decrypt",
      ]);
      const fields = {
        consent: "granted",
        consentMethod: "verbal",
        firstName: "रुक्मिणी",
        lastName: "देवी",
        sex: "female",
        age: "48",
        locality: "सोनपुर",
        preferredLanguage: "hi",
        phoneOwner: "none",
        countryCode: "+91",
        consentTextVersion: "facilitated-2026-11",
      };
      const json = new TextEncoder().encode(JSON.stringify({ label: "पंजीकरण: रुक्मिणी देवी", fields }));
      const plain = new Uint8Array(4 + json.length);
      new DataView(plain.buffer).setUint32(0, json.length);
      plain.set(json, 4);
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, plain);
      const tx = db.transaction(["session", "keys", "items"], "readwrite");
      tx.objectStore("keys").put(key, accountId);
      tx.objectStore("session").put(
        { accountId, role: "HealthWorker", locale: "hi", firstName: "आशा", centre },
        "current",
      );
      tx.objectStore("items").put({
        id: crypto.randomUUID(),
        accountId,
        kind: "register",
        createdAt: new Date().toISOString(),
        state: "waiting",
        sealed: { iv: iv.buffer, data },
      });
      await new Promise((ok) => (tx.oncomplete = ok));
      db.close();
    },
    { accountId: worker.id, centre: { _id: CENTRE.id, name: CENTRE.name } },
  );
  // Sealed the old way, anyone's script opens it with the key beside it (what 0072 ends).
  expect((await tryEveryKey(p)).opened).toHaveLength(1);
  // The new version opens it (and changes its shape); her sign-in seals the item anew under a key
  // wrapped with her password (the bare key is gone); the item is found and sent.
  await signIn(p, worker.email);
  await expect.poll(async () => (await tryEveryKey(p)).opened.length).toBe(0);
  await openOutbox(p);
  const kept = items(p).filter({ hasText: "रुक्मिणी" });
  await expect(kept).toHaveAttribute("data-state", "sent", { timeout: 30_000 });
  expect(
    await count(
      "SELECT COUNT(*) AS n FROM patients WHERE centre_id = ? AND first_name = ?",
      CENTRE.id,
      "रुक्मिणी",
    ),
  ).toBe(1);
  expect(
    await p.evaluate(() =>
      indexedDB.databases().then((d) => d.find((x) => x.name === "carebridge-offline")?.version),
    ),
  ).toBe(4);
  await phone.close();
});

test("a phone nearly out of room takes no new file and says so; the room left is shown", async () => {
  test.skip(!context, "needs the journey's phone");
  // A phone with 60 MB left for the app (the test machine has gigabytes: the browser's answer is set).
  const p = await context.newPage();
  await p.addInitScript(() => {
    const estimate = async () => ({ usage: 40 * 1024 * 1024, quota: 100 * 1024 * 1024 });
    Object.defineProperty(navigator.storage, "estimate", { value: estimate });
  });
  await openOutbox(p);
  await expect(p.getByTestId("storage")).toContainText("40");
  await expect(p.getByTestId("storage")).toContainText("60");
  const before = await items(p).count();
  await context.setOffline(true);
  await p.getByRole("button", { name: hi.offline.tabs.upload, exact: true }).click();
  const option = p.locator("#offline-whom option", { hasText: "सीता" }).first();
  await p.locator("#offline-whom").selectOption((await option.getAttribute("value"))!);
  await p.locator("#offline-type").selectOption("Blood Test");
  await p.locator("#offline-phone").fill("9876500001");
  const big = Buffer.concat([
    readFileSync("tests/fixtures/sample-report.pdf"),
    Buffer.alloc(9 * 1024 * 1024, 0x25),
  ]);
  await p
    .locator("input#offline-report")
    .setInputFiles({ name: "scan.pdf", mimeType: "application/pdf", buffer: big });
  await p.locator("input[name=consent]").check();
  await p.getByRole("button", { name: hi.offline.keep }).click();
  await expect(p.locator("form [role=alert]")).toHaveText(hi.offline.noRoom.replace("{{left}}", "60"));
  // Nothing was kept; a small photo still is.
  await p
    .locator("input#offline-report")
    .setInputFiles({ name: "s.png", mimeType: "image/png", buffer: patternPng(40, 23) });
  await p.getByRole("button", { name: hi.offline.keep }).click();
  await expect(items(p)).toHaveCount(before + 1);
  await context.setOffline(false);
  await expect(items(p).last()).toHaveAttribute("data-state", "sent", { timeout: 30_000 });
  await p.close();
});

test("a follow-up the patient dictates, kept offline, reaches the expert who gave the opinion", async () => {
  test.setTimeout(90_000);
  test.skip(!context, "needs the journey's phone");
  // An approved expert reviews सीता's latest report.
  const email = `expert-${Date.now().toString(36)}@offline.test`;
  expect((await staff.post("/api/v1/auth/send-otp", { data: { email } })).status()).toBe(200);
  const signup = await staff.post("/api/v1/auth/signup", {
    data: {
      accountType: "Expert",
      firstName: "Kavitha",
      lastName: "Rao",
      email,
      contactNumber: "9876543210",
      password: PASSWORD,
      confirmPassword: PASSWORD,
      otp: await mailedCode(app.dataDir, email),
      specialties: ["Pathology", "General Medicine"],
      registrationNumber: "KMC-55502",
      registrationCouncil: "Karnataka Medical Council",
      yearsOfPractice: 9,
    },
  });
  expect(signup.status()).toBe(201);
  const admin = (await (await staff.post("/api/v1/auth/login", { data: ADMIN })).json()).token as string;
  const asAdmin = { Authorization: `Bearer ${admin}` };
  const expertId = (await signup.json()).data._id as string;
  expect(
    (await staff.post("/api/v1/expert/approve-expert", { data: { expertId }, headers: asAdmin })).status(),
  ).toBe(200);
  const expert = (
    await (await staff.post("/api/v1/auth/login", { data: { email, password: PASSWORD } })).json()
  ).token as string;
  const asExpert = { Authorization: `Bearer ${expert}` };
  const latest = (await db.get<{ id: string }>(
    "SELECT r.id FROM reports r JOIN patients p ON p.id = r.patient_id WHERE p.first_name = ? ORDER BY r.created_at DESC, r.id DESC LIMIT 1",
    "सीता",
  ))!.id;
  expect((await staff.post(`/api/v1/report/claim/${latest}`, { headers: asExpert })).status()).toBe(200);
  expect(
    (
      await staff.post(`/api/v1/report/add-review/${latest}`, {
        data: { review: "Haemoglobin is low." },
        headers: asExpert,
      })
    ).status(),
  ).toBe(200);

  // Online once (the list now says the opinion is there), then offline: the question is kept.
  await openOutbox(page);
  await expect(page.getByTestId("offline-queue")).toBeVisible();
  await context.setOffline(true);
  await page.getByRole("button", { name: hi.offline.tabs["follow-up"], exact: true }).click();
  const option = page.locator("#offline-fu-whom option", { hasText: "सीता" }).first();
  await page.locator("#offline-fu-whom").selectOption((await option.getAttribute("value"))!);
  await page.locator("#offline-fu-q").fill("क्या मुझे आयरन की गोली लेनी चाहिए?");
  await page.getByRole("button", { name: hi.offline.keep }).click();
  const question = items(page)
    .filter({ hasText: hi.offline.labelFollowUp.replace("{{name}}", "") })
    .last();
  await expect(question).toHaveAttribute("data-state", "waiting");
  await context.setOffline(false);
  await expect(question).toHaveAttribute("data-state", "sent", { timeout: 30_000 });
  expect(await count("SELECT COUNT(*) AS n FROM report_followups WHERE report_id = ?", latest)).toBe(1);
});

for (const lang of ["en", "hi", "bn", "ta"] as const) {
  test(`the offline screens pass axe in ${lang}`, async () => {
    test.setTimeout(90_000);
    // The journey's phone, with its outbox, in this language.
    test.skip(!context, "needs the journey's phone");
    const phone = context;
    const p = await phone.newPage();
    await phone.addCookies([
      {
        name: "lng",
        value: encodeURIComponent(Buffer.from(JSON.stringify(lang)).toString("base64")),
        url: app.url,
      },
    ]);
    // An item the server refused, to see that state too (its words are the server's). The journey's
    // own page is parked first: its outbox, still sending, would write the item's state back.
    await page.goto("about:blank");
    await p.goto(`${app.url}/offline`);
    await expect(p.locator("html")).toHaveAttribute("lang", lang);
    await expect(p.getByTestId("outbox-unlock")).toBeVisible();
    await p.waitForFunction(() => document.getAnimations().length === 0);
    expect((await wcagAxe(p).analyze()).violations).toEqual([]);
    await unlock(p);
    await p.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((ok) => {
        const r = indexedDB.open("carebridge-offline");
        r.onsuccess = () => ok(r.result);
      });
      const tx = db.transaction("items", "readwrite");
      const store = tx.objectStore("items");
      const all = await new Promise<{ accountId: string; state: string; reason?: unknown }[]>((ok) => {
        const r = store.getAll();
        r.onsuccess = () => ok(r.result);
      });
      // The phone holds items of more than one account (the shared-phone test's too), and the screen
      // shows only the signed-in one's: one item of each account is marked.
      const firsts = new Map(all.map((i) => [i.accountId, i] as const).reverse());
      for (const one of firsts.values())
        store.put({ ...one, state: "needs-you", reason: { status: 403, message: "—" } });
      await new Promise((ok) => (tx.oncomplete = ok));
      db.close();
    });
    await p.reload();
    await expect(p.locator("html")).toHaveAttribute("lang", lang);
    await unlock(p);
    const check = async () => {
      // Colours are measured once a pressed tab's colour change has finished.
      await p.waitForFunction(() => document.getAnimations().length === 0);
      expect((await wcagAxe(p).analyze()).violations).toEqual([]);
    };
    await expect(p.locator('[data-state="needs-you"]').first()).toBeVisible();
    await check();
    for (const tab of ["register", "upload", "follow-up"] as const) {
      await p.getByRole("button", { name: CATALOGUES[lang].offline.tabs[tab], exact: true }).click();
      await check();
    }
    await phone.setOffline(true);
    await p.getByRole("button", { name: CATALOGUES[lang].offline.tabs.outbox, exact: true }).click();
    await expect(p.getByTestId("connection")).toBeVisible();
    await check();
    await phone.setOffline(false);
    await p.close();
  });
}

test("a worker suspended while offline: every item says why and is kept for the centre", async () => {
  test.setTimeout(90_000);
  test.skip(!context, "needs the journey's phone");
  await context.addCookies([
    {
      name: "lng",
      value: encodeURIComponent(Buffer.from(JSON.stringify("hi")).toString("base64")),
      url: app.url,
    },
  ]);
  await openOutbox(page);
  await context.setOffline(true);
  await registerOffline(page, { first: "लक्ष्मी", age: "50", method: "verbal" });
  await page.getByRole("button", { name: hi.offline.backToOutbox }).click();
  await uploadOffline(page, {
    whom: "लक्ष्मी देवी",
    photo: patternPng(90, 17),
    type: "image/png",
    name: "l.png",
    phone: "9876500003",
  });
  await uploadOffline(page, {
    whom: "सीता देवी",
    photo: patternPng(100, 19),
    type: "image/png",
    name: "s.png",
    phone: "9876500001",
  });

  // Meanwhile an admin suspends the worker.
  const admin = (await (await staff.post("/api/v1/auth/login", { data: ADMIN })).json()).token as string;
  const suspended = await staff.patch(`/api/v1/health-workers/${worker.id}`, {
    data: { suspended: true },
    headers: { Authorization: `Bearer ${admin}` },
  });
  expect(suspended.status()).toBe(200);

  // The signal returns: nothing is created, every item says why, nothing is dropped.
  await context.setOffline(false);
  await page.evaluate(() => window.dispatchEvent(new Event("online")));
  const lakshmi = items(page).filter({ hasText: "लक्ष्मी" });
  await expect(lakshmi).toHaveCount(2);
  for (const item of await lakshmi.all())
    await expect(item).toHaveAttribute("data-state", "needs-you", { timeout: 30_000 });
  const sita = items(page).filter({ hasText: "सीता" }).last();
  await expect(sita).toHaveAttribute("data-state", "needs-you", { timeout: 30_000 });
  await expect(lakshmi.first()).toContainText(hi.offline.heldWhatToDo);
  await expect(lakshmi.last()).toContainText(hi.offline.waitsForWhatToDo);
  await expect(sita).toContainText(hi.offline.heldWhatToDo);
  await shot(page, test.info(), "offline-suspended-hi");
  expect(await count("SELECT COUNT(*) AS n FROM patients WHERE first_name = ?", "लक्ष्मी")).toBe(0);
  // Kept for the centre: the registration and the report (sent whole), an admin can hand them over.
  expect(await count("SELECT COUNT(*) AS n FROM held_items WHERE worker_id = ?", worker.id)).toBe(2);
});

test("a full page load right after a password sign-in: the outbox is sealed all the same, and offline her password opens it", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const email = `rekha-${Date.now().toString(36)}@offline.test`;
  const id = await signUp(email, "रेखा");
  // A new phone (no key for anyone yet) as slow as a cheap one: its PBKDF2 answers 2 s late, so the
  // page load below comes while the key is still being derived (decision 0087).
  const phone = await browser.newContext({
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
    locale: "hi-IN",
  });
  await phone.addInitScript(() => {
    const derive = SubtleCrypto.prototype.deriveKey;
    SubtleCrypto.prototype.deriveKey = function (
      this: SubtleCrypto,
      ...args: Parameters<SubtleCrypto["deriveKey"]>
    ) {
      return derive
        .apply(this, args)
        .then((key) => new Promise<CryptoKey>((ok) => setTimeout(() => ok(key), 2_000)));
    };
  });
  const p = await phone.newPage();
  try {
    await p.goto(`${app.url}/login`);
    await formHydrated(p, "form:has(input[name=password])");
    await p.locator("input[name=email]").fill(email);
    await p.locator("input[name=password]").fill(PASSWORD);
    await p.locator("form button[type=submit]").last().click();
    await expect(p).toHaveURL(/\/dashboard/, { timeout: 20_000 });
    // At once, a full page load of another dashboard page (a link opened anew, a reload).
    await p.goto(`${app.url}/dashboard/settings`);
    await hydrated(p);
    await underServiceWorker(p);

    // No signal: the outbox asks for her password (a reload always does, 0072), never for a sign-in.
    await phone.setOffline(true);
    await p.goto(`${app.url}/dashboard/home`).catch(() => {});
    await expect(p).toHaveURL(/\/offline/);
    await expect(p.getByTestId("outbox-unlock")).toContainText(hi.outboxLock.text);
    await unlock(p);
    await uploadOffline(p, {
      photo: patternPng(70, 31),
      type: "image/png",
      name: "r.png",
      phone: "9876500031",
    });
    await expect(items(p)).toHaveCount(1);
    // Sealed: what the phone keeps opens with no key found on it.
    const seen = await tryEveryKey(p);
    expect(seen.sealed).toBeGreaterThanOrEqual(1);
    expect(seen.opened).toEqual([]);

    // The signal returns: it goes, once.
    await phone.setOffline(false);
    await expectAllSent(p, 1);
    expect(await count("SELECT COUNT(*) AS n FROM reports WHERE patient_id = ?", id)).toBe(1);
  } finally {
    await phone.close();
  }
});
