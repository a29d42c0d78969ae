import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import * as vitest from "vitest";
import { expect } from "vitest";
import { onlyWith, requireTool } from "../helpers/requires";
import { apiClient, signupViaApi } from "../helpers/api";
import {
  caddyValidate,
  startCaddy,
  tlsRequest,
  TEST_GLOBALS,
  type Caddy,
  type TlsResponse,
} from "../helpers/caddy";
import { freePort, spawnApp, type AppProcess } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

const { afterAll, beforeAll, describe, it } = onlyWith(requireTool("caddy", "caddy"), vitest);

/*
 * The app behind the shipped ops/caddy/Caddyfile (decision 0071), with Caddy's internal CA: the
 * test's Caddyfile is the shipped one with the site's name and the upstream's port put in, after
 * global options that keep Caddy offline and on 127.0.0.1. What a clinic relies on: HTTPS answers
 * with Secure cookies and HSTS, every security header once, the client's own address for rate
 * limits (TRUST_PROXY), a 9 MB upload streamed through intact, and the app's own 413s.
 */
const SHIPPED = readFileSync(path.resolve("ops/caddy/Caddyfile"), "utf8");
/** The site's address line and the upstream, as ops/install.sh replaces them. */
const ADDRESS = /^carebridge\.example\.org \{$/m;
const UPSTREAM = /^(\s*reverse_proxy) 127\.0\.0\.1:3000\b/m;
const ADMIN = { email: "admin@https.test", password: "Admin-pass-123" };

/** The shipped site with another address and upstream port. */
function site(text: string, address: string, appPort: number) {
  expect(text).toMatch(ADDRESS);
  expect(text).toMatch(UPSTREAM);
  return text.replace(ADDRESS, `${address} {`).replace(UPSTREAM, `$1 127.0.0.1:${appPort}`);
}

let root: string;
let app: AppProcess;
let caddy: Caddy;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let origin: string;
let backstop: string;
let token: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), "carebridge-https-"));
  smtp = await startSmtp();
  const [appPort, caddyPort, backstopPort] = [await freePort(), await freePort(), await freePort()];
  origin = `https://localhost:${caddyPort}`;
  backstop = `https://localhost:${backstopPort}`;
  app = await spawnApp(
    root,
    {
      SMTP_URL: smtp.url,
      TRUST_PROXY: "127.0.0.1",
      APP_URL: origin,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      RATE_LIMITS: JSON.stringify({ login: { address: { points: 3 } } }),
    },
    { port: appPort },
  );
  // The patient signs up straight at the app (setup, not under test).
  token = (await signupViaApi(apiClient(app.url), smtp, codeFrom, { email: "patient@https.test" })).token;
  // A second site, the shipped one with a 1 MB request_body limit: what Caddy's own limit answers.
  const small = SHIPPED.replace(/max_size \S+/, "max_size 1MB");
  caddy = await startCaddy(
    path.join(root, "caddy"),
    TEST_GLOBALS + site(SHIPPED, origin, appPort) + site(small, backstop, appPort),
    `${origin}/healthz`,
  );
});
afterAll(async () => {
  await caddy?.stop();
  if (app && app.child.exitCode === null) {
    app.child.kill("SIGTERM");
    await Promise.race([app.exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  await smtp?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const https = (pathname: string, opts: Omit<Parameters<typeof tlsRequest>[1], "ca"> = {}, base = origin) =>
  tlsRequest(base + pathname, { ...opts, ca: caddy.ca });

function multipart(fields: Record<string, string>, file: { name: string; type: string; data: Buffer }) {
  const boundary = `----carebridge${randomBytes(8).toString("hex")}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="report"; filename="${file.name}"\r\n` +
        `Content-Type: ${file.type}\r\n\r\n`,
    ),
    file.data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  const body = Buffer.concat(parts);
  return {
    body,
    headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": body.length },
  };
}

/** A PDF-looking file of `size` bytes (the type is sniffed from its first bytes). */
function pdf(size: number) {
  const b = randomBytes(size);
  Buffer.from("%PDF-1.7\n").copy(b);
  return b;
}

/** The body in 256 kB chunks, to be sent as a stream. */
function* chunks(b: Buffer) {
  for (let i = 0; i < b.length; i += 256 * 1024) yield b.subarray(i, i + 256 * 1024);
}
const streamed = (b: Buffer) => Readable.from(chunks(b));

/**
 * A request whose answer comes before its body is all sent (a 413 on the declared length, Caddy
 * past its own limit), tried again when the connection was reset before the answer could be read:
 * the early close after such an answer races the client's writes (TCP, not the app's answer), so a
 * reset says nothing either way, while any answer that is read is the one checked.
 */
async function earlyAnswer(send: () => Promise<TlsResponse>): Promise<TlsResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (attempt === 5 || (code !== "ECONNRESET" && code !== "EPIPE")) throw e;
    }
  }
}

/** Bytes under a folder (the file store's encrypted files and parts of uploads under way). */
function storedBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(path.join(e.parentPath, e.name)).size, 0);
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("the app behind Caddy (ops/caddy/Caddyfile)", () => {
  it("the shipped Caddyfile is valid as it is", () => {
    const dir = path.join(root, "validate");
    expect(caddyValidate(path.resolve("ops/caddy/Caddyfile"), dir)).toMatchObject({ ok: true });
  });

  it("answers over HTTPS; no header comes twice (Caddy adds none of the app's); pages carry HSTS", async () => {
    for (const pathname of ["/", "/login", "/api/v1/openapi.json", "/healthz", "/favicon.svg"]) {
      const r = await https(pathname);
      expect(r.status, pathname).toBe(200);
      const names = r.rawHeaders.map(([n]) => n).filter((n) => n !== "set-cookie");
      expect(
        names.filter((n, i) => names.indexOf(n) !== i),
        pathname,
      ).toEqual([]);
      expect(r.header("server"), pathname).toEqual([]);
    }
    for (const pathname of ["/", "/login"]) {
      const page = await https(pathname);
      expect(page.header("strict-transport-security"), pathname).toEqual([
        "max-age=31536000; includeSubDomains",
      ]);
      for (const name of [
        "content-security-policy",
        "x-content-type-options",
        "x-frame-options",
        "referrer-policy",
        "permissions-policy",
      ])
        expect(page.header(name), `${pathname} ${name}`).toHaveLength(1);
    }
  });

  it("a login through Caddy sets a Secure session cookie; the same post sent around Caddy is cross-site", async () => {
    const form = new URLSearchParams(ADMIN).toString();
    const headers = {
      "content-type": "application/x-www-form-urlencoded",
      origin,
      "sec-fetch-site": "same-origin",
    };
    const r = await https("/login", { method: "POST", headers, body: form, localAddress: "127.0.0.4" });
    expect(r.status).toBe(302);
    const session = r.header("set-cookie").find((c) => c.startsWith("cb_session="));
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/;\s*HttpOnly/i);
    // Straight to the app's http port, the origin https://localhost:… is not this request's own.
    const direct = await fetch(`${app.url}/login`, {
      method: "POST",
      headers,
      body: form,
      redirect: "manual",
    });
    expect(direct.status).toBe(403);
  });

  it("rate limits the real client (TRUST_PROXY): a forged X-Forwarded-For changes nothing", async () => {
    const attempt = (localAddress: string, headers: Record<string, string> = {}) =>
      https("/api/v1/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ email: ADMIN.email, password: "wrong-password-1" }),
        localAddress,
      }).then((r) => r.status);
    const first: number[] = [];
    for (let i = 0; i < 4; i++) first.push(await attempt("127.0.0.2", { "x-forwarded-for": `10.9.9.${i}` }));
    expect(first).toEqual([401, 401, 401, 429]);
    // Another client, claiming to be the refused one (or anyone), is counted as itself.
    expect(await attempt("127.0.0.3", { "x-forwarded-for": "127.0.0.2" })).toBe(401);
  });

  it("streams a 9 MB report upload through as it comes; the stored file is byte-identical", async () => {
    const data = pdf(9 * 1024 * 1024);
    const { body, headers } = multipart(
      { reportType: "MRI", phoneNumber: "9876543210", consent: "true" },
      { name: "scan.pdf", type: "application/pdf", data },
    );
    // The first half is sent, then the client waits: the app must already be storing it (Caddy
    // does not hold the body back until it has all of it).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const half = Math.floor(body.length / 2);
    const slow = Readable.from(
      (async function* () {
        yield* chunks(body.subarray(0, half));
        await held;
        yield* chunks(body.subarray(half));
      })(),
    );
    const auth = { authorization: `Bearer ${token}` };
    const answer = https("/api/v1/report/upload-report", {
      method: "POST",
      headers: { ...headers, ...auth },
      body: slow,
    });
    const deadline = Date.now() + 15_000;
    while (storedBytes(app.uploadsDir) < 3 * 1024 * 1024) {
      if (Date.now() > deadline) {
        release();
        throw new Error(`the app had ${storedBytes(app.uploadsDir)} bytes of the first half`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    release();
    const r = await answer;
    expect(r.status, r.body.toString().slice(0, 300)).toBe(201);
    const report = JSON.parse(r.body.toString()).data;
    expect(report.size).toBe(data.length);
    const file = await https(report.reportUrl, { headers: auth });
    expect(file.status).toBe(200);
    expect(sha256(file.body)).toBe(sha256(data));
  });

  it("the app's body limits are the ones a client meets (413); Caddy's larger backstop answers 502", async () => {
    // The backstop is above the app's largest limit: MAX_STUDY_MB (200 by default) and the form.
    const max = /max_size (\d+)MB/.exec(SHIPPED);
    expect(Number(max?.[1])).toBeGreaterThan(201);
    const big = multipart(
      { reportType: "MRI", phoneNumber: "9876543210", consent: "true" },
      { name: "big.pdf", type: "application/pdf", data: pdf(11 * 1024 * 1024) },
    );
    const upload = await earlyAnswer(() =>
      https("/api/v1/report/upload-report", {
        method: "POST",
        headers: { ...big.headers, authorization: `Bearer ${token}` },
        body: streamed(big.body),
      }),
    );
    expect(upload.status).toBe(413); // MAX_UPLOAD_MB 10
    expect(JSON.parse(upload.body.toString())).toMatchObject({ success: false });
    const form = await earlyAnswer(() =>
      https("/login", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin,
          "sec-fetch-site": "same-origin",
        },
        body: `email=${"a".repeat(80 * 1024)}`,
        localAddress: "127.0.0.5",
      }),
    );
    expect(form.status).toBe(413); // BODY_LIMIT_KB 64
    // Over Caddy's own request_body limit (1 MB on the second site) before the app's: a 502, not a 413.
    const cut = multipart(
      { reportType: "MRI", phoneNumber: "9876543210", consent: "true" },
      { name: "two.pdf", type: "application/pdf", data: pdf(2 * 1024 * 1024) },
    );
    const backstopped = await earlyAnswer(() =>
      https(
        "/api/v1/report/upload-report",
        {
          method: "POST",
          headers: { ...cut.headers, authorization: `Bearer ${token}` },
          body: streamed(cut.body),
        },
        backstop,
      ),
    );
    expect(backstopped.status).toBe(502);
  });
});
