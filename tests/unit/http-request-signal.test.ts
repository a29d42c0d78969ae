import type { ServerBuild } from "@remix-run/node";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler } from "../../server/http";

/**
 * The request Remix is handed carries a signal that is aborted when the client goes away, and not
 * while the answer is being made (server/http.ts `IncomingRequest`, decision 0050); once the answer
 * is sent it is aborted too, which releases the timer Remix arms for every document and data
 * answer (decision 0051). A real HTTP server, a real client that hangs up, a resource route that
 * waits on `request.signal`, and a document route answered through Remix's single fetch.
 */
type Seen = { aborted: boolean; isSignal: boolean; method: string; body: string; signal?: AbortSignal };
const seen = new Map<string, (s: Seen) => void>();

const build = {
  mode: "production",
  entry: { module: { default: async () => new Response("document") } },
  routes: {
    root: { id: "root", path: "", module: { default: () => null } },
    "routes/page": {
      id: "routes/page",
      parentId: "root",
      path: "page",
      module: { default: () => null, loader: async () => ({ rows: [1, 2, 3] }) },
    },
    "routes/wait": {
      id: "routes/wait",
      parentId: "root",
      path: "wait/:id",
      module: {
        loader: async ({ request, params }: { request: Request; params: { id: string } }) =>
          answer(request, params.id, ""),
        action: async ({ request, params }: { request: Request; params: { id: string } }) =>
          answer(request, params.id, await request.text()),
      },
    },
  },
  assets: { entry: { imports: [], module: "" }, routes: {}, url: "", version: "1" },
  publicPath: "/build/",
  assetsBuildDirectory: "public/build",
  future: { v3_singleFetch: true },
  isSpaMode: false,
} as unknown as ServerBuild;

/** `/wait/slow-*` waits up to 3 s for the abort; anything else answers at once. */
async function answer(request: Request, id: string, body: string) {
  const signal = request.signal;
  if (id.startsWith("slow")) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 3_000);
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
  seen.get(id)?.({
    aborted: signal.aborted,
    isSignal: signal instanceof AbortSignal,
    method: request.method,
    body,
    signal,
  });
  return new Response(JSON.stringify({ id, body }), { headers: { "content-type": "application/json" } });
}

let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = http.createServer(
    createHandler({
      build,
      hooks: { refusal: async () => new Response("refused", { status: 400 }), routeOf: (p) => p },
      trust: () => false,
      staticFiles: new Map(),
      bodyLimit: 64 * 1024,
      uploadLimit: 1024 * 1024,
      log: () => {},
      isDraining: () => false,
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

const next = (id: string) => new Promise<Seen>((resolve) => seen.set(id, resolve));

describe("the request's signal", () => {
  it("is not aborted for a request that is answered (GET and a POST with a body)", async () => {
    const get = next("quick-get");
    const r = await fetch(`http://127.0.0.1:${port}/wait/quick-get`);
    expect(r.status).toBe(200);
    const g = await get;
    expect({ ...g, signal: undefined }).toEqual({ aborted: false, isSignal: true, method: "GET", body: "" });
    // Sent: now it is over, and the signal says so.
    await expect.poll(() => g.signal!.aborted).toBe(true);
    // An abort like any other to whoever listens: its reason is an AbortError.
    expect((g.signal!.reason as Error).name).toBe("AbortError");

    const post = next("quick-post");
    const p = await fetch(`http://127.0.0.1:${port}/wait/quick-post`, {
      method: "POST",
      headers: {
        "content-type": "text/plain",
        origin: `http://127.0.0.1:${port}`,
        "sec-fetch-site": "same-origin",
      },
      body: "hello",
    });
    expect(p.status).toBe(200);
    expect(await p.json()).toEqual({ id: "quick-post", body: "hello" });
    expect({ ...(await post), signal: undefined }).toEqual({
      aborted: false,
      isSignal: true,
      method: "POST",
      body: "hello",
    });
  });

  it("is aborted when the client hangs up before the answer", async () => {
    const slow = next("slow-1");
    const started = Date.now();
    const req = http.get({ host: "127.0.0.1", port, path: "/wait/slow-1" });
    req.on("error", () => {});
    setTimeout(() => req.destroy(), 150);
    const s = await slow;
    expect(s.aborted).toBe(true);
    // Seen at the hang-up, not at the route's own 3 s limit.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("two requests at once: only the one whose client left is aborted", async () => {
    const left = next("slow-left");
    const stayed = next("slow-stayed");
    const gone = http.get({ host: "127.0.0.1", port, path: "/wait/slow-left" });
    gone.on("error", () => {});
    const kept = fetch(`http://127.0.0.1:${port}/wait/slow-stayed`);
    setTimeout(() => gone.destroy(), 150);
    expect((await left).aborted).toBe(true);
    expect((await stayed).aborted).toBe(false);
    expect((await kept).status).toBe(200);
  });

  it("a sent page leaves no timer behind (Remix's 4.95 s turbo-stream timer is released)", async () => {
    const before = timers();
    for (let i = 0; i < 20; i++) {
      const doc = await fetch(`http://127.0.0.1:${port}/page`, { headers: { accept: "text/html" } });
      expect(doc.status).toBe(200);
      await doc.text();
      const data = await fetch(`http://127.0.0.1:${port}/page.data`);
      expect(data.status).toBe(200);
      await data.text();
    }
    // Without the abort on close, 40 timers would stay armed for 4.95 s.
    await expect.poll(() => timers() <= before + 2).toBe(true);
  });
});
