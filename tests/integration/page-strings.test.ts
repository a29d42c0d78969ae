import { afterAll, beforeAll, describe, expect, it } from "vitest";
import en from "~/i18n/locales/en";
import bn from "~/i18n/locales/bn";
import hi from "~/i18n/locales/hi";
import ta from "~/i18n/locales/ta";
import { startServer, type TestServer } from "../helpers/server";

/**
 * The browser gets the strings of the screen it shows, not a whole catalogue: the page carries them
 * as a JSON block at the end of <body> (the document still ends with </html>), and /i18n.json
 * answers a client navigation's request for the next routes' strings.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

async function pageStrings(path: string, lng?: string) {
  const res = await fetch(server.url + path, { headers: lng ? { "Accept-Language": lng } : {} });
  const html = await res.text();
  const block =
    /<script type="application\/json" id="cb-strings"[^>]*>([^<]*)<\/script><\/body><\/html>$/.exec(html);
  expect(block, "the strings block closes the body, and the document ends with </html>").toBeTruthy();
  return { html, page: JSON.parse(block![1]) as { r: string[]; s: Record<string, Record<string, unknown>> } };
}

describe("strings per screen", () => {
  it("a server's first requests in Hindi, Bengali and Tamil, all at once, each get their language (catalogues load on first use)", async () => {
    // The server has answered nothing in these languages yet (decision 0121): two pages in Hindi, one
    // in Bengali and a navigation's strings in Tamil, side by side, while each catalogue loads.
    const [first, second, bengali, tamil] = await Promise.all([
      pageStrings("/login", "hi"),
      pageStrings("/login", "hi"),
      pageStrings("/login", "bn"),
      fetch(`${server.url}/i18n.json?lng=ta&routes=routes/login&v=x`).then((r) => r.json()),
    ]);
    expect(first.page.s.accounts.loginTitle).toBe(hi.accounts.loginTitle);
    expect(second.page.s.accounts.loginTitle).toBe(hi.accounts.loginTitle);
    expect(first.html).toContain(hi.accounts.loginTitle);
    expect(bengali.page.s.accounts.loginTitle).toBe(bn.accounts.loginTitle);
    expect(bengali.html).toContain(bn.accounts.loginTitle);
    expect(tamil.accounts.loginTitle).toBe(ta.accounts.loginTitle);
  });

  it("the home page carries its own and the layout's strings, no other screen's, and loads no catalogue", async () => {
    const { html, page } = await pageStrings("/");
    expect(page.r).toEqual(["root", "routes/_index"]);
    expect(page.s.home.heroTitle).toBe(en.home.heroTitle);
    expect(page.s.nav.login).toBe(en.nav.login);
    expect(page.s.reports).toBeUndefined();
    expect(page.s.mfa).toBeUndefined();
    expect(JSON.stringify(page.s).length).toBeLessThan(JSON.stringify(en).length / 5);
    // No language's whole catalogue is linked or preloaded.
    expect(html).not.toMatch(/\/assets\/(en|hi|bn|ta)-[\w-]+\.js/);
  });

  it("a page in Hindi carries Hindi strings", async () => {
    const { page } = await pageStrings("/login", "hi");
    expect(page.r).toEqual(["root", "routes/login"]);
    expect(page.s.accounts.loginTitle).toBe(hi.accounts.loginTitle);
    expect(page.s.accounts.showPassword).toBe(hi.accounts.showPassword);
  });

  it("/i18n.json gives a navigation the next routes' strings, or a section, and refuses bad input with 400", async () => {
    const res = await fetch(`${server.url}/i18n.json?lng=hi&routes=routes/login&v=x`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toMatch(/public/);
    const body = await res.json();
    expect(body.accounts.loginTitle).toBe(hi.accounts.loginTitle);
    expect(body.nav.home).toBe(hi.nav.home);
    const section = await (await fetch(`${server.url}/i18n.json?lng=en&keys=share`)).json();
    expect(section).toEqual({ share: en.share });
    for (const bad of [
      "lng=xx&routes=routes/login",
      "routes=routes/login",
      `lng=en&keys=${"a,".repeat(60)}a`,
      "lng=en&keys=%3Cscript%3E",
    ])
      expect((await fetch(`${server.url}/i18n.json?${bad}`)).status, bad).toBe(400);
  });
});
