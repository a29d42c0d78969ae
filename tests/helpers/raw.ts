import { readFileSync } from "node:fs";
import { request as httpRequest, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

export type RawResponse = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Every header line as received, names in lower case: a name sent twice is two entries. */
  rawHeaders: [string, string][];
  body: Buffer;
};

/**
 * One HTTP request with node:http, from a chosen source address (any 127.x.y.z reaches a
 * server on 127.0.0.1, so a test can be several clients), with the body sent as given — a
 * Buffer, or a Readable for bodies that are cut off, chunked or huge. With `ca`, HTTPS: the
 * connection goes to 127.0.0.1 and the certificate is checked for the URL's host against `ca`.
 */
export function raw(
  url: string,
  opts: {
    method?: string;
    headers?: OutgoingHttpHeaders;
    body?: Buffer | string | Readable;
    localAddress?: string;
    /** Give up (reject) when no response has come after this long. */
    timeoutMs?: number;
    /** HTTPS, checked against this certificate authority. */
    ca?: Buffer;
  } = {},
): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const common = {
      port: u.port,
      path: u.pathname + u.search,
      method: opts.method ?? "GET",
      localAddress: opts.localAddress,
      agent: false as const,
    };
    const onResponse = (res: import("node:http").IncomingMessage) => {
      answered = true;
      // An answer before the whole body went (a refusal, a 413): stop sending, as browsers do.
      if (opts.body instanceof Readable) {
        opts.body.unpipe(req);
        req.end();
      }
      const chunks: Buffer[] = [];
      const rawHeaders: [string, string][] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        rawHeaders.push([res.rawHeaders[i].toLowerCase(), res.rawHeaders[i + 1]]);
      const done = () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders,
          body: Buffer.concat(chunks),
        });
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", done);
      // The server may cut the connection once it has answered (the rest of a refused upload):
      // what arrived is the answer (a truncated one fails the caller's own checks).
      res.on("close", done);
      res.on("error", () => undefined);
    };
    const req = opts.ca
      ? httpsRequest(
          {
            ...common,
            host: "127.0.0.1",
            servername: u.hostname,
            headers: { host: u.host, ...opts.headers },
            ca: opts.ca,
          },
          onResponse,
        )
      : httpRequest({ ...common, host: u.hostname, headers: opts.headers }, onResponse);
    let answered = false;
    // A write that fails after the answer came (EPIPE: the server stopped reading) is not a failure
    // of the exchange; before it, it is.
    req.on("error", (e) => {
      if (!answered) reject(e);
    });
    if (opts.timeoutMs) req.setTimeout(opts.timeoutMs, () => req.destroy(new Error("timed out")));
    if (opts.body instanceof Readable) opts.body.pipe(req);
    else req.end(opts.body);
  });
}

/** A body of `size` bytes produced lazily (nothing this big is held in the test's memory). */
export function zeros(size: number, chunk = 64 * 1024): Readable {
  let sent = 0;
  const block = Buffer.alloc(chunk, 0x61);
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(chunk, size - sent);
      sent += n;
      this.push(n === chunk ? block : block.subarray(0, n));
    },
  });
}

/** Peak resident memory (VmHWM, bytes) of a process, from /proc. */
export function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}
