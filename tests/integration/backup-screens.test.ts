import { readdirSync, readFileSync, rmSync, mkdtempSync } from "node:fs";
import os, { hostname } from "node:os";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { formatDateTime } from "~/lib/format";
import { onlyWith, requireTool } from "../helpers/requires";
import { apiClient, signupViaApi, strongPassword } from "../helpers/api";
import { openTestDb } from "../helpers/db";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";
import { TestAuthenticator } from "../helpers/totp-app";

const { afterAll, beforeAll, describe, it } = onlyWith(requireTool("restic", "restic"), vitest);

/*
 * Backups over HTTP (decisions 0067, 0068), on the built server: a start with BACKUP_AT takes the
 * missed slot's backup at once (into a real restic repository), the Service screen lists it and
 * /metrics exports when it was verified; the admin's home asks for the recovery sheet, which only
 * an admin gets, only after the password and a code again; without BACKUP_REPOSITORY the home
 * and the Service screen say that no copy leaves the machine and how to add one.
 */

const ADMIN = { email: "admin@backups.test", password: "Admin-pass-123" };
const TOKEN = "backup-metrics-token-0123456789";
const SHEET = "/dashboard/service/recovery-sheet";
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const tmp = mkdtempSync(path.join(os.tmpdir(), "cb-backup-http-"));
const repository = path.join(tmp, "repo");

let server: TestServer & { root: string };
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let admin: Browserish;
let app: TestAuthenticator;

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_DISABLED: "1",
    SMTP_URL: smtp.url,
    METRICS_TOKEN: TOKEN,
    // Today's 00:00 slot was missed: the start takes it. The server's own zone is UTC; the
    // clinic's (CLINIC_TIME_ZONE unset) India: 00:00 is India's midnight (decision 0092).
    TZ: "UTC",
    BACKUP_AT: "00:00",
    CLINIC_NAME: "Rampur Clinic",
    BACKUP_REPOSITORY: repository,
    BACKUP_CHECK_SHARE: "100%",
  });
  const api = apiClient(server.url);
  const login = await api.post("/auth/login", ADMIN);
  const setup = await api.post("/auth/two-factor/setup", { password: ADMIN.password }, login.body.token);
  app = new TestAuthenticator(setup.body.data.secret);
  const confirmed = await api.post(
    "/auth/two-factor/confirm",
    { password: ADMIN.password, code: await app.next() },
    login.body.token,
  );
  expect(confirmed.status).toBe(200);
  admin = new Browserish(server.url);
  expect((await admin.post("/login", ADMIN)).headers.get("Location")).toBe("/login-2fa");
  expect((await admin.post("/login-2fa", { code: await app.next() })).status).toBe(302);
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await smtp?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe("a scheduled backup, on the Service screen and in /metrics", () => {
  it("is taken at start for the missed slot, verified and listed", async () => {
    const html = await waitFor(
      async () => (await admin.fetch("/dashboard/service")).text(),
      (h) => /data-status="(verified|unverified|failed)"/.test(h),
    );
    expect(html).toContain('data-status="verified"');
    const text = pageText(html);
    expect(text).toContain("Backups");
    expect(text).toContain("A backup is taken every day at 00:00, clinic time (India Standard Time)");
    expect(text).toContain("Times are the clinic's: India Standard Time");
    expect(text).toContain(repository);
    expect(text).toContain("Verified");
    expect(text).not.toContain("No copy of the data leaves this machine");
    // The slot is India's last midnight, on a server whose clock is at UTC: 18:30 UTC the day before.
    const india = 330 * 60_000;
    const midnight = Math.floor((Date.now() + india) / 86_400_000) * 86_400_000 - india;
    const db = await openTestDb(server.dataDir);
    try {
      const run = await db.get<{ slot: number | Date; snapshot_at: number | Date }>(
        "select slot, snapshot_at from backup_runs where trigger = 'scheduled'",
      );
      expect(new Date(run!.slot).toISOString()).toBe(new Date(midnight).toISOString());
      // The snapshot's time is shown (clinic time), not its hash alone; the Why says what was checked.
      const taken = formatDateTime(new Date(run!.snapshot_at), "en", "Asia/Kolkata");
      expect(text).toMatch(new RegExp(`${escape(taken)}\\s*[0-9a-f]{8}`));
    } finally {
      await db.close();
    }
    expect(text).toMatch(/\d+ files stored; then read back from the repository, every table counted/);

    const metrics = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    const at = Number(/^carebridge_backup_last_verified_timestamp_seconds (\d+)/m.exec(metrics)?.[1]);
    expect(Date.now() / 1000 - at).toBeLessThan(300);
  }, 90_000);
});

describe("Back up now and Test a restore now", () => {
  const runs = async (trigger: string) => {
    const db = await openTestDb(server.dataDir);
    try {
      return await db.all<{ status: string; snapshot_id: string | null }>(
        "select status, snapshot_id from backup_runs where trigger = ?",
        trigger,
      );
    } finally {
      await db.close();
    }
  };
  const settled = (trigger: string) =>
    waitFor(
      () => runs(trigger),
      (rows) => rows.length > 0 && rows.every((r) => r.status !== "running"),
    );

  it("a backup by hand: two presses at once start one; it is stored, verified and listed", async () => {
    const pressed = await Promise.all(
      [1, 2].map(() => admin.post("/dashboard/service", { intent: "backup" })),
    );
    for (const r of pressed) expect(r.status).toBe(302);
    expect(await runs("manual")).toHaveLength(1);
    expect((await settled("manual")).map((r) => r.status)).toEqual(["verified"]);
    const text = pageText(await (await admin.fetch("/dashboard/service")).text());
    expect(text).toContain("Back up now");
    expect(text).toContain("(by hand)");
  }, 90_000);

  it("a restore test brings the newest snapshot back whole and reads it through", async () => {
    const r = await admin.post("/dashboard/service", { intent: "restore-test" });
    expect(r.status).toBe(302);
    const [done] = await settled("restore-test");
    expect(done.status).toBe("verified");
    const text = pageText(await (await admin.fetch("/dashboard/service")).text());
    expect(text).toContain("(test restore)");
    expect(text).toMatch(
      /Restored into a scratch folder as a new machine would: every table counted and all \d+ files decrypted/,
    );
    // Nothing of it is left behind.
    expect(readdirSync(path.join(server.dataDir, "backups", ".staging", "restore-test"))).toEqual([]);
  }, 90_000);

  it("is an admin's alone: a patient gets 404, a stranger the login, a made-up intent 400", async () => {
    const api = apiClient(server.url);
    await signupViaApi(api, smtp, codeFrom, { email: "presser@backups.test" });
    const patient = new Browserish(server.url);
    expect(
      (await patient.post("/login", { email: "presser@backups.test", password: strongPassword })).status,
    ).toBe(302);
    expect((await patient.post("/dashboard/service", { intent: "backup" })).status).toBe(404);
    const stranger = await new Browserish(server.url).post("/dashboard/service", { intent: "backup" });
    expect(stranger.status).toBe(302);
    expect(stranger.headers.get("Location")).toMatch(/^\/login/);
    expect((await admin.post("/dashboard/service", { intent: "wipe" })).status).toBe(400);
    expect(await runs("manual")).toHaveLength(1);
  }, 60_000);
});

describe("the recovery sheet", () => {
  it("is asked for on the admin's home until someone prints it", async () => {
    const home = await (await admin.fetch("/dashboard/home")).text();
    expect(home).toContain('data-testid="backup-sheet-needed"');
    expect(home).not.toContain('data-testid="backup-local-only"');
  });

  it("is refused without the password or the code, and shown with both", async () => {
    const form = await admin.fetch(SHEET);
    expect(form.status).toBe(200);
    expect(form.headers.get("cache-control")).toContain("no-store");
    const password = readFileSync(path.join(server.dataDir, "secrets", "backup-password"), "utf8").trim();

    const noPassword = await admin.post(SHEET, { password: "", proof: "123456" });
    expect(noPassword.status).toBe(400);
    const noCode = await admin.post(SHEET, { password: ADMIN.password, proof: "" });
    expect(noCode.status).toBe(400);
    const wrongCode = await admin.post(SHEET, { password: ADMIN.password, proof: "000000" });
    expect(wrongCode.status).toBe(400);
    for (const r of [noPassword, noCode, wrongCode]) expect(await r.text()).not.toContain(password);

    const ok = await admin
      .inLanguage("hi")
      .post(SHEET, { password: ADMIN.password, proof: await app.next() });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toContain("no-store");
    const sheet = await ok.text();
    expect(sheet).toContain('data-testid="recovery-sheet"');
    expect(sheet).toContain(password);
    expect(pageText(sheet)).toContain(`npm run restore -- --repository ${repository} --snapshot latest`);
    // Whose it is: the clinic, its address and the server.
    expect(pageText(sheet)).toContain("Rampur Clinic");
    expect(pageText(sheet)).toContain(server.url);
    expect(sheet).toContain(`data-testid="sheet-server">${hostname()}<`);
    expect(pageText(sheet)).toContain("रिकवरी शीट"); // in the admin's language

    const db = await openTestDb(server.dataDir);
    try {
      const rows = await db.all("select printed_by, repository from recovery_sheets");
      expect(rows).toHaveLength(1);
      expect(rows[0].repository).toBe(repository);
      const audited = await db.all(
        "select actor_id from audit_events where action = ?",
        "backup.recovery_sheet_printed",
      );
      expect(audited).toHaveLength(1);
      expect(audited[0].actor_id).toBe(rows[0].printed_by);
    } finally {
      await db.close();
    }
    const home = await (await admin.fetch("/dashboard/home")).text();
    expect(home).not.toContain('data-testid="backup-sheet-needed"');
    expect(pageText(await (await admin.fetch("/dashboard/service")).text())).toMatch(
      /The recovery sheet was last printed on .+ by /,
    );
  }, 60_000);

  it("is not for anyone but an admin (403 for the step, 404 for the page)", async () => {
    const api = apiClient(server.url);
    await signupViaApi(api, smtp, codeFrom, { email: "patient@backups.test" });
    const patient = new Browserish(server.url);
    expect(
      (await patient.post("/login", { email: "patient@backups.test", password: strongPassword })).status,
    ).toBe(302);
    expect((await patient.fetch(SHEET)).status).toBe(404);
    const step = await patient.post(SHEET, { password: strongPassword, proof: "123456" });
    expect(step.status).toBe(403);
    expect(await step.text()).not.toContain('data-testid="recovery-sheet"');
    expect((await patient.fetch("/dashboard/service")).status).toBe(404);
  }, 60_000);
});

describe("backups kept on this machine only", () => {
  it("the admin's home and the Service screen say so, and how to add a copy elsewhere", async () => {
    const local = await startServer({
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      RATE_LIMIT_DISABLED: "1",
    });
    try {
      const web = new Browserish(local.url);
      expect((await web.post("/login", ADMIN)).status).toBe(302);
      const home = pageText(await (await web.fetch("/dashboard/home")).text());
      expect(home).toContain("No copy of the data leaves this machine");
      expect(home).toContain(path.join(local.dataDir, "backups", "restic"));
      expect(home).toContain("set BACKUP_REPOSITORY to");
      const service = pageText(await (await web.fetch("/dashboard/service")).text());
      expect(service).toContain("No copy of the data leaves this machine");
      expect(service).toContain("The app takes no backups by itself (BACKUP_AT=off)");
      expect(service).toContain("No backup has been taken yet.");
      // Before two-step login is on, the sheet asks for it first.
      const sheet = pageText(await (await web.fetch(SHEET)).text());
      expect(sheet).toContain("Set up two-step login first");
      const refused = await web.post(SHEET, { password: ADMIN.password, proof: "123456" });
      expect(refused.status).toBe(409);
      // With two-step login on, the sheet is printed — and names no path on the machine it cannot save.
      const api = apiClient(local.url);
      const token = (await api.post("/auth/login", ADMIN)).body.token;
      const secret = (await api.post("/auth/two-factor/setup", { password: ADMIN.password }, token)).body.data
        .secret;
      const authenticator = new TestAuthenticator(secret);
      const code = await authenticator.next();
      expect(
        (await api.post("/auth/two-factor/confirm", { password: ADMIN.password, code }, token)).status,
      ).toBe(200);
      const again = new Browserish(local.url);
      expect((await again.post("/login", ADMIN)).headers.get("Location")).toBe("/login-2fa");
      expect((await again.post("/login-2fa", { code: await authenticator.next() })).status).toBe(302);
      const printed = await again.post(SHEET, {
        password: ADMIN.password,
        proof: await authenticator.next(),
      });
      expect(printed.status).toBe(200);
      const page = pageText(await printed.text());
      expect(page).toContain("Nowhere else: the backups are only on this machine.");
      expect(page).not.toContain(path.join(local.dataDir, "backups", "restic"));
      expect(page).not.toContain("npm run restore");
    } finally {
      await local.stop();
    }
  }, 60_000);
});
