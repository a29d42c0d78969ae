import { spawn } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";

/** One answer: when it was due (ms from the start), its latency, and how late this client sent it. */
type Answered = { at: number; ms: number; sentLate: number };

/**
 * A fixed arrival rate (an open loop): request i is due at start + i / rate seconds, whether or
 * not the earlier ones were answered, over at most `connections` keep-alive connections; its
 * latency counts from when it was due, so requests a stalled server delays are counted as late
 * (no coordinated omission).
 *
 * autocannon's overallRate does something else (autocannon 8, lib/httpClient.js): each connection
 * sends back to back until it has made its share of the second's requests, then waits for the next
 * one-second tick — every second starts with a burst of all connections at full speed — and each
 * latency is recorded with an "expected interval" of Math.ceil(1 / rate) = 1 ms (lib/run.js), so a
 * 40 ms answer adds 39 made-up samples of 1–39 ms. Its p99/p50 measures the burst, not a steady load.
 *
 * The connections are used in turn (the agent's "fifo"), as many users' browsers would be. With
 * Node's default ("lifo") the few requests in flight at a time went out on the same few sockets:
 * at 850 req/s one of two workers got 77 % of them (14.9 s of CPU against 4.4 s in 20 s) and ran
 * near its limit while the other idled — the tail of one saturated worker, not of the server.
 */
export async function fixedArrivals(
  t: { url: string | string[]; headers?: Record<string, string> },
  rate: number,
  seconds: number,
  connections: number,
  warmupSeconds = 1,
) {
  const urls = (Array.isArray(t.url) ? t.url : [t.url]).map((u) => new URL(u));
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, scheduling: "fifo" });
  const run = (total: number) =>
    new Promise<{
      latencies: number[];
      late: Answered[];
      non2xx: number;
      errors: number;
    }>((resolve) => {
      const latencies: number[] = [];
      const late: Answered[] = [];
      let non2xx = 0;
      let errors = 0;
      let sent = 0;
      let done = 0;
      const finish = () => {
        if (++done === total) resolve({ latencies, late, non2xx, errors });
      };
      const start = performance.now();
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
        while (sent < due) {
          const dueAt = start + (sent / rate) * 1000;
          const u = urls[sent % urls.length];
          const sentLate = performance.now() - dueAt;
          sent++;
          const req = http.request(
            { host: u.hostname, port: u.port, path: u.pathname + u.search, headers: t.headers, agent },
            (res) => {
              res.resume();
              res.on("end", () => {
                const ms = performance.now() - dueAt;
                latencies.push(ms);
                late.push({ at: dueAt - start, ms, sentLate });
                if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx++;
                finish();
              });
            },
          );
          req.on("error", () => {
            errors++;
            finish();
          });
          req.end();
        }
        if (sent < total) setTimeout(tick, 1);
      };
      tick();
    });
  await run(Math.max(1, Math.round(rate * warmupSeconds))); // connections opened, code warm
  const r = await run(Math.max(1, Math.round(rate * seconds)));
  agent.destroy();
  const l = r.latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    Math.round((l[Math.min(l.length - 1, Math.floor(p * l.length))] ?? NaN) * 100) / 100;
  return {
    rps: Math.round(l.length / seconds),
    p50: q(0.5),
    p99: q(0.99),
    avg: Math.round((l.reduce((a, b) => a + b, 0) / Math.max(1, l.length)) * 100) / 100,
    non2xx: r.non2xx,
    errors: r.errors,
    requests: l.length,
    /**
     * Every request's due time (ms from the start), latency, and how late this client itself sent
     * it (its own stalls: a late answer that was also sent late is the client's, not the server's).
     */
    timeline: r.late,
  };
}

type FixedArrivalsArgs = Parameters<typeof fixedArrivals>;

/**
 * The same, measured from a process of its own that does nothing else. In the bench's process
 * the clock stopped with the bench's garbage collections (a full collection every ~0.6 s of a
 * small heap, scavenges of 3–7 ms), and every answer due meanwhile counted as late. This process
 * starts with a young generation (16 MB) and a heap (256 MB) large enough that it collects a few
 * times a second in about a millisecond and never in full during a run.
 */
export function fixedArrivalsApart(...args: FixedArrivalsArgs): ReturnType<typeof fixedArrivals> {
  const child = spawn(
    process.execPath,
    [
      "--min-semi-space-size=16",
      "--max-semi-space-size=32",
      "--initial-heap-size=256",
      "--import",
      "tsx",
      fileURLToPath(import.meta.url),
      JSON.stringify(args),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`fixed-arrival client exited with ${code}`));
    });
  });
}

// Run as the child of fixedArrivalsApart: the arguments as JSON in, the figures as JSON out.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = JSON.parse(process.argv[2] ?? "[]") as FixedArrivalsArgs;
  const figures = await fixedArrivals(...args);
  process.stdout.write(JSON.stringify(figures));
}
