import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server";

/** Cheap phones on slow links: the JavaScript a first visit loads stays under 150 KB gzip. */
const BUDGET = 150 * 1024;
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

async function firstVisitJs(path: string) {
  const html = await (await fetch(server.url + path)).text();
  const urls = new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]));
  // The inline module imports the entry and route chunks too.
  for (const m of html.matchAll(/import\s*(?:[^"']*from\s*)?["'](\/assets\/[^"']+\.js)["']/g)) urls.add(m[1]);
  let total = 0;
  for (const u of urls) {
    const body = Buffer.from(await (await fetch(server.url + u)).arrayBuffer());
    total += gzipSync(body, { level: 9 }).length;
  }
  return { total, files: urls.size };
}

describe("first-visit JavaScript budget", () => {
  for (const path of ["/", "/login"]) {
    it(`${path} loads at most 150 KB of gzip JavaScript`, async () => {
      const { total, files } = await firstVisitJs(path);
      console.log(`${path}: ${files} files, ${(total / 1024).toFixed(1)} KB gzip`);
      expect(files).toBeGreaterThan(2);
      expect(total).toBeLessThanOrEqual(BUDGET);
    });
  }
});
