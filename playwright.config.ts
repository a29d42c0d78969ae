import { defineConfig } from "@playwright/test";
import { CHROMIUM_PATH } from "./tests/helpers/chromium";
import { readdirSync } from "node:fs";
import os from "node:os";

/**
 * One viewport per flow (decision 0053): a flow runs once, at the width its people have —
 * patients, health workers and families on the phone, experts and admins on the desktop. Only the
 * specs whose second width checks something different run on both: accessibility (axe, each
 * language at its width, and the desktop's page widths) and the public site's navigation (its phone
 * menu). The languages walk (words and page widths in Hindi, Bengali and Tamil) runs on the phone,
 * the narrower screen (decision 0099).
 * A flow with both kinds of people runs where most of it happens.
 */
const BOTH_WIDTHS = ["a11y", "public"];
const PHONE_FLOWS = [
  "offline-outbox",
  "centre-journey",
  "family-journey",
  "follow-up-journey",
  "languages",
  "phone-journey",
  "referral",
  "my-data",
  "my-data-download",
  "next-steps",
  "patient-control",
  "reminders",
  "resumable",
  "share-links",
  "voice",
];
const DESKTOP_FLOWS = [
  "lab-values",
  "lab-words",
  "consultation",
  "dashboard",
  "dicom",
  "offline-app",
  "reports",
  "second-opinion",
  "service",
  "two-factor",
];
// A new spec must be placed in one of the lists above, or it would never run.
const placed = new Set([...BOTH_WIDTHS, ...PHONE_FLOWS, ...DESKTOP_FLOWS]);
const unplaced = readdirSync("tests/e2e")
  .filter((f) => f.endsWith(".spec.ts"))
  .map((f) => f.replace(/\.spec\.ts$/, ""))
  .filter((n) => !placed.has(n));
if (unplaced.length)
  throw new Error(`playwright.config.ts: say at which width these specs run: ${unplaced.join(", ")}`);
const specs = (names: string[]) => names.map((n) => `**/${n}.spec.ts`);

/**
 * Workers sized to the machine: one per core, at most 4 (each brings a Chromium and a 2-process app
 * server). E2E_WORKERS overrides.
 */
const WORKERS = Number(process.env.E2E_WORKERS) || Math.max(1, Math.min(4, os.cpus().length));
const FIRST_PORT = Number(process.env.E2E_PORT ?? 4310);
/**
 * Each worker has an app server of its own (tests/e2e/serve.mjs, its own data folder) on
 * E2E_PORT + its parallel index, so specs running side by side never see each other's users,
 * reports, counts or admin settings; within a worker, spec files run one after another on that
 * server as they did on the single server before. Playwright loads this file again in every
 * worker with TEST_PARALLEL_INDEX set (0 … workers-1); the runner itself has none and starts all
 * the servers below.
 */
const PORT = FIRST_PORT + Number(process.env.TEST_PARALLEL_INDEX ?? 0);
export const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results/artifacts",
  // Tests within a file run in order in one worker (several files build on earlier tests).
  fullyParallel: false,
  workers: WORKERS,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["./tests/e2e/phase-summary.ts"]],
  use: {
    baseURL: BASE_URL,
    browserName: "chromium",
    headless: true,
    trace: "off",
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  // The phone's flows first: its long, mostly waiting ones (uploads at 50 kbit/s, calls, voice) then
  // start while the desktop's short ones fill the cores, instead of running alone at the end (a run
  // of both on 2 workers: 339 s desktop first, 322 s phone first, on one quiet machine).
  projects: [
    {
      name: "phone",
      testMatch: specs([...BOTH_WIDTHS, ...PHONE_FLOWS]),
      use: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true },
    },
    {
      name: "desktop",
      testMatch: specs([...BOTH_WIDTHS, ...DESKTOP_FLOWS]),
      use: { viewport: { width: 1280, height: 800 } },
    },
  ],
  webServer: Array.from({ length: WORKERS }, (_, i) => ({
    command: `node tests/e2e/serve.mjs`,
    url: `http://127.0.0.1:${FIRST_PORT + i}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: { E2E_PORT: String(FIRST_PORT + i) },
  })),
});
