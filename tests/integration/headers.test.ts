import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api";
import { Browserish, freePort, rootBackend, startServer, type TestServer } from "../helpers/server";

/** Behind https (APP_URL https://…): HSTS and Secure cookies; no stack traces or SQL leak anywhere. */
let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    APP_URL: "https://clinic.example",
    ADMIN_EMAIL: "admin@h.test",
    ADMIN_PASSWORD: "Admin-pass-123",
    RATE_LIMIT_DISABLED: "1",
  });
});
afterAll(async () => {
  await server?.stop();
});

describe("transport security headers", () => {
  it("sends HSTS, CSP with a fresh nonce per request and the other headers", async () => {
    const a = await fetch(server.url + "/");
    const b = await fetch(server.url + "/");
    expect(a.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    const csp = a.headers.get("content-security-policy")!;
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).toContain("frame-ancestors 'none'");
    const nonce = (h: Headers) => /nonce-([^']+)/.exec(h.get("content-security-policy")!)![1];
    expect(nonce(a.headers)).not.toBe(nonce(b.headers));
    const html = await a.text();
    expect(html).toContain(`nonce="${nonce(a.headers)}"`);
    expect(a.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(a.headers.get("permissions-policy")).toContain("camera=()");
    expect(a.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("marks the session cookie Secure behind https", async () => {
    const b = new Browserish(server.url);
    const res = await b.post("/login", { email: "admin@h.test", password: "Admin-pass-123" });
    expect(res.status).toBe(302);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("cb_session="))!;
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/HttpOnly/i);
  });

  it("never shows a stack trace or SQL in a response", async () => {
    const api = apiClient(server.url);
    const bodies = [
      await api.raw("POST", "/auth/login", "{", undefined, { "Content-Type": "application/json" }),
      await api.get("/report/get-pending-reports?page=-1"),
      await api.get("/report/x/file"),
    ].map((r) => JSON.stringify(r.body));
    const page = await (await fetch(`${server.url}/definitely/missing`)).text();
    for (const text of [...bodies, page]) {
      expect(text).not.toMatch(/\bat .+\.(js|ts):\d+|SQLITE|SELECT .* FROM|node_modules/);
    }
  });
});

/**
 * The README's own start command. `npm start` sets no NODE_ENV (remix-serve used to);
 * the headers must still carry the Content-Security-Policy, read from the validated config. The
 * app is started exactly so — `npm start`, NODE_ENV removed from the environment — with only a
 * port, a loopback address and its own data folders (and, on a pg-s3 run, its own database).
 */
describe("npm start, as the README says", () => {
  let child: ChildProcess | undefined;
  let root = "";
  afterAll(async () => {
    if (child?.pid && child.exitCode === null) {
      process.kill(-child.pid, "SIGTERM"); // npm, its shell and the server: the group we started
      await new Promise((r) => setTimeout(r, 1500));
    }
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("serves pages with a CSP whose nonce is the one on the page's scripts", async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "carebridge-npm-start-"));
    const port = await freePort();
    // A shell's environment (PATH, HOME) and the isolation a test needs; no NODE_ENV, nothing else.
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? os.homedir(),
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: path.join(root, "data"),
      UPLOADS_DIR: path.join(root, "uploads"),
      ...(await rootBackend(root)),
    } as unknown as NodeJS.ProcessEnv;
    let out = "";
    const proc = spawn("npm", ["start"], { cwd: path.resolve("."), env, detached: true, stdio: "pipe" });
    child = proc;
    proc.stdout?.on("data", (d) => (out += d));
    proc.stderr?.on("data", (d) => (out += d));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
      const up = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error(`npm start did not answer:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const page of ["/", "/login"]) {
      const res = await fetch(url + page);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy");
      expect(csp, `${page}: no CSP under npm start`).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
      expect(csp).toContain("frame-ancestors 'none'");
      const nonce = /'nonce-([^']+)'/.exec(csp!)![1];
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    }
  }, 90_000);
});
