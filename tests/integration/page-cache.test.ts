import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browserish, startServer, type TestServer } from "../helpers/server";

/**
 * Public pages (the signed-out home, login and signup) are kept whole by the server and served
 * again to everyone who asks the same way. Seen from outside, nothing may tell a kept page from a
 * freshly drawn one except that it is fast: every answer has its own CSP nonce, each visitor gets
 * their own language, and nothing of a signed-in visitor or of a toast is ever served to another.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    ADMIN_EMAIL: "admin@cache.test",
    ADMIN_PASSWORD: "Admin-pass-123",
    RATE_LIMIT_DISABLED: "1",
  });
});
afterAll(async () => {
  await server?.stop();
});

const nonceOf = (res: Response) =>
  /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
const nonces = (html: string) => [...html.matchAll(/nonce="([^"]*)"/g)].map((m) => m[1]);
const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });

describe("a kept public page", () => {
  it("carries a fresh nonce in every answer, the same in the CSP header and in every script", async () => {
    const seen = new Set<string>();
    const pages: string[] = [];
    for (const encoding of ["identity", "gzip", "gzip", "br", "identity"]) {
      // fetch decodes gzip and br itself: a broken compressed page fails here.
      const res = await get("/", { "Accept-Encoding": encoding });
      expect(res.status).toBe(200);
      if (encoding !== "identity") expect(res.headers.get("content-encoding")).toBe(encoding);
      const nonce = nonceOf(res)!;
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(res.headers.get("content-security-policy")).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      const html = await res.text();
      expect(nonces(html).length).toBeGreaterThan(0);
      expect(new Set(nonces(html))).toEqual(new Set([nonce]));
      expect(seen.has(nonce)).toBe(false);
      seen.add(nonce);
      pages.push(html.split(nonce).join("NONCE"));
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(res.headers.get("vary")).toMatch(/Cookie/);
      expect(res.headers.get("vary")).toMatch(/Accept-Language/);
      expect(res.headers.get("vary")).toMatch(/Accept-Encoding/);
    }
    // Apart from the nonce, every answer is the same page.
    expect(new Set(pages).size).toBe(1);
    expect(pages[0]).toContain('href="/signup"');
  });

  it("never mixes languages (Accept-Language, the language cookie)", async () => {
    for (let round = 0; round < 2; round++) {
      for (const [lang, headers] of [
        ["hi", { "Accept-Language": "hi-IN,hi;q=0.9" }],
        ["en", { "Accept-Language": "en-GB" }],
        ["ta", { "Accept-Language": "ta" }],
        ["en", {}],
      ] as const) {
        const html = await (await get("/", headers)).text();
        expect(html).toContain(`<html lang="${lang}"`);
      }
      for (const lang of ["bn", "hi", "en"]) {
        const visitor = new Browserish(server.url).inLanguage(lang);
        // The cookie wins over Accept-Language, kept page or not.
        const res = await visitor.fetch("/login", { headers: { "Accept-Language": "ta" } });
        expect(await res.text()).toContain(`<html lang="${lang}"`);
      }
    }
  });

  it("is never served to a signed-in visitor, and a signed-in page is never served to others", async () => {
    await get("/"); // the public page is kept
    const admin = new Browserish(server.url);
    expect(
      (await admin.post("/login", { email: "admin@cache.test", password: "Admin-pass-123" })).status,
    ).toBe(302);
    for (let i = 0; i < 2; i++) {
      const res = await admin.fetch("/");
      const html = await res.text();
      expect(html).toContain('href="/dashboard/my-profile"');
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(new Set(nonces(html))).toEqual(new Set([nonceOf(res)]));
    }
    for (const path of ["/", "/login", "/signup"]) {
      const html = await (await get(path)).text();
      expect(html).not.toContain('href="/dashboard/my-profile"');
      expect(html).not.toContain("admin@cache.test");
    }
    // Signed in, /login sends the visitor on to the dashboard, kept login page or not.
    expect((await admin.fetch("/login")).status).toBe(302);
  });

  it("is never served with or instead of a toast", async () => {
    // The page's string table (for the browser) holds the toast's wording whether or not one is shown.
    const shown = async (res: Response) =>
      (await res.text()).replace(/<script type="application\/json" id="cb-strings"[^>]*>[^<]*<\/script>/, "");
    await get("/");
    const visitor = new Browserish(server.url);
    const posted = await visitor.post("/?index", {
      name: "Asha Rao",
      countryCode: "+91",
      phoneNumber: "9876543210",
      message: "Please call me",
    });
    expect(posted.status).toBe(302);
    expect(visitor.cookies.has("toast")).toBe(true);
    const withToast = await shown(await visitor.fetch("/"));
    expect(withToast).toContain("Thank you for reaching out!");
    for (let i = 0; i < 2; i++) {
      expect(await shown(await get("/"))).not.toContain("Thank you for reaching out!");
    }
    // The toast was shown once; its emptied cookie is then removed, and the visitor is public again.
    const after = await visitor.fetch("/");
    expect(await shown(after)).not.toContain("Thank you for reaching out!");
    if (visitor.cookies.has("toast")) {
      const next = await visitor.fetch("/");
      expect(next.headers.getSetCookie().find((c) => c.startsWith("toast="))).toMatch(/Max-Age=0/);
      expect(await shown(next)).not.toContain("Thank you for reaching out!");
    }
    expect(visitor.cookies.has("toast")).toBe(false);
    const again = await visitor.fetch("/");
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(new Set(nonces(await again.text()))).toEqual(new Set([nonceOf(again)]));
  });

  it("is kept only for the page itself: a query string is drawn for its request", async () => {
    await get("/login");
    const html = await (await get("/login?redirectTo=%2Fdashboard%2Fsettings")).text();
    expect(html).toContain('value="/dashboard/settings"');
    expect(await (await get("/login")).text()).not.toContain('value="/dashboard/settings"');
  });
});
