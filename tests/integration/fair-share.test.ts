import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupPeople } from "../helpers/api";
import { onPostgres } from "../helpers/backends";
import { labReadOf, labReadsEnded, openTestDb, storedBytes, storedKeys } from "../helpers/db";
import { drawnPdf, samplePdf, uploadForm } from "../helpers/files";
import { labPdf } from "../helpers/lab-corpus";
import { spawnApp, startServer, type AppProcess, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * A fair share of every shared part (decision 0100), tried from outside as an ordinary patient
 * would attack it, on the built server: on SQLite one node of two processes (WEB_CONCURRENCY=2), on
 * PostgreSQL + S3 two nodes sharing the database and the bucket. Patient A floods the page renderer
 * with pages built to run out of time and the lab reader with scans that do; patient B, asking in
 * between, is answered in her usual time. A page that ran out of time is refused at once ever
 * after; the preview cache of one file stays within its quota however many pages are asked for.
 */

let server: TestServer & { root: string };
let second: AppProcess | undefined;
let secondRoot: string | undefined;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
/** The nodes' addresses (on SQLite one address, two processes behind it). */
let urls: string[] = [];
const tok: Record<string, string> = {};
const ids: Record<string, string> = {};
const reports: Record<string, string> = {};

const SLOW_PAGES = 8;

/** One 4,000 × 4,000 grey image drawn four hundred times a page: a few KB that take pdftoppm a minute. */
function slowPages(): Buffer {
  const big = { name: "Im", width: 4000, height: 4000, data: Buffer.alloc(4000 * 4000, 128) };
  const page = "q 595 0 0 842 0 0 cm /Im Do Q\n".repeat(400);
  return drawnPdf(
    [big],
    Array.from({ length: SLOW_PAGES }, () => page),
  );
}

/** `pages` pages tiled with a small image of noise (and three lines of text): each preview is a JPEG of about 600 KB. */
function noisyPdf(pages: number): Buffer {
  let seed = 7;
  const noise = Buffer.from(
    Array.from({ length: 64 * 64 * 3 }, () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 255),
  );
  // A text layer that is not a lab report: the reader reads it as text, not by OCR.
  let page = "BT /F1 10 Tf 40 40 Td (Noise 1) Tj 0 12 Td (Noise 2) Tj 0 12 Td (Noise 3) Tj ET\n";
  for (let y = 0; y < 842; y += 36)
    for (let x = 0; x < 595; x += 36) page += `q 36 0 0 36 ${x} ${y} cm /N Do Q\n`;
  return drawnPdf([{ name: "N", width: 64, height: 64, rgb: true, data: noise }], Array(pages).fill(page));
}

const node = (i: number) => apiClient(urls[i % urls.length]);

async function upload(who: string, name: string, data: Buffer, i = 0): Promise<string> {
  const res = await node(i).call(
    "POST",
    "/report/upload-report",
    uploadForm(
      { reportType: "Blood Test", phoneNumber: "9876543210", consent: "true" },
      {
        name,
        data,
        type: "application/pdf",
      },
    ),
    tok[who],
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data._id;
}

const labRead = (reportId: string) => labReadOf(server, reportId);

beforeAll(async () => {
  smtp = await startSmtp();
  const env = {
    SMTP_URL: smtp.url,
    RATE_LIMIT_DISABLED: "1",
    LAB_OCR: "1",
    // The limits of the attack, shortened so the suite does not wait a minute for each.
    PREVIEW_RENDER_SECONDS: "3",
    LAB_READ_SECONDS: "4",
    // Quotas small enough that ten pages of noise pass them.
    PREVIEW_CACHE_FILE_MB: "4",
    PREVIEW_CACHE_PROFILE_MB: "6",
  };
  if (onPostgres) {
    server = await startServer(env);
    secondRoot = mkdtempSync(path.join(os.tmpdir(), "carebridge-test-"));
    const shared = JSON.parse(readFileSync(path.join(server.root, "backend.json"), "utf8"));
    second = await spawnApp(secondRoot, { ...env, ...shared });
    urls = [server.url, second.url];
  } else {
    server = await startServer({ ...env, WEB_CONCURRENCY: "2" });
    urls = [server.url];
  }
  await signupPeople(
    node(0),
    smtp,
    codeFrom,
    "share.test",
    [
      ["attacker", "Patient"],
      ["victim", "Patient"],
      ["bystander", "Patient"],
    ],
    { tok, ids },
  );
  reports.slow = await upload("attacker", "slow.pdf", slowPages());
  reports.plain = await upload("victim", "plain.pdf", samplePdf());
  reports.noisy = await upload("victim", "noisy.pdf", noisyPdf(10), 1);
  reports.noisier = await upload("victim", "noisier.pdf", noisyPdf(10));
}, 120_000);

afterAll(async () => {
  if (second && second.child.exitCode === null && second.child.signalCode === null) {
    second.child.kill("SIGTERM");
    await Promise.race([second.exited, new Promise((r) => setTimeout(r, 5000))]);
    if (second.child.exitCode === null) second.child.kill("SIGKILL");
  }
  if (secondRoot) rmSync(secondRoot, { recursive: true, force: true });
  await server?.stop();
  await smtp?.close();
});

const pagePath = (reportId: string, page: number) => `/report/${reportId}/pages/${page}` as never;

describe("a fair share of every shared part (decision 0100)", () => {
  it("page renders: one account asking in loops on every node holds one turn; another is answered in ≤ 2 s", async () => {
    // Her usual time: a fresh page of hers, with nobody else asking (on a quiet machine well under 1 s).
    const quiet = Date.now();
    expect((await node(0).get(pagePath(reports.noisier, 9), tok.victim)).status).toBe(200);
    const usual = Date.now() - quiet;
    let flooding = true;
    const attempts: number[] = [];
    // Two loops on each node, each over the attacker's pages that take the renderer to its limit.
    const loops = Array.from({ length: 2 * urls.length }, async (_, l) => {
      for (let i = l; flooding; i++) {
        const res = await node(l).get(pagePath(reports.slow, 1 + (i % SLOW_PAGES)), tok.attacker);
        attempts.push(res.status);
        if (res.status === 429) await new Promise((r) => setTimeout(r, 200));
      }
    });
    await new Promise((r) => setTimeout(r, 1500)); // the renders are under way
    const waits: number[] = [];
    try {
      for (let k = 0; k < 2 * urls.length; k++) {
        const started = Date.now();
        // A page not asked for before: rendered in her turn, not served from the cache.
        const res = await node(k).get(pagePath(reports.noisy, 1 + k), tok.victim);
        waits.push(Date.now() - started);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        await new Promise((r) => setTimeout(r, 300));
      }
    } finally {
      flooding = false;
      await Promise.all(loops);
    }
    // Within 2 s, or twice her usual time on a machine busy with other suites.
    expect(Math.max(...waits), `waits ${waits.join(", ")} ms; usual ${usual} ms`).toBeLessThanOrEqual(
      Math.max(2000, 2 * usual),
    );
    // The attacker was told to come back, never answered with a fault.
    expect(attempts.every((s) => s === 429 || s === 404)).toBe(true);
  }, 90_000);

  it("a page that ran out of time is refused at once from then on, with the reason", async () => {
    const db = await openTestDb(server.dataDir);
    let failed: { subject: string }[];
    try {
      failed = await db.all("select subject from work_failures where kind = 'render'");
    } finally {
      await db.close();
    }
    expect(failed.length).toBeGreaterThan(0);
    const page = Number(failed[0].subject.split("#").at(-1));
    for (let i = 0; i < urls.length; i++) {
      const started = Date.now();
      const res = await node(i).get(pagePath(reports.slow, page), tok.attacker);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).toMatch(/takes too long to draw/);
    }
  });

  it("the preview cache stays within its quotas, per file and per profile, however many pages are asked for", async () => {
    const before = new Set(await storedKeys(server));
    for (const report of [reports.noisy, reports.noisier])
      for (let p = 1; p <= 10; p++) {
        const res = await node(p).get(pagePath(report, p), tok.victim);
        expect(res.status).toBe(200);
      }
    const added = (await storedKeys(server)).filter((k) => !before.has(k));
    let bytes = 0;
    for (const k of added) bytes += (await storedBytes(server, k)).length;
    // Twenty previews of about 600 KB: 12 MB without a quota; 6 MB is the profile's.
    expect(added.length).toBeGreaterThan(4);
    expect(bytes).toBeLessThanOrEqual(6 * 1024 * 1024);
    const db = await openTestDb(server.dataDir);
    try {
      const files = await db.all<{ n: number }>(
        "select sum(bytes) as n from preview_cache group by file_key",
      );
      for (const f of files) expect(Number(f.n)).toBeLessThanOrEqual(4 * 1024 * 1024);
    } finally {
      await db.close();
    }
    // The newest pages are kept: the last one asked is served from the cache.
    const started = Date.now();
    expect((await node(0).get(pagePath(reports.noisier, 10), tok.victim)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
  }, 120_000);

  it("lab reads: one account's scans that run out of time never keep another's text report waiting", async () => {
    // The reads the uploads above asked for have ended (the victim's noisy pages are read too).
    await labReadsEnded(server);
    const scans = [
      await upload("attacker", "scan-1.pdf", slowPages()),
      await upload("attacker", "scan-2.pdf", slowPages(), 1),
    ];
    await new Promise((r) => setTimeout(r, 1000)); // the attacker's reads are under way
    const started = Date.now();
    const clean = await upload("bystander", "lab.pdf", await labPdf("table"), 1);
    for (;;) {
      const row = await labRead(clean);
      if (row?.status === "read") break;
      if (Date.now() - started > 5000) throw new Error(`the clean report waited: ${JSON.stringify(row)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Each scan ran out of time once and is not read again.
    const deadline = Date.now() + 40_000;
    for (const id of scans) {
      for (;;) {
        const row = await labRead(id);
        if (row?.status === "failed") {
          expect(row.attempts).toBe(1);
          expect(row.last_error).toMatch(/time limit/);
          break;
        }
        if (Date.now() > deadline)
          throw new Error(
            `the scan's read did not end: ${JSON.stringify(row)}\n${server
              .output()
              .split("\n")
              .filter((l) => /lab|program/.test(l))
              .slice(-20)
              .join("\n")}`,
          );
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }, 90_000);
});
