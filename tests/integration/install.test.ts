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
import { SHEET_PASSWORD_FILE } from "~/domain/operations/restore-steps";
import {
  readmeLostMachineLines,
  serviceSettings,
  unitEnvironment,
  unitSecurity,
  verifyUnit,
} from "../helpers/ops";
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

/**
 * The installed unit started as systemd would: its ExecStart as its User (uid and gid), only the
 * unit's environment (and HOME), the EnvironmentFile's lines, in its WorkingDirectory, the shell
 * replaced by ExecStart (the main process is the app); resolves once /healthz answers.
 */
async function startInstalled() {
  const s = serviceSettings(readFileSync(p("etc/systemd/system/carebridge.service"), "utf8"));
  const user = s.get("User")![0];
  const [uid, gid] = ["-u", "-g"].map((f) => Number(spawnSync("id", [f, user], { encoding: "utf8" }).stdout));
  const home = spawnSync("getent", ["passwd", user], { encoding: "utf8" }).stdout.split(":")[5];
  let out = "";
  const child: ChildProcess = spawn(
    "/bin/sh",
    ["-c", `set -a; . "$0"; set +a; exec ${s.get("ExecStart")![0]}`, s.get("EnvironmentFile")![0]],
    {
      cwd: s.get("WorkingDirectory")![0],
      uid,
      gid,
      env: { NODE_ENV: "production", ...unitEnvironment(s), HOME: home, USER: user },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once("exit", (code: number | null) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`not started:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, child, exited, output: () => out };
}

async function signInFirstAdmin(url: string) {
  const [email, password] = readFileSync(p("etc/carebridge/first-admin"), "utf8").split("\n");
  return fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
}

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
    expect(unitEnvironment(s).DATA_DIR).toBe(p("var/lib/carebridge/data"));
    // The recovery sheet's restore command is the installed one (decision 0091).
    expect(unitEnvironment(s).CAREBRIDGE_COMMAND).toBe(p("usr/local/sbin/carebridge"));
    const { url, child, exited, output } = await startInstalled();
    try {
      // The settings from the env file: APP_URL https (HSTS), the first admin's password.
      const page = await fetch(`${url}/login`);
      expect(page.headers.get("strict-transport-security")).toContain("max-age=");
      const login = await signInFirstAdmin(url);
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
    expect(await exited, output()).toBe(0);
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

  it("the README's lost-machine lines bring the clinic back on an installed layout (root's password file, the service's folders)", async () => {
    const data = p("var/lib/carebridge/data");
    // The sheet's password, then the machine is lost: a new one has the install (steps 1–3,
    // without ADMIN_EMAIL) and nothing of the old data folder.
    const password = readFileSync(path.join(data, "secrets", "backup-password"), "utf8").trim();
    const key = readFileSync(path.join(data, "secrets", "encryption-key"), "utf8");
    for (const dir of ["var/lib/carebridge/data", "var/lib/carebridge/uploads"])
      rmSync(p(dir), { recursive: true, force: true });
    const { ADMIN_EMAIL: _, ...newMachine } = vars;
    const again = spawnSync("bash", ["ops/install.sh"], {
      env: { ...process.env, ...newMachine },
      encoding: "utf8",
    });
    expect(again.status, again.stdout + again.stderr).toBe(0);
    expect(existsSync(path.join(data, "app.db"))).toBe(false);
    writeFileSync(p("systemctl.log"), "");

    // Root's own folder, closed to the service's user: the password file there is root's alone.
    mkdirSync(p("root"), { mode: 0o700 });
    const said: string[] = [];
    for (const line of readmeLostMachineLines()) {
      const command = line
        .replace(/^sudo /, "")
        .replaceAll(" && sudo ", " && ")
        .replaceAll(SHEET_PASSWORD_FILE, p("root/carebridge-backup-password"))
        .replaceAll("/mnt/carebridge-backup/restic", p("mnt/usb/carebridge"));
      const r = spawnSync("bash", ["-c", command], {
        // `carebridge` and the stand-in `systemctl`, as root finds them; the password typed at the `cat`.
        env: { ...process.env, PATH: `${p("usr/local/sbin")}:${prefix}:${process.env.PATH}` },
        input: `${password}\n`,
        encoding: "utf8",
      });
      expect(r.status, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
      said.push(r.stdout);
    }
    const restore = said.join("\n");
    expect(restore).toMatch(
      /Snapshot [0-9a-f]{8}, taken \d{2} \w{3} \d{4}, .+ \(Asia\/Kolkata\), \d+ hours ago/,
    );
    expect(restore).toMatch(/Restored database and \d+ files/);
    expect(readFileSync(p("systemctl.log"), "utf8").trim().split("\n")).toEqual([
      "stop carebridge",
      "start carebridge",
    ]);
    expect(existsSync(p("root/carebridge-backup-password"))).toBe(false);
    // Into the service's folders, as its user; the lost machine's keys and backup password back.
    expect(statSync(path.join(data, "app.db")).uid).toBe(uidOf(USER));
    for (const name of ["backup-password", "encryption-key", "session-secret"]) {
      const st = statSync(path.join(data, "secrets", name));
      expect([st.uid, st.mode & 0o777], name).toEqual([uidOf(USER), 0o600]);
    }
    expect(readFileSync(path.join(data, "secrets", "encryption-key"), "utf8")).toBe(key);
    expect(readFileSync(path.join(data, "secrets", "backup-password"), "utf8").trim()).toBe(password);

    // The service started as systemd would: the first admin made before the loss signs in.
    const app = await startInstalled();
    try {
      expect((await signInFirstAdmin(app.url)).status).toBe(200);
    } finally {
      app.child.kill("SIGTERM");
    }
    expect(await app.exited, app.output()).toBe(0);
  }, 180_000);
});
