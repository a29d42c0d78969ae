import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { OutgoingHttpHeaders } from "node:http";
import path from "node:path";
import type { Readable } from "node:stream";
import { raw } from "./raw";

/**
 * Caddy (Debian package caddy) for the HTTPS tests (decision 0071): offline, its own internal CA,
 * its storage and autosave in the test's folder, stopped by PID.
 */

/** Global options a test puts before a site taken from ops/caddy/Caddyfile. */
export const TEST_GLOBALS = `{
	admin off
	auto_https disable_redirects
	skip_install_trust
	default_bind 127.0.0.1
}
`;

function caddyEnv(dir: string) {
  return { ...process.env, XDG_DATA_HOME: path.join(dir, "data"), XDG_CONFIG_HOME: path.join(dir, "config") };
}

/** `caddy validate` on a Caddyfile: its output and whether it said the configuration is valid. */
export function caddyValidate(file: string, dir: string) {
  const r = spawnSync("caddy", ["validate", "--config", file, "--adapter", "caddyfile"], {
    env: caddyEnv(dir),
    encoding: "utf8",
  });
  const output = `${r.stdout}${r.stderr}`;
  return { ok: r.status === 0 && /Valid configuration/.test(output), output };
}

export type Caddy = { ca: Buffer; output: () => string; stop: () => Promise<void> };

/**
 * Validates and runs a Caddyfile; resolves when `probeUrl` answers over HTTPS with Caddy's root
 * certificate (which its internal CA makes at start).
 */
export async function startCaddy(dir: string, caddyfile: string, probeUrl: string): Promise<Caddy> {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "Caddyfile");
  writeFileSync(file, caddyfile);
  const valid = caddyValidate(file, dir);
  if (!valid.ok) throw new Error(`caddy validate:\n${valid.output}`);
  let out = "";
  const child: ChildProcess = spawn("caddy", ["run", "--config", file, "--adapter", "caddyfile"], {
    env: caddyEnv(dir),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const root = path.join(dir, "data/caddy/pki/authorities/local/root.crt");
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`caddy exited:\n${out}`);
    if (existsSync(root)) {
      const ca = readFileSync(root);
      const ok = await tlsRequest(probeUrl, { ca }).then(
        (r) => r.status > 0,
        () => false,
      );
      if (ok)
        return {
          ca,
          output: () => out,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) {
              child.kill("SIGTERM");
              await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
              if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
            }
          },
        };
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`caddy did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export type TlsResponse = {
  status: number;
  /** Every header line as received: a name twice is two entries. */
  rawHeaders: [string, string][];
  header: (name: string) => string[];
  body: Buffer;
};

/**
 * One HTTPS request (HTTP/1.1) to `https://localhost:<port>`, connecting to 127.0.0.1 from
 * `localAddress` (any 127.x.y.z: a test can be several clients), checking the certificate against
 * `ca` — `raw()` with a CA. The body may be a Readable (streamed).
 */
export async function tlsRequest(
  url: string,
  opts: {
    ca: Buffer;
    method?: string;
    headers?: OutgoingHttpHeaders;
    body?: Buffer | string | Readable;
    localAddress?: string;
  },
): Promise<TlsResponse> {
  const r = await raw(url, opts);
  return {
    status: r.status,
    rawHeaders: r.rawHeaders,
    header: (name) => r.rawHeaders.filter(([n]) => n === name.toLowerCase()).map(([, v]) => v),
    body: r.body,
  };
}
