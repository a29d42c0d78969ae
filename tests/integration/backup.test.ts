import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api";
import { samplePdf, uploadForm } from "../helpers/files";
import { startServer } from "../helpers/server";

const tsx = path.resolve("node_modules/.bin/tsx");
const run = (script: string, args: string[], env: Record<string, string>) =>
  execFileSync(tsx, [script, ...args], {
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    encoding: "utf8",
  });

const tmp = mkdtempSync(path.join(os.tmpdir(), "cb-backup-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("backup and restore", () => {
  it("round-trips the database, files and keys while the app runs", async () => {
    const admin = { ADMIN_EMAIL: "admin@b.test", ADMIN_PASSWORD: "Admin-pass-123", RATE_LIMIT_DISABLED: "1" };
    const a = await startServer(admin, { keep: true });
    const api = apiClient(a.url);
    // A patient signs up via the outbox (no SMTP set): read the code from data/outbox.
    await api.post("/auth/send-otp", { email: "pat@b.test" });
    const eml = readdirSync(path.join(a.dataDir, "outbox"));
    const { readFileSync } = await import("node:fs");
    const code = /(\d{6}) is your/.exec(readFileSync(path.join(a.dataDir, "outbox", eml[0]), "utf8"))![1];
    const pw = "Sturdy-pass-2026";
    const signup = await api.post("/auth/signup", {
      accountType: "Patient",
      firstName: "P",
      lastName: "Q",
      email: "pat@b.test",
      contactNumber: "9876543210",
      password: pw,
      confirmPassword: pw,
      otp: code,
    });
    expect(signup.status).toBe(201);
    const token = (await api.post("/auth/login", { email: "pat@b.test", password: pw })).body.token;
    const pdf = samplePdf("backup me");
    const rep = await api.call(
      "POST",
      "/report/upload-report",
      uploadForm({ reportType: "MRI", phoneNumber: "9876543210" }, { name: "mri.pdf", data: pdf }),
      token,
    );
    expect(rep.status).toBe(201);

    const out = path.join(tmp, "snap");
    const msg = run("scripts/backup.ts", ["--out", out], { DATA_DIR: a.dataDir, UPLOADS_DIR: a.uploadsDir });
    expect(msg).toMatch(/database \+ 1 files/);
    expect(statSync(out).mode & 0o777).toBe(0o700);
    await a.stop();
    rmSync(a.root, { recursive: true, force: true });

    const fresh = path.join(tmp, "fresh");
    const env = { DATA_DIR: path.join(fresh, "data"), UPLOADS_DIR: path.join(fresh, "uploads") };
    expect(run("scripts/restore.ts", [out], env)).toMatch(/Restored database and 1 files/);
    const b = await startServer({ ...admin, ...env }, { root: fresh });
    try {
      const api2 = apiClient(b.url);
      const login = await api2.post("/auth/login", { email: "pat@b.test", password: pw });
      expect(login.status).toBe(200);
      const file = await fetch(`${b.url}/api/v1/report/${rep.body.data._id}/file`, {
        headers: { Authorization: `Bearer ${login.body.token}` },
      });
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true);
    } finally {
      await b.stop();
    }
  });

  it("refuses a folder that is not a backup", () => {
    expect(() =>
      run("scripts/restore.ts", [tmp], { DATA_DIR: path.join(tmp, "x"), UPLOADS_DIR: path.join(tmp, "y") }),
    ).toThrow();
  });
});
