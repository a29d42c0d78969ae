import type { ServerBuild } from "@remix-run/node";
import cluster, { type Worker } from "node:cluster";
import { createServer, type Server } from "node:http";
import * as nodeModule from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { config } from "~/config.server";
import { log } from "~/lib/log.server";
import { parseTrustProxy } from "./client";
import { createHandler, type AppHooks, type RequestDone } from "./http";
import {
  contentType,
  listenForScrapes,
  processMetrics,
  renderViaPrimary,
  scrapeSource,
  type MetricsHooks,
  type ProcessMetrics,
} from "./metrics";
import { routePatterns } from "./routes";
import { loadStaticFiles } from "./static";

/**
 * CareBridge's production server (`npm start`): node:http in front of the Remix build, with
 * WEB_CONCURRENCY worker processes on one port (node:cluster). The primary owns start-up work
 * (migrations, sweep, hourly pruning), replaces crashed workers, and on SIGTERM drains every
 * worker and then closes the database once. See docs/decisions/0007-own-server.md.
 */
// Node's on-disk compile cache (in the system's temporary folder, keyed by each file's content): the
// Remix build, imported below, is compiled once per release, not at every start of every process.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const BUILD_DIR = path.dirname(fileURLToPath(import.meta.url));
const DRAIN_MS = 10_000;

type Hooks = AppHooks & MetricsHooks & { startup: () => Promise<void>; shutdown: () => Promise<void> };

/**
 * A cluster worker loads the build while its primary starts up (migrations, the admin account),
 * then asks the primary whether it is ready and starts its own part (opening the database, the
 * runner's kinds) on the answer, before it listens (decision 0123). The worker asks, so an answer
 * is never sent before the worker listens for it.
 */
const READY_ASK = { carebridge: "ready?" } as const;
const READY = { carebridge: "ready" } as const;
const isMessage = (m: unknown, of: { carebridge: string }) =>
  typeof m === "object" && m !== null && (m as { carebridge?: unknown }).carebridge === of.carebridge;

function primaryReady(): Promise<void> {
  if (!cluster.isWorker) return Promise.resolve(); // CAREBRIDGE_ROLE=worker given by hand: no primary to ask
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (!isMessage(m, READY)) return;
      process.off("message", onMessage);
      resolve();
    };
    process.on("message", onMessage);
    process.send!(READY_ASK);
  });
}

async function loadBuild(): Promise<{ build: ServerBuild; hooks: Hooks }> {
  const build = (await import(pathToFileURL(path.join(BUILD_DIR, "server/index.js")).href)) as ServerBuild;
  const appHooks = (build.entry.module as unknown as { appHooks: Omit<Hooks, "routeOf"> }).appHooks;
  return { build, hooks: { ...appHooks, routeOf: routePatterns(build) } };
}

/**
 * The per-request log line, which is also where the request duration histogram is observed and the
 * app's `requestDone` hook is told (counted even when logging is silent).
 */
function requestLogger(metrics: ProcessMetrics | undefined, hooks: Pick<AppHooks, "requestDone">) {
  const silent = config().logLevel === "silent";
  const done = hooks.requestDone;
  return (fields: Record<string, unknown>) => {
    if (fields.level === "error") {
      const { level: _l, msg, ...rest } = fields;
      log("error", String(msg), rest);
      return;
    }
    metrics?.observeRequest(
      fields.method as string,
      fields.route as string,
      fields.status as number,
      fields.ms as number,
    );
    if (done) {
      try {
        done(fields as RequestDone);
      } catch (err) {
        log("error", "requestDone hook failed", { error: String(err) });
      }
    }
    if (silent) return;
    process.stdout.write(
      JSON.stringify({
        t: new Date().toISOString(),
        level: "info",
        msg: "request",
        pid: process.pid,
        ...fields,
      }) + "\n",
    );
  };
}

/** One serving process: listens (or shares the cluster's port), drains on SIGTERM. */
async function serve(role: "single" | "worker") {
  const c = config();
  const { build, hooks } = await loadBuild();
  if (role === "worker") {
    await primaryReady();
    await hooks.startup();
  }
  let draining = false;
  const metrics = c.metrics.enabled ? processMetrics(hooks, role) : undefined;
  // Off unless asked for: without the variable the tracing module (and the SDK) is never loaded.
  const tracing = c.otelEndpoint ? await (await import("./tracing")).startTracing() : undefined;
  const probe =
    metrics && tracing
      ? {
          start: ((...args) => {
            const a = metrics.probe.start(...args);
            const b = tracing.probe.start(...args);
            return (error?: unknown) => {
              a(error);
              b(error);
            };
          }) as typeof metrics.probe.start,
        }
      : (metrics?.probe ?? tracing?.probe);
  if (probe) hooks.instrument(probe);
  if (tracing) log("info", "tracing on", { endpoint: new URL(c.otelEndpoint!).origin });
  const scrape = role === "single" && c.metrics.enabled ? scrapeSource(hooks, "single") : undefined;
  if (scrape && c.metrics.port) await listenForScrapes(scrape, c.metrics.port, c.metrics.host);
  const handler = createHandler({
    build,
    hooks,
    trust: parseTrustProxy(c.trustProxy),
    staticFiles: loadStaticFiles(path.join(BUILD_DIR, "client")),
    bodyLimit: c.bodyLimitBytes,
    // Medical images (MAX_STUDY_MB) may be larger than other report files.
    uploadLimit: Math.max(c.maxUploadBytes, c.maxStudyBytes) + 1024 * 1024,
    log: requestLogger(metrics, hooks),
    isDraining: () => draining,
    metrics: c.metrics.token
      ? {
          token: c.metrics.token,
          render: scrape ? scrape.render : renderViaPrimary(),
          contentType: contentType(),
        }
      : undefined,
    trace: tracing?.trace,
  });
  let inFlight = 0;
  let idle: (() => void) | null = null;
  const server: Server = createServer((req, res) => {
    inFlight++;
    res.once("close", () => {
      inFlight--;
      if (inFlight === 0 && idle) idle();
    });
    handler(req, res).catch((err) => {
      log("error", "request failed", { error: String((err as Error)?.stack ?? err) });
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("Internal Server Error");
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 20_000;
  server.requestTimeout = 15 * 60_000; // slow uploads on rural connections
  server.maxHeadersCount = 100;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(c.port, c.host, () => resolve());
  });
  if (role === "single")
    log("info", "listening", { url: `http://${c.host ?? "localhost"}:${c.port}`, workers: 1 });

  const stop = async () => {
    if (draining) return;
    draining = true;
    server.close();
    server.closeIdleConnections();
    if (inFlight > 0) {
      await Promise.race([
        new Promise<void>((r) => (idle = r)),
        new Promise((r) => setTimeout(r, DRAIN_MS).unref()),
      ]);
    }
    server.closeAllConnections();
    await hooks.shutdown();
    await tracing?.shutdown().catch(() => {}); // the last spans go out before the process ends
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/**
 * V8 flags each worker starts with, unless the operator gave the same flag (decision 0051). A
 * young generation of 32 MB (V8's default for Node 20 is 16) lets fewer of the requests in flight
 * outlive two scavenges into the old generation; one helper thread for concurrent marking (the
 * default is one per platform thread, four) keeps a worker's full collection from taking both
 * cores from the other worker. Measured after a saturating load, the pending page at a fixed
 * arrival rate: p99/p50 ×3.0–8.1 (median 7) before, ×2.3–3.6 (median 2.9) after, and 4 % more
 * pages a second at saturation.
 */
const WORKER_V8_FLAGS = ["--max-semi-space-size=32", "--concurrent-marking-max-worker-num=1"];

function workerExecArgv(execArgv: string[], nodeOptions = ""): string[] {
  const name = (flag: string) => flag.split("=")[0].replace(/_/g, "-");
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(name));
  return [...execArgv, ...WORKER_V8_FLAGS.filter((flag) => !given.has(name(flag)))];
}

/** The cluster primary: start-up work once, then N workers; replaces crashed ones. */
async function primary(workers: number) {
  const c = config();
  // The workers load the build side by side with the primary's start-up (migrations, sweep, admin,
  // pruning), which loading the build runs; each starts its own part once this is done (decision 0123).
  const loaded = loadBuild();
  cluster.on("message", (w: Worker, m: unknown) => {
    if (isMessage(m, READY_ASK))
      loaded.then(
        () => w.isConnected() && w.send(READY),
        () => {}, // the primary's own await fails the start
      );
  });
  // Made once the build is loaded; a worker that dies before then is not counted.
  let scrape: ReturnType<typeof scrapeSource> | undefined = undefined;
  let stopping = false;
  const started = new Map<number, number>();
  let quickDeaths = 0;
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, process.env.NODE_OPTIONS) });
  const fork = () => {
    const w = cluster.fork({ CAREBRIDGE_ROLE: "worker" });
    started.set(w.id, Date.now());
  };
  cluster.on("exit", (w: Worker, code, signal) => {
    const lived = Date.now() - (started.get(w.id) ?? 0);
    started.delete(w.id);
    if (stopping) return;
    log("error", "worker exited; starting another", { code, signal, livedMs: lived });
    scrape?.workerRestarted();
    quickDeaths = lived < 5_000 ? quickDeaths + 1 : 0;
    if (quickDeaths > 10) {
      log("error", "workers keep dying at start; giving up");
      process.exit(1);
    }
    setTimeout(fork, Math.min(5_000, quickDeaths * 200)).unref();
  });
  let listening = 0;
  cluster.on("listening", () => {
    if (++listening === workers)
      log("info", "listening", { url: `http://${c.host ?? "localhost"}:${c.port}`, workers });
  });
  for (let i = 0; i < workers; i++) fork();
  const { hooks } = await loaded;
  // The primary answers scrapes for the node: the workers' registries summed, plus its own.
  scrape = c.metrics.enabled ? scrapeSource(hooks, "primary") : undefined;
  if (scrape && c.metrics.port) await listenForScrapes(scrape, c.metrics.port, c.metrics.host);

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    await Promise.all(
      alive.map(
        (w) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              w.process.kill("SIGKILL");
              resolve();
            }, DRAIN_MS + 5_000);
            w.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            w.process.kill("SIGTERM");
          }),
      ),
    );
    await hooks.shutdown(); // the last connection closes: one WAL checkpoint
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

// Libraries loaded with the build (React above all) pick their production code from NODE_ENV,
// which `npm start` does not set: give them the validated config's value (default production)
// before the build is imported. Workers inherit it.
process.env.NODE_ENV = config().nodeEnv;

const role = process.env.CAREBRIDGE_ROLE;
if (cluster.isPrimary && role !== "worker") {
  const workers = config().webConcurrency;
  if (workers <= 1) {
    process.env.CAREBRIDGE_ROLE = "single";
    await serve("single");
  } else {
    process.env.CAREBRIDGE_ROLE = "primary";
    await primary(workers);
  }
} else {
  await serve("worker");
}
