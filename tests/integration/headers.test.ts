import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api";
import { Browserish, startServer, type TestServer } from "../helpers/server";

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
      await api.call("POST", "/auth/login", "{", undefined, { "Content-Type": "application/json" }),
      await api.get("/report/get-pending-reports?page=-1"),
      await api.get("/report/x/file"),
    ].map((r) => JSON.stringify(r.body));
    const page = await (await fetch(`${server.url}/definitely/missing`)).text();
    for (const text of [...bodies, page]) {
      expect(text).not.toMatch(/\bat .+\.(js|ts):\d+|SQLITE|SELECT .* FROM|node_modules/);
    }
  });
});
