/**
 * npm run lighthouse — Lighthouse 12 performance (mobile, simulated throttling: Lighthouse's
 * defaults) of the screens a phone opens most: `/`, `/login`, `/signup`, the patient's, expert's and
 * admin's dashboards, upload, My data, Settings and the sharing page. It starts the built app
 * (`npm run build` first) on a temporary database filled by `npm run seed:demo`, logs in as the demo
 * people (the session cookie goes to Lighthouse as an extra header), and prints per page the score,
 * LCP, TBT and the JavaScript transferred; the run is written to bench/results/lighthouse-<time>.json.
 * Not part of `npm test`: about a minute per page on the shared machine.
 *
 * Settings: BUILD_DIR (the build to score, default build/), LH_RUNS (runs per page, median
 * reported; default 1), LH_PAGES (comma-separated labels to score only some), CHROMIUM_PATH
 * (default /usr/bin/chromium).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { Browserish, startServer } from "../tests/helpers/server";

const PASSWORD = "Demo-pass-2026";
const RUNS = Math.max(1, Number(process.env.LH_RUNS) || 1);
// The machine's Chromium flags (docs/performance-history.md): headless, no sandbox in the container, and
// nothing in the background that would compete with the page for the CPU being measured.
const FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const root = mkdtempSync(path.join(os.tmpdir(), "carebridge-lighthouse-"));
const seeded = spawnSync(process.execPath, ["--import", "tsx", "scripts/seed-demo.ts"], {
  env: { ...process.env, DATA_DIR: path.join(root, "data"), UPLOADS_DIR: path.join(root, "uploads") },
  encoding: "utf8",
});
if (seeded.status !== 0) throw new Error(`seed:demo failed:\n${seeded.stdout}\n${seeded.stderr}`);

const server = await startServer({ RATE_LIMIT_DISABLED: "1" }, { root });
// A fresh browser per run: a cookie a page set in an earlier run would otherwise take the place of
// the session cookie Lighthouse sends as an extra header (the dashboards then scored as /login).
const launchChrome = () =>
  chromeLauncher.launch({ chromePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", chromeFlags: FLAGS });

type Row = {
  label: string;
  path: string;
  runs: number;
  score: number;
  lcpMs: number;
  tbtMs: number;
  fcpMs: number;
  jsKb: number;
  jsFiles: number;
  allRuns: { score: number; lcpMs: number; tbtMs: number }[];
};

async function cookieFor(email: string) {
  const b = new Browserish(server.url);
  const res = await b.post("/login", { email, password: PASSWORD });
  if (res.status !== 302 || !b.cookies.get("cb_session")) throw new Error(`log in ${email}: ${res.status}`);
  return b;
}

try {
  const patient = await cookieFor("ravi@demo.carebridge");
  const expert = await cookieFor("dr.rao@demo.carebridge");
  const admin = await cookieFor("admin@demo.carebridge");
  // The sharing page of the patient's reviewed report, found where the patient finds it.
  const home = await (await patient.fetch("/dashboard/home")).text();
  const mine = /href="(\/dashboard\/previous-report\/[^"]+)"/.exec(home)?.[1];
  if (!mine) throw new Error("no link to the patient's reports on their dashboard");
  const reports = await (await patient.fetch(mine)).text();
  const share = /href="(\/dashboard\/share\/[^"]+)"/.exec(reports)?.[1];
  if (!share) throw new Error("no sharing link on the patient's reports page");

  const pages: [string, string, Browserish | null][] = [
    ["home", "/", null],
    ["login", "/login", null],
    ["signup", "/signup", null],
    ["patient dashboard", "/dashboard/home", patient],
    ["expert dashboard", "/dashboard/home", expert],
    ["admin dashboard", "/dashboard/home", admin],
    ["upload", "/dashboard/upload-report", patient],
    ["my data", "/dashboard/my-data", patient],
    ["settings", "/dashboard/settings", patient],
    ["sharing", share, patient],
  ];
  const only = process.env.LH_PAGES?.split(",").map((s) => s.trim());
  const rows: Row[] = [];
  for (const [label, pagePath, who] of pages) {
    if (only && !only.includes(label)) continue;
    const status = who ? (await who.fetch(pagePath)).status : (await fetch(server.url + pagePath)).status;
    if (status !== 200) throw new Error(`${label} ${pagePath}: ${status}`);
    const runs: {
      score: number;
      lcpMs: number;
      tbtMs: number;
      fcpMs: number;
      jsKb: number;
      jsFiles: number;
    }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const chrome = await launchChrome();
      const result = await lighthouse(server.url + pagePath, {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: ["performance"],
        extraHeaders: who ? { Cookie: who.cookieHeader() } : undefined,
      }).finally(() => chrome.kill());
      if (!result) throw new Error(`no Lighthouse result for ${label}`);
      const { lhr } = result;
      if (lhr.runtimeError) throw new Error(`${label}: ${lhr.runtimeError.message}`);
      // A page that sent Lighthouse elsewhere (a lost session → /login) would score the wrong page.
      const landed = new URL(lhr.finalDisplayedUrl).pathname;
      if (landed !== new URL(server.url + pagePath).pathname) throw new Error(`${label}: ended on ${landed}`);
      const summary = (
        lhr.audits["resource-summary"].details as unknown as {
          items: { resourceType: string; transferSize: number; requestCount: number }[];
        }
      ).items;
      const script = summary.find((r) => r.resourceType === "script");
      runs.push({
        score: Math.round((lhr.categories.performance.score ?? 0) * 100),
        lcpMs: Math.round(lhr.audits["largest-contentful-paint"].numericValue ?? 0),
        tbtMs: Math.round(lhr.audits["total-blocking-time"].numericValue ?? 0),
        fcpMs: Math.round(lhr.audits["first-contentful-paint"].numericValue ?? 0),
        jsKb: Math.round(((script?.transferSize ?? 0) / 1024) * 10) / 10,
        jsFiles: script?.requestCount ?? 0,
      });
    }
    const median = [...runs].sort((a, b) => a.score - b.score)[Math.floor(runs.length / 2)];
    const row: Row = {
      label,
      path: pagePath.replace(/\/dashboard\/share\/.+/, "/dashboard/share/:reportId"),
      runs: runs.length,
      ...median,
      allRuns: runs.map(({ score, lcpMs, tbtMs }) => ({ score, lcpMs, tbtMs })),
    };
    rows.push(row);
    console.log(
      `${label.padEnd(18)} ${String(row.score).padStart(3)}  LCP ${row.lcpMs} ms  TBT ${row.tbtMs} ms  JS ${row.jsKb} KiB in ${row.jsFiles} files`,
    );
  }
  mkdirSync(path.join("bench", "results"), { recursive: true });
  const out = path.join(
    "bench",
    "results",
    `lighthouse-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
  );
  writeFileSync(
    out,
    JSON.stringify(
      {
        lighthouse: "12 (mobile, simulated throttling, performance only)",
        chromium: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
        flags: FLAGS,
        build: process.env.BUILD_DIR || "build",
        loadavg: os.loadavg(),
        rows,
      },
      null,
      2,
    ),
  );
  console.log(`written to ${out}`);
} finally {
  await server.stop();
}
