import { expect, type APIRequestContext, type Browser, type Page, type TestInfo } from "@playwright/test";
import type { DeliveredSms, Kannel } from "../helpers/kannel";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodePng } from "../../scripts/samples";

/** The bootstrap admin that tests/e2e/serve.mjs creates for each run. */
export const ADMIN = { email: "admin@carebridge.test", password: "Admin-pass-123", firstName: "Admin" };

export type TestUser = {
  type: "Patient" | "Expert";
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  password: string;
  /** Experts: the specialties and registration number they sign up with. */
  specialties?: string[];
  registrationNumber?: string;
};

/** A fresh account description, unique per project and run. */
export function newUser(
  type: TestUser["type"],
  info: TestInfo,
  firstName: string,
  lastName: string,
): TestUser {
  const tag = `${info.project.name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  return {
    type,
    firstName,
    lastName,
    email: `${type.toLowerCase()}-${tag}@example.test`.toLowerCase(),
    phone: `9${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`,
    password: "Test-pass-12345",
  };
}

/**
 * The e2e servers' data folders (tests/e2e/serve.mjs makes a carebridge-e2e-* folder in the
 * temp dir per run), newest first. Other runs may exist at the same time, so every folder is
 * searched for the recipient, who is unique to this test.
 */
function e2eRoots(): string[] {
  const tmp = os.tmpdir();
  return readdirSync(tmp)
    .filter((n) => n.startsWith("carebridge-e2e-"))
    .map((n) => path.join(tmp, n))
    .filter((p) => existsSync(path.join(p, "data", "outbox")))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

/** The newest signup code mailed to `email`: the 6 digits in the subject of its .eml in the outbox. */
export async function readOtp(email: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const to = new RegExp(`^To:.*${email.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "im");
  while (Date.now() < deadline) {
    for (const root of e2eRoots()) {
      const outbox = path.join(root, "data", "outbox");
      const files = readdirSync(outbox)
        .filter((f) => f.endsWith(".eml"))
        .sort()
        .reverse();
      for (const f of files) {
        let text: string;
        try {
          text = readFileSync(path.join(outbox, f), "utf8");
        } catch {
          continue;
        }
        if (!to.test(text)) continue;
        const code = text.match(/^Subject:\s*(\d{6})\b/im)?.[1];
        if (code) return code;
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`No signup code mailed to ${email}`);
}

/**
 * Makes the account through the API (a code mailed by send-otp, then signup with it), as other
 * systems do: quicker than the screens, which signUpOnScreen and the HTTP tests of the signup
 * screen (tests/integration/accounts-screens.test.ts) cover. `page` lends its server and context.
 */
export async function signUp(page: Page, user: TestUser) {
  const sent = await page.request.post("/api/v1/auth/send-otp", {
    data: { email: user.email, checkUserPresent: true },
  });
  expect(sent.status(), await sent.text()).toBe(200);
  const otp = await readOtp(user.email);
  const expert =
    user.type === "Expert"
      ? {
          specialties: user.specialties ?? ["General Medicine", "Pathology"],
          registrationNumber: user.registrationNumber ?? "NMC-2019-0481",
          registrationCouncil: "National Medical Commission",
          yearsOfPractice: 8,
        }
      : {};
  const res = await page.request.post("/api/v1/auth/signup", {
    data: {
      accountType: user.type,
      firstName: user.firstName,
      lastName: user.lastName,
      email: user.email,
      contactNumber: user.phone,
      password: user.password,
      confirmPassword: user.password,
      otp,
      ...expert,
    },
  });
  expect(res.status(), await res.text()).toBe(201);
}

/** Signs up through the screens: /signup, then the code from the outbox on /verify-email. */
export async function signUpOnScreen(page: Page, user: TestUser) {
  await page.goto("/signup");
  await page.locator("label", { hasText: new RegExp(`^${user.type}$`) }).click();
  await page.getByLabel("First Name").fill(user.firstName);
  await page.getByLabel("Last Name").fill(user.lastName);
  await page.getByLabel("Email Address").fill(user.email);
  await page.getByLabel("Phone Number").fill(user.phone);
  await page.getByLabel(/^Password/).fill(user.password);
  await page.getByLabel(/^Confirm Password/).fill(user.password);
  if (user.type === "Expert") {
    // Experts say who they are: specialties, registration, council, years of practice.
    const details = page.getByTestId("expert-details");
    for (const s of user.specialties ?? ["General Medicine", "Pathology"]) {
      await details.getByLabel(s, { exact: true }).check();
    }
    await details.getByLabel("Medical registration number").fill(user.registrationNumber ?? "NMC-2019-0481");
    await details.getByLabel("Years of practice").fill("8");
    await details.getByLabel("Issuing council").fill("National Medical Commission");
  }
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page).toHaveURL(/\/verify-email$/);
  const code = await readOtp(user.email);
  for (let i = 0; i < 6; i++) await page.getByLabel(`Digit ${i + 1} of 6`).fill(code[i]);
  await page.getByRole("button", { name: "Verify Email" }).click();
  await expect(page).toHaveURL(/\/login$/);
}

export async function logIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email Address").fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/dashboard\/home$/);
}

/** A new browser context with the project's viewport and device settings (one per person). */
export async function personContext(
  browser: Browser,
  info: TestInfo,
  extra: { javaScriptEnabled?: boolean } = {},
) {
  const use = info.project.use;
  return browser.newContext({
    baseURL: use.baseURL,
    viewport: use.viewport,
    isMobile: use.isMobile,
    hasTouch: use.hasTouch,
    ...extra,
  });
}

/** Waits until React has hydrated the dashboard (its Logout entry turns into a dialog button). */
export async function hydrated(page: Page) {
  await expect(page.locator('button[aria-haspopup="dialog"]').first()).toBeAttached();
}

/**
 * A PNG of `size`×`size` pixels from a known byte pattern (a fixed pseudo-random sequence, so
 * it hardly compresses and its size is predictable): real image bytes for the upload.
 */
export function patternPng(size = 48, seed = 7): Buffer {
  let x = seed >>> 0;
  const rows = Array.from({ length: size }, () => {
    const row = Buffer.alloc(size * 3);
    for (let i = 0; i < row.length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      row[i] = x >>> 24;
    }
    return row;
  });
  return encodePng(size, size, rows);
}

/**
 * A patient signed up and logged in through the screens, with one real PDF report uploaded
 * through the API (quicker than the upload screen, which reports.spec.ts covers).
 */
export async function patientWithReport(browser: Browser, info: TestInfo, reportType = "Blood Test") {
  const user = newUser("Patient", info, "Asha", "Verma");
  const page = await (await personContext(browser, info)).newPage();
  await signUp(page, user);
  await logIn(page, user.email, user.password);
  const login = await page.request.post("/api/v1/auth/login", {
    data: { email: user.email, password: user.password },
  });
  const { token } = await login.json();
  const up = await page.request.post("/api/v1/report/upload-report", {
    headers: { Authorization: `Bearer ${token}` },
    multipart: {
      reportType,
      phoneNumber: "9876543210",
      description: "Fasting sugar",
      report: {
        name: "r.pdf",
        mimeType: "application/pdf",
        buffer: readFileSync(path.join("tests", "fixtures", "sample-report.pdf")),
      },
    },
  });
  expect(up.status()).toBe(201);
  const report = (await up.json()).data as { _id: string; patient: { _id: string } };
  return { user, page, report };
}

/** A large camera-like JPEG made by Chromium itself (gradients, paper, text and sensor noise). */
export async function phonePhoto(page: Page): Promise<Buffer> {
  const b64 = await page.evaluate(async () => {
    const w = 4000;
    const h = 3000;
    const canvas = document.createElement("canvas");
    canvas.width = w;
    canvas.height = h;
    const ctx = canvas.getContext("2d")!;
    const g = ctx.createLinearGradient(0, 0, w, h);
    g.addColorStop(0, "#6b5a45");
    g.addColorStop(1, "#2f2a24");
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = "#f4f1ea";
    ctx.fillRect(500, 250, 3000, 2500);
    ctx.fillStyle = "#1d2733";
    ctx.font = "bold 90px sans-serif";
    ctx.fillText("CITY DIAGNOSTIC LABORATORY", 700, 500);
    ctx.font = "56px sans-serif";
    for (let i = 0; i < 24; i++)
      ctx.fillText(`Haemoglobin ${(11 + (i % 5) * 0.7).toFixed(1)} g/dL   ref 12.0–16.0`, 700, 700 + i * 85);
    const img = ctx.getImageData(0, 0, w, h);
    let x = 12345;
    for (let i = 0; i < img.data.length; i += 4) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const n = ((x >>> 24) & 31) - 16;
      img.data[i] += n;
      img.data[i + 1] += n;
      img.data[i + 2] += n;
    }
    ctx.putImageData(img, 0, 0);
    const blob = await new Promise<Blob>((r) => canvas.toBlob((b) => r(b!), "image/jpeg", 0.92));
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  });
  return Buffer.from(b64, "base64");
}

/** The admin (signed in on `admin`) approves the experts who signed up with these addresses, through the API. */
export async function approveExperts(admin: Page, emails: string[]) {
  const token = (await (await admin.request.post("/api/v1/auth/login", { data: ADMIN })).json()).token;
  const headers = { Authorization: `Bearer ${token}` };
  const pending = await admin.request.get("/api/v1/expert/get-pending-expert?pageSize=100", { headers });
  const listed = (await pending.json()).data as { _id: string; email: string }[];
  for (const email of emails) {
    const id = listed.find((u) => u.email === email)!._id;
    const ok = await admin.request.post("/api/v1/expert/approve-expert", { headers, data: { expertId: id } });
    expect(ok.status()).toBe(200);
  }
}

/** The 6-digit code last mailed to `email` by the app whose data folder is `dataDir` (its .eml outbox). */
export async function mailedCode(dataDir: string, email: string): Promise<string> {
  const outbox = path.join(dataDir, "outbox");
  for (let i = 0; i < 150; i++) {
    let names: string[] = [];
    try {
      names = readdirSync(outbox).filter((f) => f.endsWith(".eml"));
    } catch {
      // not there yet
    }
    for (const f of names.sort().reverse()) {
      const text = readFileSync(path.join(outbox, f), "utf8");
      if (!new RegExp(`^To:.*${email.replace(/[.@]/g, "\\$&")}`, "im").test(text)) continue;
      const code = /^Subject:\s*(\d{6})\b/im.exec(text)?.[1];
      if (code) return code;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no code mailed to ${email}`);
}

/** The JSON API as the journeys' staff call it (straight to the app, in English), with a bearer token. */
export type StaffApi = (
  method: "get" | "post" | "patch",
  route: string,
  data?: unknown,
  token?: string,
) => Promise<{ status: number; body: any }>;

export function staffApi(staff: APIRequestContext): StaffApi {
  return async (method, route, data, token) => {
    const res = await staff.fetch(`/api/v1${route}`, {
      method,
      data,
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
    return { status: res.status(), body: await res.json() };
  };
}

/**
 * An approved expert who reads blood tests, made through the API of a journey's own app (e-mail
 * code from its outbox, the admin approves); his token.
 */
export async function approvedExpertVia(
  api: StaffApi,
  dataDir: string,
  admin: { email: string; password: string },
  expert: { email: string; password: string; firstName?: string; lastName?: string },
): Promise<string> {
  const { email, password } = expert;
  expect((await api("post", "/auth/send-otp", { email })).status).toBe(200);
  const signup = await api("post", "/auth/signup", {
    accountType: "Expert",
    firstName: expert.firstName ?? "Kavitha",
    lastName: expert.lastName ?? "Rao",
    email,
    contactNumber: "9876543210",
    password,
    confirmPassword: password,
    otp: await mailedCode(dataDir, email),
    specialties: ["Pathology", "General Medicine"],
    registrationNumber: "KMC-55501",
    registrationCouncil: "Karnataka Medical Council",
    yearsOfPractice: 11,
  });
  expect(signup.status, JSON.stringify(signup.body)).toBe(201);
  const token = (await api("post", "/auth/login", admin)).body.token;
  expect(
    (await api("post", "/expert/approve-expert", { expertId: signup.body.data._id }, token)).status,
  ).toBe(200);
  return (await api("post", "/auth/login", { email, password })).body.token as string;
}

/** The SMS a journey's Kannel delivered to a number, and a wait for the next one matching a pattern. */
export function smsBox(kannel: () => Kannel) {
  const received = (number: string) =>
    kannel()
      .delivered()
      .filter((m) => m.receiver.replace(/^00/, "+") === number);
  /** The first SMS to `number` after the `after`-th one that matches `match`. */
  const sms = async (
    number: string,
    match: RegExp,
    after: number,
    timeoutMs = 30_000,
  ): Promise<DeliveredSms> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = received(number)
        .slice(after)
        .find((m) => match.test(m.text));
      if (hit) return hit;
      if (Date.now() > deadline)
        throw new Error(`no SMS to ${number} matching ${match}:\n${kannel().logs()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { received, sms };
}
