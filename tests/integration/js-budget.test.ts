import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageModules } from "../helpers/html";
import { startServer, type TestServer } from "../helpers/server";

/** Cheap phones on slow links: the JavaScript a first visit loads stays under 120 KB gzip. */
const BUDGET = 120 * 1024;
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

async function firstVisitUrls(path: string): Promise<Set<string>> {
  const html = await (await fetch(server.url + path)).text();
  return new Set(pageModules(html));
}

const asset = async (url: string) => Buffer.from(await (await fetch(server.url + url)).arrayBuffer());

async function firstVisitJs(path: string) {
  const urls = await firstVisitUrls(path);
  let total = 0;
  for (const u of urls) total += gzipSync(await asset(u), { level: 9 }).length;
  return { total, files: urls.size };
}

/**
 * The chunks the upload page fetches itself (its dynamic imports: tus-js-client and the photo code),
 * found from the route's module in the Remix manifest, which every page references.
 */
async function uploadPageExtraChunks(): Promise<string[]> {
  const html = await (await fetch(server.url + "/login")).text();
  const manifestUrl = /\/assets\/manifest-[^"']+\.js/.exec(html)?.[0];
  expect(manifestUrl).toBeTruthy();
  const manifest = (await asset(manifestUrl!)).toString();
  const route = /"routes\/dashboard\.upload-report":\{[^}]*"module":"([^"]+)"/.exec(manifest)?.[1];
  expect(route).toBeTruthy();
  const source = (await asset(route!)).toString();
  return [...source.matchAll(/import\(["']\.\/([^"']+\.js)["']\)/g)].map((m) => `/assets/${m[1]}`);
}

describe("first-visit JavaScript budget", () => {
  for (const path of ["/", "/login", "/signup"]) {
    it(`${path} loads at most 120 KB of gzip JavaScript`, async () => {
      const { total, files } = await firstVisitJs(path);
      console.log(`${path}: ${files} files, ${(total / 1024).toFixed(1)} KB gzip`);
      expect(files).toBeGreaterThan(2);
      expect(total).toBeLessThanOrEqual(BUDGET);
    });
  }

  it("the service worker's registration is a chunk of the dashboard's own that public pages never load (decision 0066)", async () => {
    const html = await (await fetch(server.url + "/login")).text();
    const manifestUrl = /\/assets\/manifest-[^"']+\.js/.exec(html)![0];
    const manifest = (await asset(manifestUrl)).toString();
    const dashboard = /"routes\/dashboard":\{[^}]*"module":"([^"]+)"/.exec(manifest)![1];
    const chunk = /import\(["']\.\/(register\.client-[^"']+\.js)["']\)/.exec(
      (await asset(dashboard)).toString(),
    )?.[1];
    expect(chunk, "the dashboard imports the registration when it is needed").toBeTruthy();
    expect((await asset(`/assets/${chunk}`)).toString()).toContain("/sw.js");
    for (const path of ["/", "/login"]) {
      const page = await (await fetch(server.url + path)).text();
      expect(page).not.toContain("register.client");
      expect(page).not.toContain("/sw.js");
      for (const url of await firstVisitUrls(path)) {
        expect(url, `${url} on ${path}`).not.toContain("register.client");
        expect((await asset(url)).toString().includes("/sw.js"), `${url} on ${path}`).toBe(false);
      }
    }
  });

  it("the upload page's own code (tus-js-client, photo shrinking) is a chunk of its own that / and /login never load", async () => {
    const extra = await uploadPageExtraChunks();
    expect(extra.length).toBeGreaterThanOrEqual(1);
    let size = 0;
    let tusClient = false;
    for (const url of extra) {
      const body = await asset(url);
      size += gzipSync(body, { level: 9 }).length;
      tusClient ||= body.toString().includes("tus: failed to upload chunk");
    }
    expect(tusClient, "tus-js-client is in the upload page's chunk").toBe(true);
    console.log(`upload page extra: ${extra.length} file(s), ${(size / 1024).toFixed(1)} KB gzip`);
    for (const path of ["/", "/login", "/signup"]) {
      const urls = await firstVisitUrls(path);
      for (const url of extra) expect(urls.has(url), `${url} on ${path}`).toBe(false);
      for (const url of urls) {
        expect(
          (await asset(url)).toString().includes("tus: failed to upload chunk"),
          `${url} on ${path}`,
        ).toBe(false);
      }
    }
  });
});
