import { createHash, timingSafeEqual } from "node:crypto";
import cluster, { type Worker } from "node:cluster";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type * as PromClient from "prom-client";
import type { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Gauge as ProductGauge } from "~/domain/operations/index.server";
import { log } from "~/lib/log.server";
import type { Probe } from "~/lib/probe.server";

/**
 * Prometheus metrics (decision 0033). Every serving process (a cluster worker, or the single
 * process) keeps its own registry: request durations by route pattern, database and store call
 * durations, the pool, event-loop lag and process figures. The primary (or the single process)
 * answers a scrape: it asks each ready worker for its registry over the cluster's IPC channel,
 * adds its own (worker restarts, the product gauges it computes at most every ~10 s), and sums
 * them with prom-client's aggregation. Scrapes come on METRICS_PORT (the primary's own listener)
 * or on the main port with the bearer METRICS_TOKEN (the worker that got it asks the primary).
 */

/** What the metrics need from the app build (appHooks in app/entry.server.tsx). */
export type MetricsHooks = {
  instrument: (probe: Probe) => void;
  productGauges: () => Promise<ProductGauge[]>;
  poolStats: () => { total: number; idle: number; waiting: number; max: number } | null;
};

let promClient: typeof PromClient | undefined;
/**
 * prom-client, loaded when the metrics are first made: they are off unless METRICS_PORT or
 * METRICS_TOKEN is set, and most starts never load the package (decision 0123).
 */
function prom(): typeof PromClient {
  return (promClient ??= createRequire(import.meta.url)("prom-client") as typeof PromClient);
}

/** The content type of a scrape's answer. */
export const contentType = () => prom().register.contentType;
const GAUGE_TTL_MS = 10_000;
const COLLECT_TIMEOUT_MS = 3_000;

const MSG = {
  collect: "carebridge:metrics:collect",
  collected: "carebridge:metrics:collected",
  ready: "carebridge:metrics:ready",
  render: "carebridge:metrics:render",
  rendered: "carebridge:metrics:rendered",
} as const;
/** One process's registry as prom-client serialises it for aggregation. */
type metric = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>[number];
type Message = { type?: string; id?: number; metrics?: metric[]; text?: string; error?: string };

/** The handle a serving process uses: observe each request, and the probe for the database and store. */
export type ProcessMetrics = {
  observeRequest: (method: string, route: string, status: number, ms: number) => void;
  probe: Probe;
};

const STATUS_CLASS = ["1xx", "1xx", "2xx", "3xx", "4xx", "5xx"];

/**
 * The metrics of one serving process. The mail outbox is a table (decision 0061): the primary or
 * the single process reports it among the product gauges, like the SMS outbox.
 */
export function processMetrics(hooks: MetricsHooks, role: "single" | "worker"): ProcessMetrics {
  const P = prom();
  const registry = P.register;
  P.collectDefaultMetrics({ register: registry });
  const http = new P.Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival until its answer was written, by route pattern, method and status class.",
    labelNames: ["route", "method", "status_class"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const dbTime = new P.Histogram({
    name: "carebridge_db_query_duration_seconds",
    help: "Database statements, by dialect.",
    labelNames: ["system"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const dbErrors = new P.Counter({
    name: "carebridge_db_query_errors_total",
    help: "Database statements that failed (constraint refusals included), by dialect.",
    labelNames: ["system"],
    registers: [registry],
  });
  const storeTime = new P.Histogram({
    name: "carebridge_store_operation_duration_seconds",
    help: "Object store calls (local folder or S3), by store and operation.",
    labelNames: ["store", "operation"],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const storeErrors = new P.Counter({
    name: "carebridge_store_errors_total",
    help: "Object store calls that failed, by store and operation.",
    labelNames: ["store", "operation"],
    registers: [registry],
  });
  if (hooks.poolStats()) {
    new P.Gauge({
      name: "carebridge_db_pool_connections",
      help: "PostgreSQL pool connections of the process: open (total), idle, and the configured max.",
      labelNames: ["state"],
      registers: [registry],
      collect() {
        const s = hooks.poolStats();
        if (!s) return;
        this.set({ state: "total" }, s.total);
        this.set({ state: "idle" }, s.idle);
        this.set({ state: "max" }, s.max);
      },
    });
    new P.Gauge({
      name: "carebridge_db_pool_waiting",
      help: "Queries waiting for a free PostgreSQL pool connection.",
      registers: [registry],
      collect() {
        this.set(hooks.poolStats()?.waiting ?? 0);
      },
    });
  }
  if (role === "worker") {
    // The primary asks for this registry only once it is set up (a starting worker is skipped).
    process.on("message", (msg: Message) => {
      if (msg?.type !== MSG.collect) return;
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: MSG.collected, id: msg.id, metrics }),
        (err: Error) => process.send?.({ type: MSG.collected, id: msg.id, error: err.message }),
      );
    });
    process.send?.({ type: MSG.ready });
  }

  // Children of the label sets are kept, so an observation allocates nothing but its timer.
  const dbChild = new Map<string, { t: Histogram.Internal<string>; e: Counter.Internal }>();
  const storeChild = new Map<string, { t: Histogram.Internal<string>; e: Counter.Internal }>();
  const childOf = (kind: "db" | "store", system: string, operation: string) => {
    if (kind === "db") {
      let c = dbChild.get(system);
      if (!c) dbChild.set(system, (c = { t: dbTime.labels(system), e: dbErrors.labels(system) }));
      return c;
    }
    const key = `${system} ${operation}`;
    let c = storeChild.get(key);
    if (!c)
      storeChild.set(
        key,
        (c = { t: storeTime.labels(system, operation), e: storeErrors.labels(system, operation) }),
      );
    return c;
  };

  return {
    observeRequest(method, route, status, ms) {
      http.labels(route, method, STATUS_CLASS[Math.floor(status / 100)] ?? "5xx").observe(ms / 1000);
    },
    probe: {
      start(kind, system, operation) {
        const child = childOf(kind, system, operation);
        const started = performance.now();
        return (error) => {
          child.t.observe((performance.now() - started) / 1000);
          if (error) child.e.inc();
        };
      },
    },
  };
}

/**
 * The process that answers scrapes (the primary, or the single process): its own registry (worker
 * restarts, product gauges) plus every worker's.
 */
export type ScrapeSource = {
  render: () => Promise<string>;
  workerRestarted: () => void;
};

export function scrapeSource(hooks: MetricsHooks, role: "single" | "primary"): ScrapeSource {
  const P = prom();
  const own = new P.Registry();
  const restarts = new P.Counter({
    name: "carebridge_worker_restarts_total",
    help: "Worker processes that exited and were replaced by the primary.",
    registers: [own],
  });
  const product = new Map<string, Gauge>();
  let cached: { at: number; gauges: Promise<ProductGauge[]> } | undefined;
  const gaugeErrors = new P.Counter({
    name: "carebridge_product_figures_errors_total",
    help: "Times the product gauges could not be computed (the last values are kept).",
    registers: [own],
  });

  async function refreshProductGauges() {
    const now = Date.now();
    if (!cached || now - cached.at > GAUGE_TTL_MS) {
      const previous = cached;
      cached = { at: now, gauges: hooks.productGauges() };
      cached.gauges.catch((err: Error) => {
        gaugeErrors.inc();
        log("error", "product gauges failed", { error: String(err?.message ?? err) });
        cached = previous ? { ...previous } : undefined;
      });
    }
    let gauges: ProductGauge[];
    try {
      gauges = await cached!.gauges;
    } catch {
      return;
    }
    for (const g of product.values()) g.reset();
    for (const g of gauges) {
      let gauge = product.get(g.name);
      if (!gauge) {
        gauge = new P.Gauge({
          name: g.name,
          help: g.help,
          labelNames: Object.keys(g.labels ?? {}),
          registers: [own],
        });
        product.set(g.name, gauge);
      }
      if (g.labels) gauge.set(g.labels, g.value);
      else gauge.set(g.value);
    }
  }

  const ready = new Set<number>();
  const pending = new Map<number, { responses: metric[][]; waiting: number; done: () => void }>();
  let nextId = 0;
  if (role === "primary") {
    cluster.on("message", (worker: Worker, msg: Message) => {
      if (msg?.type === MSG.ready) ready.add(worker.id);
      else if (msg?.type === MSG.collected && msg.id !== undefined) {
        const p = pending.get(msg.id);
        if (!p) return;
        if (msg.metrics) p.responses.push(msg.metrics);
        if (--p.waiting === 0) p.done();
      } else if (msg?.type === MSG.render) {
        render().then(
          (text) => worker.isConnected() && worker.send({ type: MSG.rendered, id: msg.id, text }),
          (err: Error) =>
            worker.isConnected() && worker.send({ type: MSG.rendered, id: msg.id, error: err.message }),
        );
      }
    });
    cluster.on("exit", (worker: Worker) => ready.delete(worker.id));
  }

  /** Every ready worker's registry; a worker that does not answer in time is left out of this scrape. */
  function collectWorkers(): Promise<metric[][]> {
    const workers = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => !!w && ready.has(w.id) && w.isConnected(),
    );
    if (!workers.length) return Promise.resolve([]);
    const id = nextId++;
    return new Promise((resolve) => {
      const entry = { responses: [] as metric[][], waiting: workers.length, done: () => {} };
      const timer = setTimeout(() => entry.done(), COLLECT_TIMEOUT_MS);
      entry.done = () => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(entry.responses);
      };
      pending.set(id, entry);
      for (const w of workers) w.send({ type: MSG.collect, id });
    });
  }

  async function render(): Promise<string> {
    const [workers] = await Promise.all([
      role === "primary" ? collectWorkers() : P.register.getMetricsAsJSON().then((m) => [m]),
      refreshProductGauges(),
    ]);
    const mine = await own.getMetricsAsJSON();
    return P.AggregatorRegistry.aggregate([...workers, mine].map(lintClean)).metrics();
  }

  return { render, workerRestarted: () => restarts.inc() };
}

/**
 * prom-client's default metrics include three gauges named like counters
 * (nodejs_active_{handles,requests,resources}_total); `promtool check metrics` refuses them, and
 * the same figures are there by type without the suffix, so they are left out.
 */
function lintClean(registry: metric[]): metric[] {
  return registry.filter((m) => !(String(m.type) === "gauge" && m.name.endsWith("_total")));
}

/** In a cluster worker: the aggregated text, asked of the primary (for /metrics on the main port). */
export function renderViaPrimary(): () => Promise<string> {
  let nextId = 0;
  const waiting = new Map<number, { resolve: (t: string) => void; reject: (e: Error) => void }>();
  process.on("message", (msg: Message) => {
    if (msg?.type !== MSG.rendered || msg.id === undefined) return;
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error !== undefined) w.reject(new Error(msg.error));
    else w.resolve(msg.text ?? "");
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error("the primary did not answer"));
      }, COLLECT_TIMEOUT_MS * 2);
      waiting.set(id, {
        resolve: (t) => {
          clearTimeout(timer);
          resolve(t);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      process.send?.({ type: MSG.render, id });
    });
}

/** A bearer token compared in constant time (both sides hashed, so their lengths never leak). */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? "");
  if (!m) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(m[1]!.trim()), digest(token));
}

/** METRICS_PORT: a listener of its own that serves only GET /metrics (no token; bind it privately). */
export function listenForScrapes(source: ScrapeSource, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
      return;
    }
    source.render().then(
      (text) => {
        res.writeHead(200, { "content-type": contentType(), "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (err: Error) => {
        log("error", "metrics failed", { error: String(err?.message ?? err) });
        res.writeHead(503, { "content-type": "text/plain" }).end("metrics unavailable");
      },
    );
  });
  server.keepAliveTimeout = 65_000; // Prometheus keeps its connection between scrapes
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.unref();
      log("info", "metrics listening", { url: `http://${host}:${port}/metrics` });
      resolve(server);
    });
  });
}
