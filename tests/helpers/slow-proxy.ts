import net from "node:net";

/**
 * A TCP proxy in front of the app that behaves like a poor mobile link, for browser tests:
 * what the browser sends is let through at `bytesPerSecond` (really: the proxy reads no faster),
 * and `cut()` drops every connection and refuses new ones until `restore()`. Chromium's own
 * network emulation paces an upload, but going "offline" there lets the request it is holding
 * back finish at once (the whole body reaches the server), so it cannot leave an upload half-way
 * on the server; this can.
 */
export type SlowProxy = {
  port: number;
  url: string;
  /** Bytes passed from the browser to the app so far. */
  bytesUp(): number;
  /** Upload speed in bytes per second; null = as fast as it goes. */
  setRate(bytesPerSecond: number | null): void;
  /** The link drops: open connections are reset and new ones refused. */
  cut(): void;
  /** The link is back. */
  restore(): void;
  stop(): Promise<void>;
};

export async function startSlowProxy(targetPort: number, listenPort = 0): Promise<SlowProxy> {
  let rate: number | null = null;
  let down = false;
  let up = 0;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(targetPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
    upstream.pipe(client);
    // Browser → app: at most `rate` bytes a second, in small slices, reading no more meanwhile.
    client.on("data", (chunk: Buffer) => {
      if (rate === null) {
        up += chunk.length;
        upstream.write(chunk);
        return;
      }
      client.pause();
      let offset = 0;
      const step = () => {
        if (client.destroyed || upstream.destroyed) return;
        if (offset >= chunk.length) {
          client.resume();
          return;
        }
        const slice = chunk.subarray(offset, offset + 1024);
        offset += slice.length;
        up += slice.length;
        upstream.write(slice);
        setTimeout(step, rate === null ? 0 : (slice.length / rate) * 1000);
      };
      step();
    });
  });
  await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    bytesUp: () => up,
    setRate: (r) => {
      rate = r;
    },
    cut: () => {
      down = true;
      for (const s of sockets) s.resetAndDestroy();
      sockets.clear();
    },
    restore: () => {
      down = false;
    },
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
