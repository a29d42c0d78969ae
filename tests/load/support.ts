/**
 * Helpers for the load and crash tests: an app process this test owns (so it can SIGKILL or
 * SIGTERM it and read its exit code), sign-up through the mail outbox, raw multipart bodies
 * and an independent decryption of the stored files.
 */
import { createDecipheriv, createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { apiClient, strongPassword } from "../helpers/api";
import { spawnApp, type AppProcess } from "../helpers/server";

export type App = AppProcess;

/** Starts the built app on 127.0.0.1 with data under `root` (reused across restarts). */
export function startApp(root: string, env: Record<string, string> = {}): Promise<App> {
  return spawnApp(root, {
    RATE_LIMIT_DISABLED: "1",
    SMTP_URL: "",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: "info",
    ...env,
  });
}

/** Stops an app this test started, whatever state it is in. */
export async function killApp(app: App | undefined) {
  if (!app || app.child.exitCode !== null || app.child.signalCode !== null) return;
  app.child.kill("SIGKILL");
  await app.exited;
}

export const ADMIN = { email: "admin@load.test", password: "Admin-pass-123" };

/** Signs up through the API, reading the code from the outbox the app writes without SMTP. */
export async function signup(app: App, email: string, accountType: "Patient" | "Expert") {
  const api = apiClient(app.url);
  const sent = await api.post("/auth/send-otp", { email, checkUserPresent: true });
  if (sent.status !== 200) throw new Error(`send-otp ${sent.status}`);
  const outbox = path.join(app.dataDir, "outbox");
  let code: string | undefined;
  for (let i = 0; i < 100 && !code; i++) {
    for (const f of existsSync(outbox) ? readdirSync(outbox) : []) {
      const text = readFileSync(path.join(outbox, f), "utf8");
      const m = /(\d{6}) is your/.exec(text);
      if (m && text.includes(`To: ${email}`)) code = m[1];
    }
    if (!code) await new Promise((r) => setTimeout(r, 50));
  }
  if (!code) throw new Error(`no code mailed to ${email}`);
  const res = await api.post("/auth/signup", {
    accountType,
    // Approval needs a registration number.
    ...(accountType === "Expert" ? { registrationNumber: "LOAD-1" } : {}),
    firstName: accountType,
    lastName: "Load",
    email,
    contactNumber: "9876543210",
    password: strongPassword,
    confirmPassword: strongPassword,
    otp: code,
  });
  if (res.status !== 201) throw new Error(`signup ${res.status} ${JSON.stringify(res.body)}`);
  const login = await api.post("/auth/login", { email, password: strongPassword });
  return { id: res.body.data._id as string, token: login.body.token as string };
}

export async function adminToken(app: App) {
  const login = await apiClient(app.url).post("/auth/login", ADMIN);
  if (login.status !== 200) throw new Error(`admin login ${login.status}`);
  return login.body.token as string;
}

export async function approve(app: App, admin: string, expertId: string) {
  const r = await apiClient(app.url).post("/expert/approve-expert", { expertId }, admin);
  if (r.status !== 200) throw new Error(`approve ${r.status}`);
}

export const BOUNDARY = "----carebridge-load-boundary";
export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** The head and tail of an upload's multipart body; the file bytes go in between. */
export function multipartParts(fileName = "report.pdf", reportType = "Blood Test") {
  const field = (k: string, v: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  const head = Buffer.from(
    field("reportType", reportType) +
      field("phoneNumber", "9876543210") +
      field("countryCode", "+91") +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="report"; filename="${fileName}"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  return { head, tail: Buffer.from(`\r\n--${BOUNDARY}--\r\n`) };
}

export function multipartBody(file: Buffer, fileName?: string, reportType?: string) {
  const { head, tail } = multipartParts(fileName, reportType);
  return Buffer.concat([head, file, tail]);
}

export const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/**
 * Decrypts a stored file independently of the app (format in app/domain/records/files.server.ts:
 * "CBF1", 12-byte IV, ciphertext, 16-byte GCM tag; AAD = magic + key). Throws when the file
 * is truncated or fails authentication.
 */
export function decryptStored(uploadsDir: string, dataDir: string, key: string): Buffer {
  const secret = Buffer.from(
    readFileSync(path.join(dataDir, "secrets", "encryption-key"), "utf8").trim(),
    "hex",
  );
  const file = readFileSync(path.join(uploadsDir, `${key}.enc`));
  if (file.length < 4 + 12 + 16 + 1 || file.subarray(0, 4).toString("ascii") !== "CBF1") {
    throw new Error(`${key}: not a complete stored file`);
  }
  const decipher = createDecipheriv("aes-256-gcm", secret, file.subarray(4, 16));
  decipher.setAAD(Buffer.concat([Buffer.from("CBF1", "ascii"), Buffer.from(key, "ascii")]));
  decipher.setAuthTag(file.subarray(file.length - 16));
  return Buffer.concat([decipher.update(file.subarray(16, file.length - 16)), decipher.final()]);
}

/** `<key>.enc` and `<key>.part` names in the uploads folder. */
export function storedFiles(uploadsDir: string) {
  const names = existsSync(uploadsDir) ? readdirSync(uploadsDir) : [];
  return {
    enc: names.filter((n) => /^[a-f0-9]{32}\.enc$/.test(n)).map((n) => n.slice(0, 32)),
    part: names.filter((n) => n.endsWith(".part")),
  };
}

/**
 * Streams an upload slowly over its own connection (`chunk` bytes every `delayMs`), so a
 * test can act on the server while the body is still arriving. `afterFirstChunk` runs once
 * the headers and the first piece are on the wire.
 */
export function slowUpload(
  base: string,
  token: string,
  file: Buffer,
  opts: { chunk?: number; delayMs?: number; afterFirstChunk?: () => void } = {},
): Promise<{ status: number; body: string }> {
  const { chunk = 64 * 1024, delayMs = 10 } = opts;
  const body = multipartBody(file, "slow.pdf");
  const url = new URL(`${base}/api/v1/report/upload-report`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": MULTIPART_TYPE,
          "Content-Length": body.length,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    let offset = 0;
    const next = () => {
      if (req.destroyed) return;
      const piece = body.subarray(offset, offset + chunk);
      offset += piece.length;
      if (offset >= body.length) {
        req.end(piece);
        return;
      }
      req.write(piece);
      if (offset === piece.length) opts.afterFirstChunk?.();
      setTimeout(next, delayMs);
    };
    next();
  });
}
