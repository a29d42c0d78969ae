import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { samplePdf, uploadForm } from "../helpers/files";
import { rleInstance } from "../helpers/dicom";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { eventually, withEnvironment } from "../helpers/processes";
import { peakRss, raw, zeros } from "../helpers/raw";
import { spawnApp, startServer, type TestServer } from "../helpers/server";
import os from "node:os";

/**
 * Our production server (server/): who the client is, hostile requests answered 4xx before
 * Remix runs, bodies capped while read, static files, compression, the log line.
 */
const ADMIN = { email: "admin@srv.test", password: "Admin-pass-123" };

async function apiLogin(url: string, localAddress: string, headers: Record<string, string> = {}) {
  const res = await raw(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(ADMIN),
    localAddress,
  });
  expect(res.status).toBe(200);
  return JSON.parse(res.body.toString()).token as string;
}

async function lastSessionIp(dataDir: string): Promise<string> {
  const db = await openTestDb(dataDir);
  try {
    return (await db.get<{ ip: string }>("select ip from sessions order by created_at desc limit 1"))!.ip;
  } finally {
    await db.close();
  }
}

describe("our server, one process", () => {
  let server: TestServer & { root: string };
  beforeAll(async () => {
    server = await startServer({ ...envAdmin(), RATE_LIMIT_DISABLED: "1" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("takes the client's address from the socket and ignores a spoofed X-Forwarded-For", async () => {
    await apiLogin(server.url, "127.0.0.23", { "x-forwarded-for": "203.0.113.9" });
    expect(await lastSessionIp(server.dataDir)).toBe("127.0.0.23");
    await apiLogin(server.url, "127.0.0.24", { "x-forwarded-for": "127.0.0.23, 198.51.100.1" });
    expect(await lastSessionIp(server.dataDir)).toBe("127.0.0.24");
  });

  it("refuses cross-site form posts with 403 (a page with the message; JSON under /api/v1)", async () => {
    for (const [p, body] of [
      ["/login", "email=a%40b.c&password=x"],
      ["/contact-us", "name=A&email=a%40b.c&message=hello"],
      ["/set-language", "lng=hi"],
    ]) {
      for (const headers of [
        { origin: "http://evil.example" },
        { origin: "null" },
        { origin: "not a url" },
        { "sec-fetch-site": "cross-site" },
      ]) {
        const res = await raw(server.url + p, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
          body,
        });
        expect(res.status, `${p} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.headers["content-type"]).toMatch(/text\/html/);
        expect(res.body.toString()).toContain("This form was sent from another site and was refused.");
      }
    }
    const api = await raw(`${server.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify(ADMIN),
    });
    expect(api.status).toBe(403);
    expect(JSON.parse(api.body.toString())).toEqual({
      success: false,
      message: "This form was sent from another site and was refused.",
    });
    const db = await openTestDb(server.dataDir);
    expect((await db.get<{ n: number }>("select count(*) n from contact_messages"))!.n).toBe(0);
    await db.close();
    expect(server.output()).not.toMatch(/Aborting the action|\n\s+at /);
  });

  it("answers a same-origin post normally (the server's check is not too strict)", async () => {
    const res = await raw(server.url + "/login", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: server.url,
        host: new URL(server.url).host,
      },
      body: `email=${encodeURIComponent(ADMIN.email)}&password=${ADMIN.password}`,
    });
    expect(res.status).toBe(302);
  });

  it("caps ordinary bodies while reading them: 413, never echoed, memory stays flat", async () => {
    const pid = server.pid;
    const before = peakRss(pid);
    // Declared too large: refused before a byte is read.
    const declared = await raw(server.url + "/login", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(20 * 1024 * 1024),
      },
      body: zeros(20 * 1024 * 1024),
    }).catch((e) => ({ status: -1, body: Buffer.from(String(e)), headers: {} }));
    expect([413, -1]).toContain(declared.status);
    // Chunked, no length: refused as soon as the cap is crossed.
    const chunked = await raw(server.url + "/contact-us", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" },
      body: zeros(30 * 1024 * 1024),
    }).catch((e) => ({ status: -1, body: Buffer.from(String(e)), headers: {} }));
    expect([413, -1]).toContain(chunked.status);
    if (chunked.status === 413) expect(chunked.body.length).toBeLessThan(4096);
    const json = await raw(`${server.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(300 * 1024 * 1024) },
      body: zeros(300 * 1024 * 1024),
    }).catch((e) => ({ status: -1, body: Buffer.from(String(e)), headers: {} }));
    expect([413, -1]).toContain(json.status);
    // A body just over the cap, small enough to be sent whole: the client reads a clean 413.
    const over = await raw(`${server.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.alloc(70 * 1024, 0x20),
    });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body.toString())).toMatchObject({
      success: false,
      message: "The request body is too large",
    });
    const page = await raw(server.url + "/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=" + "x".repeat(100 * 1024),
    });
    expect(page.status).toBe(413);
    expect(page.body.length).toBeLessThan(4096);
    expect(peakRss(pid) - before).toBeLessThan(32 * 1024 * 1024);
    expect((await fetch(server.url + "/healthz")).status).toBe(200);
  });

  it("answers a bad Host or request target with 400, not 500", async () => {
    const bad = await raw(server.url + "/", { headers: { host: "exa mple" } });
    expect(bad.status).toBe(400);
  });

  it("serves fingerprinted assets immutable from memory, other public files briefly, compressed when asked", async () => {
    const html = await (await fetch(server.url + "/")).text();
    const asset = /\/assets\/[^"]+\.js/.exec(html)![0];
    const a = await raw(server.url + asset, { headers: { "accept-encoding": "br, gzip" } });
    expect(a.status).toBe(200);
    expect(a.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(a.headers["content-type"]).toMatch(/javascript/);
    const icon = await raw(server.url + "/favicon.svg");
    expect(icon.headers["cache-control"]).toBe("public, max-age=3600");
    const page = await raw(server.url + "/", { headers: { "accept-encoding": "gzip" } });
    expect(page.headers["content-encoding"]).toBe("gzip");
    const small = await raw(server.url + "/healthz", { headers: { "accept-encoding": "gzip, br" } });
    expect(small.headers["content-encoding"]).toBeUndefined();
    const docs = await raw(server.url + "/api/v1/openapi.json", { headers: { "accept-encoding": "br" } });
    expect(docs.headers["content-encoding"]).toBe("br");
    const missing = await raw(server.url + "/assets/nope-123.js");
    expect(missing.status).toBe(404);
  });

  it("serves the service worker revalidated at every update check, precaching only the app's files and the offline screens (decision 0066)", async () => {
    const sw = await raw(server.url + "/sw.js");
    expect(sw.status).toBe(200);
    expect(sw.headers["cache-control"]).toBe("no-cache");
    expect(sw.headers["content-type"]).toMatch(/javascript/);
    const precached = [...sw.body.toString().matchAll(/\{url:"([^"]+)",revision:"[0-9a-f]+"\}/g)].map(
      (m) => m[1],
    );
    const html = await (await fetch(server.url + "/login")).text();
    for (const asset of html.match(/\/assets\/[^"]+\.(?:js|css)/g)!) expect(precached).toContain(asset);
    expect(precached.filter((u) => !u.startsWith("/assets/"))).toEqual([
      "/offline?lng=en",
      "/offline?lng=hi",
      "/offline?lng=bn",
      "/offline?lng=ta",
      "/favicon.svg",
    ]);
  });

  it("serves the web app manifest in each language (?lng= first, then the lng cookie), linked from the pages", async () => {
    const names = {
      en: "CareBridge second opinions",
      hi: "CareBridge दूसरी राय",
      bn: "CareBridge দ্বিতীয় মতামত",
      ta: "CareBridge இரண்டாவது கருத்து",
    };
    for (const [lng, name] of Object.entries(names)) {
      const res = await fetch(`${server.url}/manifest.webmanifest?lng=${lng}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/manifest+json");
      const manifest = await res.json();
      expect(manifest).toMatchObject({
        name,
        short_name: "CareBridge",
        lang: lng,
        start_url: "/dashboard/home",
      });
      expect(manifest.icons.map((i: { src: string }) => i.src)).toEqual([
        "/icons/icon-192.png",
        "/icons/icon-512.png",
        "/icons/icon-maskable-512.png",
      ]);
    }
    // The cookie as the app sets it (a Remix cookie: JSON, base64).
    const lngCookie = `lng=${encodeURIComponent(Buffer.from(JSON.stringify("ta")).toString("base64"))}`;
    const byCookie = await fetch(`${server.url}/manifest.webmanifest`, { headers: { cookie: lngCookie } });
    expect((await byCookie.json()).lang).toBe("ta");
    const page = await (await fetch(`${server.url}/login?lng=bn`)).text();
    expect(page).toContain('<link rel="manifest" href="/manifest.webmanifest?lng=bn"/>');
    const icon = await raw(server.url + "/icons/icon-maskable-512.png");
    expect(icon.status).toBe(200);
    expect(icon.headers["content-type"]).toBe("image/png");
  });

  it("logs one JSON line per request with the route pattern, never a token, query or raw path", async () => {
    const secret = "a".repeat(64);
    await fetch(`${server.url}/update-password/${secret}?email=someone%40x.test`);
    await fetch(`${server.url}/api/v1/report/${"b".repeat(24)}/file?token=zzz`);
    await fetch(`${server.url}/media/avatar/${"c".repeat(32)}`);
    await new Promise((r) => setTimeout(r, 100));
    const out = server.output();
    expect(out).not.toContain(secret);
    expect(out).not.toContain("b".repeat(24));
    expect(out).not.toContain("c".repeat(32));
    expect(out).not.toContain("someone");
    expect(out).not.toContain("zzz");
    const lines = out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    const routes = lines.filter((l) => l.msg === "request").map((l) => l.route);
    expect(routes).toContain("/update-password/:token");
    expect(routes).toContain("/api/v1/report/:reportId/file");
    expect(routes).toContain("/media/avatar/:key");
  });
});

describe("our server, behind a trusted proxy", () => {
  it("believes X-Forwarded-For only from trusted proxies and takes the right-most untrusted entry", async () => {
    const server = await startServer({ ...envAdmin(), RATE_LIMIT_DISABLED: "1", TRUST_PROXY: "127.0.0.1" });
    try {
      // nginx on 127.0.0.1 appended the real client (198.51.100.7) to what the client wrote.
      await apiLogin(server.url, "127.0.0.1", { "x-forwarded-for": "6.6.6.6, 198.51.100.7" });
      expect(await lastSessionIp(server.dataDir)).toBe("198.51.100.7");
      // A client reaching the app directly is not a trusted proxy: its header is ignored.
      await apiLogin(server.url, "127.0.0.9", { "x-forwarded-for": "6.6.6.6" });
      expect(await lastSessionIp(server.dataDir)).toBe("127.0.0.9");
    } finally {
      await server.stop();
    }
    const hops = await startServer({ ...envAdmin(), RATE_LIMIT_DISABLED: "1", TRUST_PROXY: "1" });
    try {
      await apiLogin(hops.url, "127.0.0.3", { "x-forwarded-for": "6.6.6.6, 198.51.100.8" });
      expect(await lastSessionIp(hops.dataDir)).toBe("198.51.100.8");
    } finally {
      await hops.stop();
    }
  });
});

describe("our server with 2 workers", () => {
  it(
    "shares one port, sessions and list totals, replaces a crashed worker, drains on SIGTERM and checkpoints once",
    { timeout: 90_000 },
    async () => {
      const root = mkdtempSync(path.join(os.tmpdir(), "carebridge-workers-"));
      const smtp = await startSmtp();
      let started: Awaited<ReturnType<typeof spawnApp>> | undefined;
      try {
        const app = (started = await spawnApp(root, {
          ...envAdmin(),
          RATE_LIMIT_DISABLED: "1",
          WEB_CONCURRENCY: "2",
          SMTP_URL: smtp.url,
        }));
        // Which processes answered: the pid in each request log line.
        const pids = async () => {
          const mark = app.output().length;
          for (let i = 0; i < 40; i++) await raw(app.url + "/healthz");
          await new Promise((r) => setTimeout(r, 100));
          const seen = new Set<number>();
          for (const line of app.output().slice(mark).split("\n")) {
            if (line.includes('"msg":"request"')) seen.add(JSON.parse(line).pid);
          }
          return seen;
        };
        // Both workers listen (the primary says so once all of them do).
        for (let k = 0; k < 200 && !/"msg":"listening"[^\n]*"workers":2/.test(app.output()); k++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const first = await pids();
        expect(first.size).toBe(2);
        // Each worker starts with the V8 flags the primary gives it (decision 0051).
        const flagsOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        for (const pid of first) {
          expect(flagsOf(pid)).toEqual(
            expect.arrayContaining(["--max-semi-space-size=32", "--concurrent-marking-max-worker-num=1"]),
          );
        }
        // A session made through one worker works through the other (sessions live in the database).
        const token = await apiLogin(app.url, "127.0.0.1");
        for (let i = 0; i < 6; i++) {
          const me = await raw(`${app.url}/api/v1/profile/get-user-details`, {
            headers: { authorization: `Bearer ${token}` },
          });
          expect(me.status).toBe(200);
        }
        // List totals are cached per worker; a write through one worker is seen by the other at once.
        const pendingTotals = async () => {
          const totals = new Set<number>();
          for (let k = 0; k < 6; k++) {
            const r = await raw(`${app.url}/api/v1/report/get-pending-reports`, {
              headers: { authorization: `Bearer ${token}` },
            });
            expect(r.status).toBe(200);
            totals.add(JSON.parse(r.body.toString()).pagination.total);
          }
          return [...totals];
        };
        const before = await pendingTotals();
        expect(before).toHaveLength(1);
        const api = apiClient(app.url);
        const patient = await signupViaApi(api, smtp, codeFrom, { email: "two-workers@srv.test" });
        for (let n = 1; n <= 3; n++) {
          const up = await api.call(
            "POST",
            "/report/upload-report",
            uploadForm(
              { reportType: "ECG", phoneNumber: "9876543210" },
              { name: "r.pdf", data: samplePdf() },
            ),
            patient.token,
          );
          expect(up.status).toBe(201);
          expect(await pendingTotals()).toEqual([before[0] + n]);
        }

        // Kill one worker: the primary starts another, and the app keeps answering meanwhile.
        const victim = [...first][0];
        process.kill(victim, "SIGKILL");
        // A connection the primary handed to the worker in the instant it died is lost (node:cluster
        // cannot take it back); the client times out and retries. At most that one may fail.
        let lost = 0;
        for (let i = 0; i < 20; i++) {
          const r = await raw(app.url + "/healthz", { timeoutMs: 3_000 }).catch(() => null);
          if (r) expect(r.status).toBe(200);
          else lost++;
        }
        expect(lost).toBeLessThanOrEqual(1);
        let after = new Set<number>();
        for (let i = 0; i < 50; i++) {
          after = await pids();
          if (after.size === 2 && !after.has(victim)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(after.size).toBe(2);
        expect(after.has(victim)).toBe(false);
        for (const pid of after) expect(flagsOf(pid)).toContain("--concurrent-marking-max-worker-num=1");
        // SIGTERM: every worker drains, the primary closes the database (WAL checkpointed).
        app.child.kill("SIGTERM");
        const exit = await app.exited;
        expect(exit.code).toBe(0);
        const wal = path.join(app.dataDir, "app.db-wal");
        expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
        expect(app.output()).not.toMatch(/\n\s+at /);
      } finally {
        // A failed step must not leave the cluster running (the primary stops its workers).
        const app = started;
        if (app && app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL");
        await smtp.close();
        rmSync(root, { recursive: true, force: true });
      }
    },
  );

  it("loads the workers while the primary starts up, and lets them answer only after it: on a fresh database the admin logs in at once (decision 0123)", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "carebridge-workers-fresh-"));
    let app: Awaited<ReturnType<typeof spawnApp>> | undefined;
    try {
      // An empty database: the primary runs every migration and makes the admin while the workers load.
      app = await spawnApp(
        root,
        { ...envAdmin(), RATE_LIMIT_DISABLED: "1", WEB_CONCURRENCY: "2" },
        { fresh: true },
      );
      const token = await apiLogin(app.url, "127.0.0.1");
      for (let i = 0; i < 4; i++) {
        const me = await raw(`${app.url}/api/v1/profile/get-user-details`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(me.status).toBe(200);
      }
      app.child.kill("SIGTERM");
      expect((await app.exited).code).toBe(0);
    } finally {
      if (app && app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL");
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("ends the node when the primary's start-up fails: the workers that were loading go with it", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "carebridge-workers-fail-"));
    const dataDir = path.join(root, "data");
    try {
      mkdirSync(dataDir, { recursive: true });
      const file = path.join(dataDir, "app.db");
      writeFileSync(file, randomBytes(8192)); // not a database: opening it fails the start-up
      await expect(
        spawnApp(root, { WEB_CONCURRENCY: "2", DATABASE_URL: file }, { fresh: true }),
      ).rejects.toThrow(/server exited early[\s\S]*SQLITE_NOTADB/);
      // No process of this node is left (each carries its DATA_DIR in its environment).
      expect(await eventually(() => withEnvironment("DATA_DIR", dataDir).length === 0, 10_000)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("keeps `npm run start:basic` (remix-serve) working, medical image previews included", async () => {
    const smtp = await startSmtp();
    const basic = await startServer({ RATE_LIMIT_DISABLED: "1", SMTP_URL: smtp.url }, { basic: true });
    try {
      expect((await fetch(basic.url + "/healthz")).status).toBe(200);
      expect((await fetch(basic.url + "/")).status).toBe(200);
      // A preview is decoded in a render thread (decision 0056), which this build must find too.
      const api = apiClient(basic.url);
      const patient = await signupViaApi(api, smtp, codeFrom, { email: "basic@srv.test" });
      const up = await api.call(
        "POST",
        "/report/upload-report",
        uploadForm(
          { reportType: "CT Scan", phoneNumber: "9876543210" },
          { name: "ct.dcm", data: rleInstance(), type: "application/octet-stream" },
        ),
        patient.token,
      );
      expect(up.status).toBe(201);
      const inst = up.body.data.study.series[0].instances[0].id;
      const png = await raw(`${basic.url}/api/v1/report/${up.body.data._id}/study/frames/${inst}/0.png`, {
        headers: { authorization: `Bearer ${patient.token}` },
      });
      expect(png.status).toBe(200);
      expect(png.headers["content-type"]).toBe("image/png");
    } finally {
      await basic.stop();
      await smtp.close();
    }
  });
});

function envAdmin() {
  return { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password };
}
