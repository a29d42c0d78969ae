import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { onlyWith, requireTool } from "../helpers/requires";
import { caddyValidate } from "../helpers/caddy";
import { serviceSettings, unitEnvironment, unitSecurity, verifyUnit } from "../helpers/ops";
import { freePort } from "../helpers/server";

const { afterAll, beforeAll, describe, it } = onlyWith(
  requireTool("caddy", "caddy") &&
    requireTool("restic", "restic") &&
    requireTool("systemd-analyze", "systemd"),
  vitest,
);

/*
 * The README's "Install on a clinic server" (decision 0071): ops/install.sh run in a temporary
 * prefix, twice (it must be safe to run again), as far as this machine allows. systemd is not
 * PID 1 here, so `systemctl` is a recorder and "starting the unit" is running its ExecStart line
 * as its User, in its WorkingDirectory, with its Environment and EnvironmentFile. The script adds
 * the service's user (a name of the test's own, removed at the end; systemd refuses `nobody`), so
 * this runs as root, as CI does. The clone is this one, built.
 */
const USER = "cb-install-test";
const uidOf = (name: string) => {
  const r = spawnSync("id", ["-u", name], { encoding: "utf8" });
  return r.status === 0 ? Number(r.stdout.trim()) : undefined;
};
let addedUser = false;

let prefix: string;
let vars: Record<string, string>;
let port: number;
const p = (rel: string) => path.join(prefix, rel);

function install() {
  return spawnSync("bash", ["ops/install.sh"], { env: { ...process.env, ...vars }, encoding: "utf8" });
}

beforeAll(async () => {
  // The clone is the installed tree: the service's user must be able to walk to it (as to /opt).
  for (let dir = path.resolve("."); dir !== "/"; dir = path.dirname(dir))
    if (!(statSync(dir).mode & 0o001)) throw new Error(`${dir} is closed to other users: clone elsewhere`);
  prefix = mkdtempSync(path.join(os.tmpdir(), "carebridge-install-"));
  chmodSync(prefix, 0o755); // the service's user walks through it, as through /var/lib
  addedUser = uidOf(USER) === undefined;
  port = await freePort();
  mkdirSync(p("mnt/usb"), { recursive: true }); // the backup disk, mounted
  writeFileSync(p("systemctl"), `#!/bin/sh\necho "$@" >> ${p("systemctl.log")}\n`, { mode: 0o755 });
  vars = {
    SITE: "carebridge.lan",
    TLS: "internal",
    ADMIN_EMAIL: "it@clinic.test",
    BACKUP_REPOSITORY: p("mnt/usb/carebridge"),
    BACKUP_AT: "02:30",
    APP_USER: USER,
    APP_PORT: String(port),
    SKIP_BUILD: "1",
    STATE_DIR: p("var/lib/carebridge"),
    CONF_DIR: p("etc/carebridge"),
    CACHE_DIR: p("var/cache/carebridge"),
    UNIT_DIR: p("etc/systemd/system"),
    CADDY_DIR: p("etc/caddy"),
    BIN_DIR: p("usr/local/sbin"),
    SYSTEMCTL: p("systemctl"),
  };
}, 120_000);
afterAll(() => {
  if (addedUser && uidOf(USER) !== undefined) spawnSync("userdel", [USER]);
  if (prefix) rmSync(prefix, { recursive: true, force: true });
});

describe("ops/install.sh in a temporary prefix", () => {
  it("installs: folders, settings, the first admin, the unit, the Caddyfile; a second run changes nothing", () => {
    const first = install();
    expect(first.status, first.stdout + first.stderr).toBe(0);
    const uid = uidOf(USER)!;
    expect(uid).toBeGreaterThan(0);
    for (const dir of ["var/lib/carebridge/data", "var/lib/carebridge/uploads", "mnt/usb/carebridge"]) {
      const s = statSync(p(dir));
      expect(s.uid, dir).toBe(uid);
      expect(s.mode & 0o777, dir).toBe(0o700);
    }
    const envFile = p("etc/carebridge/env");
    expect(statSync(envFile).mode & 0o777).toBe(0o640);
    const env = readFileSync(envFile, "utf8");
    for (const line of [
      "HOST=127.0.0.1",
      `PORT=${port}`,
      "TRUST_PROXY=127.0.0.1",
      "APP_URL=https://carebridge.lan",
      `BACKUP_REPOSITORY=${p("mnt/usb/carebridge")}`,
      "BACKUP_AT=02:30",
    ])
      expect(env.split("\n")).toContain(line);
    // The first admin: created by `carebridge admin:create` as the service's user, password kept for root.
    const admin = p("etc/carebridge/first-admin");
    expect(statSync(admin).mode & 0o777).toBe(0o600);
    expect(readFileSync(admin, "utf8").split("\n")[0]).toBe("it@clinic.test");
    expect(statSync(p("var/lib/carebridge/data/app.db")).uid).toBe(uid);

    const unit = p("etc/systemd/system/carebridge.service");
    expect(verifyUnit(unit)).toEqual({ ok: true, output: "" });
    expect(unitSecurity(unit, 20).ok).toBe(true);
    const caddyfile = readFileSync(p("etc/caddy/Caddyfile"), "utf8");
    expect(caddyfile).toMatch(/^carebridge\.lan \{$/m);
    expect(caddyfile).toMatch(/^\s*tls internal$/m);
    expect(caddyfile).toMatch(new RegExp(`^\\s*reverse_proxy 127\\.0\\.0\\.1:${port}$`, "m"));
    expect(caddyValidate(p("etc/caddy/Caddyfile"), p("caddy-check")).ok).toBe(true);
    expect(readFileSync(p("systemctl.log"), "utf8").trim().split("\n")).toEqual([
      "daemon-reload",
      "enable carebridge.service",
      "restart carebridge.service",
      "reload-or-restart caddy.service",
    ]);

    // Again, with a setting changed: the same tree, that setting updated, the admin not made twice.
    writeFileSync(envFile, env + "SMS_COUNTRIES=IN,NP\n");
    const password = readFileSync(admin, "utf8");
    const second = install();
    expect(second.status, second.stdout + second.stderr).toBe(0);
    expect(readFileSync(admin, "utf8")).toBe(password);
    expect(readFileSync(envFile, "utf8")).toBe(env + "SMS_COUNTRIES=IN,NP\n");
    // A public name: the same file without `tls internal` (Caddy gets a Let's Encrypt certificate).
    vars = { ...vars, SITE: "carebridge.example.org", TLS: "public" };
    expect(install().status).toBe(0);
    const pub = readFileSync(p("etc/caddy/Caddyfile"), "utf8");
    expect(pub).toMatch(/^carebridge\.example\.org \{$/m);
    expect(pub).not.toMatch(/^\s*tls internal$/m);
    expect(readFileSync(envFile, "utf8")).toContain("APP_URL=https://carebridge.example.org\n");
  }, 120_000);

  it("the unit's ExecStart, run as its user with its environment, serves the installed clinic", async () => {
    const s = serviceSettings(readFileSync(p("etc/systemd/system/carebridge.service"), "utf8"));
    const user = s.get("User")![0];
    const cwd = s.get("WorkingDirectory")![0];
    const envFile = s.get("EnvironmentFile")![0];
    const exec = s.get("ExecStart")![0];
    expect(unitEnvironment(s).DATA_DIR).toBe(p("var/lib/carebridge/data"));
    let out = "";
    // As systemd starts it: the user's uid and gid, only the unit's environment (and HOME), the
    // EnvironmentFile's lines, then ExecStart in place of the shell (the main process is the app).
    const [uid, gid] = ["-u", "-g"].map((f) =>
      Number(spawnSync("id", [f, user], { encoding: "utf8" }).stdout),
    );
    const home = spawnSync("getent", ["passwd", user], { encoding: "utf8" }).stdout.split(":")[5];
    const child: ChildProcess = spawn("/bin/sh", ["-c", `set -a; . "$0"; set +a; exec ${exec}`, envFile], {
      cwd,
      uid,
      gid,
      env: { NODE_ENV: "production", ...unitEnvironment(s), HOME: home, USER: user },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once("exit", (code: number | null) => r(code)));
    try {
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const ok = await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`not started:\n${out}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      // The settings from the env file: APP_URL https (HSTS), the first admin's password.
      const page = await fetch(`${url}/login`);
      expect(page.headers.get("strict-transport-security")).toContain("max-age=");
      const [email, password] = readFileSync(p("etc/carebridge/first-admin"), "utf8").split("\n");
      const login = await fetch(`${url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(login.status).toBe(200);
      expect(await login.json()).toMatchObject({ mfaSetupRequired: true });
      // The generated secrets are the service user's alone, in the data folder the backups carry.
      for (const name of ["session-secret", "encryption-key"]) {
        const st = statSync(p(`var/lib/carebridge/data/secrets/${name}`));
        expect(st.uid, name).toBe(uidOf(USER));
        expect(st.mode & 0o777, name).toBe(0o600);
      }
      expect(existsSync(p("var/lib/carebridge/data/app.db"))).toBe(true);
    } finally {
      child.kill("SIGTERM");
    }
    // systemd's stop: SIGTERM to the main process, which drains and exits 0 (Restart=on-failure: no restart).
    expect(await exited, out).toBe(0);
  }, 90_000);

  it("`carebridge backup`, as the service user, stores a verified snapshot on the backup disk", () => {
    const repo = p("mnt/usb/carebridge");
    const snapshots = () => {
      const r = spawnSync("restic", ["-r", repo, "--no-cache", "snapshots", "--json"], {
        env: { ...process.env, RESTIC_PASSWORD_FILE: p("var/lib/carebridge/data/secrets/backup-password") },
        encoding: "utf8",
      });
      return r.status === 0 ? (JSON.parse(r.stdout) as { id: string; time: string }[]) : [];
    };
    const started = Date.now();
    const run = spawnSync(p("usr/local/sbin/carebridge"), ["backup"], { encoding: "utf8" });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    // Today's newest snapshot is this run's (retention keeps one a day: an earlier one of today goes).
    const newest = snapshots().sort((a, b) => b.time.localeCompare(a.time))[0];
    expect(newest && Date.parse(newest.time)).toBeGreaterThanOrEqual(started - 1000);
    // The repository and the data folder are the service user's, never root's.
    expect(statSync(repo).uid).toBe(uidOf(USER));
  }, 90_000);
});
