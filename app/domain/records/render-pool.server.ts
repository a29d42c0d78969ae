import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { config } from "~/config.server";
import { besideTheBuild } from "~/lib/beside-build.server";
import { log } from "~/lib/log.server";
import { DomainError } from "../platform/errors";
import type { RenderFailure, RenderReply, RenderRequest } from "./render.worker";

/**
 * Where previews are decoded (decision 0056): never on the event loop, never twice in a poisoned
 * decoder. dcmjs-imaging's WebAssembly codecs run in worker threads — a few per process
 * (renderThreads) — each with V8 heap limits and a time limit per render. A render that fails in
 * the decoder gets the worker a fresh decoder (a new WebAssembly instance and memory) before its
 * next render; a worker that crashes, runs out of heap or over time is terminated and replaced, and
 * every worker is replaced after RECYCLE_AFTER renders (failed ones included), so nothing a crafted
 * frame leaves behind — a trap leaks the decoder's memory — reaches later renders.
 *
 * Renders wait in a queue that is fair between accounts: each account has at most
 * PER_ACCOUNT_RUNNING renders decoding and PER_ACCOUNT_WAITING more waiting; beyond that, or when
 * the whole queue is full, the request is refused at once (429 with Retry-After). When a thread
 * frees up, the next account in turn goes first, so one account's large frames never hold back
 * another account's small one by more than the renders already running.
 */

/**
 * Render threads of this process: half the cores shared among the node's serving processes, one
 * at least (so a node renders on at most max(processes, cores / 2) threads; by default the
 * processes are as many as the cores).
 */
let threads: number | undefined;
function renderThreads(): number {
  threads ??= Math.max(1, Math.floor(availableParallelism() / (2 * Math.max(1, config().webConcurrency))));
  return threads;
}
const PER_ACCOUNT_RUNNING = 2;
const PER_ACCOUNT_WAITING = 2;
const TOTAL_WAITING = 64;
const RENDER_TIMEOUT_MS = 30_000;
const RECYCLE_AFTER = 50;
/** An idle render thread ends after this long (its decoder's memory goes with it). */
const IDLE_MS = 60_000;
const RETRY_AFTER_SECONDS = 5;
/** V8 heap limits of a render worker; pixel buffers and the codecs' memory are outside them and bounded by the frame size cap. */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 192, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

export type RenderJob = {
  /** The instance's bytes, read only when the render's turn comes (a queue holds no files). */
  bytes: Buffer | (() => Promise<Buffer>);
  frame: number;
  window: { width: number; level: number } | null;
  maxPixels: number;
};
type Failure = RenderFailure;
type Reply = RenderReply;

const FAILURES: Record<Failure, () => DomainError> = {
  unreadable: () => new DomainError("invalid", "imaging.unreadable"),
  tooLarge: () => new DomainError("too_large", "imaging.frameTooLarge"),
  notFound: () => new DomainError("not_found", "imaging.notFound"),
  cannotRender: () => new DomainError("unsupported_type", "imaging.cannotRender"),
};

/** One render thread: one job at a time; replaced after a crash, a time-out or RECYCLE_AFTER renders. */
class RenderThread {
  private worker: Worker;
  private renders = 0;
  private nextId = 0;
  private current: { id: number; settle: (r: Reply | Error) => void } | null = null;
  dead = false;
  idleTimer: NodeJS.Timeout | undefined;

  constructor() {
    // A real module (decision 0117): the build's bundle, or the TypeScript source under tests.
    this.worker = new Worker(besideTheBuild(import.meta.url, "render-worker.mjs", "render.worker.ts"), {
      resourceLimits: RESOURCE_LIMITS,
    });
    this.worker.unref();
    this.worker.on("message", (reply: Reply) => {
      if (this.current?.id === reply.id) this.current.settle(reply);
    });
    this.worker.on("error", (err) => this.end(err));
    this.worker.on("exit", (code) => this.end(new Error(`render worker exited (${code})`)));
  }

  private end(err: Error) {
    if (this.dead) return;
    this.dead = true;
    this.current?.settle(err);
    void this.worker.terminate();
  }

  get worn() {
    return this.dead || this.renders >= RECYCLE_AFTER;
  }

  retire() {
    this.end(new Error("retired"));
  }

  async run(job: RenderJob): Promise<Buffer> {
    const bytes = typeof job.bytes === "function" ? await job.bytes() : job.bytes;
    const id = this.nextId++;
    this.renders++;
    return new Promise<Buffer>((resolve, reject) => {
      if (this.dead) return reject(FAILURES.cannotRender());
      const timer = setTimeout(() => {
        log("error", "render timed out; worker replaced", { ms: RENDER_TIMEOUT_MS });
        this.end(new Error("render timed out"));
      }, RENDER_TIMEOUT_MS);
      timer.unref();
      this.current = {
        id,
        settle: (r) => {
          clearTimeout(timer);
          this.current = null;
          if (r instanceof Error) {
            log("info", "frame could not be rendered", { error: r.message });
            reject(FAILURES.cannotRender());
          } else if (r.ok) resolve(Buffer.from(r.png.buffer, r.png.byteOffset, r.png.byteLength));
          else {
            // A decoder that failed is replaced inside the worker before its next render.
            if (r.reason === "cannotRender")
              log("info", "frame could not be rendered", { error: r.message ?? r.reason });
            reject(FAILURES[r.reason]());
          }
        },
      };
      const copy = new Uint8Array(bytes); // its own buffer, handed over to the worker
      const request: RenderRequest = {
        id,
        bytes: copy.buffer,
        frame: job.frame,
        window: job.window,
        maxPixels: job.maxPixels,
      };
      this.worker.postMessage(request, [copy.buffer]);
    });
  }
}

type Waiting = {
  job: RenderJob;
  resolve: (png: Buffer) => void;
  reject: (err: unknown) => void;
  started: () => void;
};
type Account = { running: number; waiting: Waiting[] };

const accounts = new Map<string, Account>();
/** Accounts with renders waiting, in turn order. */
const turn: string[] = [];
const idle: RenderThread[] = [];
let busyThreads = 0;
let waitingTotal = 0;

function busy(): DomainError {
  return new DomainError("rate_limited", "imaging.busy", { retryAfterSeconds: RETRY_AFTER_SECONDS });
}

/**
 * Renders a job in a render thread on behalf of `account`, in the account's turn; refused at once
 * (429) when the account or the process has too many renders in hand. A render still waiting when
 * `signal` aborts (the client left) leaves the queue.
 */
export function renderInWorker(account: string, job: RenderJob, signal?: AbortSignal): Promise<Buffer> {
  let acc = accounts.get(account);
  if (!acc) accounts.set(account, (acc = { running: 0, waiting: [] }));
  if (signal?.aborted || acc.waiting.length >= PER_ACCOUNT_WAITING || waitingTotal >= TOTAL_WAITING) {
    if (!acc.running && !acc.waiting.length) accounts.delete(account);
    return Promise.reject(busy());
  }
  const a = acc;
  return new Promise<Buffer>((resolve, reject) => {
    const onAbort = () => {
      const at = a.waiting.indexOf(entry);
      if (at < 0) return;
      a.waiting.splice(at, 1);
      waitingTotal--;
      const inTurn = turn.indexOf(account);
      if (!a.waiting.length && inTurn >= 0) turn.splice(inTurn, 1);
      if (!a.running && !a.waiting.length) accounts.delete(account);
      reject(busy());
    };
    const entry: Waiting = {
      job,
      resolve,
      reject,
      started: () => signal?.removeEventListener("abort", onAbort),
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    a.waiting.push(entry);
    waitingTotal++;
    if (a.waiting.length === 1) turn.push(account);
    dispatch();
  });
}

/** An idle thread, ended when it stays idle for IDLE_MS. */
function park(t: RenderThread) {
  idle.push(t);
  t.idleTimer = setTimeout(() => {
    const at = idle.indexOf(t);
    if (at >= 0) idle.splice(at, 1);
    t.retire();
  }, IDLE_MS).unref();
}

function dispatch() {
  while (busyThreads < renderThreads()) {
    const i = turn.findIndex((a) => (accounts.get(a)?.running ?? 0) < PER_ACCOUNT_RUNNING);
    if (i < 0) return;
    const [account] = turn.splice(i, 1);
    const acc = accounts.get(account)!;
    const next = acc.waiting.shift()!;
    next.started();
    waitingTotal--;
    if (acc.waiting.length) turn.push(account); // the others' turn comes first
    acc.running++;
    busyThreads++;
    let thread = idle.pop();
    while (thread?.worn) {
      thread.retire();
      thread = idle.pop();
    }
    clearTimeout(thread?.idleTimer);
    thread ??= new RenderThread();
    const t = thread;
    t.run(next.job)
      .then(next.resolve, next.reject)
      .finally(() => {
        acc.running--;
        if (!acc.running && !acc.waiting.length) accounts.delete(account);
        busyThreads--;
        if (t.worn) {
          t.retire();
          // Its replacement starts now, so the next render does not wait for a decoder to load.
          if (busyThreads + idle.length < renderThreads()) park(new RenderThread());
        } else park(t);
        dispatch();
      });
  }
}
