import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import path from "node:path";
import type { smsMessages } from "~/db/schema";
import { log } from "~/lib/log.server";
import { maskPhone } from "~/lib/phone.server";
import { smsSegments } from "./sms-segments.server";

/**
 * How one message leaves (decision 0014): through Kannel's sendsms interface (SMS_URL) or, unset,
 * as a file in the outbox folder. The sender (sms.server.ts) decides when, and what a failure means.
 */

/** A row of the queue, as the sender holds it. */
type Claimed = typeof smsMessages.$inferSelect;

/**
 * Without SMS_URL: one file per message (0600 in a 0700 folder) and one log line without the text.
 * The last message to an erased person is not written (only the masked log line): the erasure has
 * already removed their files, and nothing of them may come back.
 */
export function writeToOutbox(dir: string, row: Claimed) {
  if (row.purpose === "erased") {
    log("info", "sms to an erased person not kept in the outbox", {
      to: maskPhone(row.to),
      purpose: row.purpose,
    });
    return;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Named by the row, so a message taken again after a crash rewrites its own file.
  const file = path.join(dir, `${row.createdAt.toISOString().replace(/[:.]/g, "-")}-${row.id}.json`);
  const body = { id: row.id, to: row.to, purpose: row.purpose, text: row.text, createdAt: row.createdAt };
  // Written whole, then named: whoever watches the folder never reads a half-written message.
  writeFileSync(`${file}.part`, JSON.stringify(body, null, 2) + "\n", { mode: 0o600 });
  renameSync(`${file}.part`, file);
  log("info", "sms written to outbox", {
    to: maskPhone(row.to),
    purpose: row.purpose,
    file: path.basename(file),
  });
}

/** A failure worth retrying; its message is safe to store and show (no credentials, no text). */
export class GatewayError extends Error {}

/**
 * Kannel's sendsms: a GET with the credentials of SMS_URL's userinfo as username/password, the
 * URL's own parameters (from, smsc …), and to, text, charset=UTF-8, coding 0 (GSM) or 2 (UCS-2).
 * Accepted: a 2xx answer starting "0:" (accepted) or "3:" (queued for later delivery).
 */
export async function sendThroughGateway(smsUrl: string, row: Claimed, timeoutMs: number): Promise<void> {
  const url = new URL(smsUrl);
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const q = url.searchParams;
  if (username) q.set("username", username);
  if (password) q.set("password", password);
  q.set("to", row.to);
  q.set("text", row.text);
  q.set("charset", "UTF-8");
  q.set("coding", smsSegments(row.text).encoding === "gsm" ? "0" : "2");
  // A gateway's answer is stored and shown to admins: never with the password, the text or the
  // whole number in it (a careless gateway may echo the request).
  const hidden: [string, string][] = [
    [password, "***"],
    [row.text, "***"],
    [row.to, maskPhone(row.to)],
  ];
  const clean = (s: string) => {
    let out = s.replace(/\s+/g, " ").trim();
    for (const [secret, shown] of hidden) {
      if (secret.length < 3) continue;
      const forms = [
        secret,
        encodeURIComponent(secret),
        new URLSearchParams({ s: secret }).toString().slice(2),
      ];
      for (const form of forms) out = out.split(form).join(shown);
    }
    return out.slice(0, 200);
  };
  const { status, body } = await httpGet(url, timeoutMs).catch((err: NodeJS.ErrnoException) => {
    if (err instanceof GatewayError) throw err;
    const why = err.code === "ECONNREFUSED" ? "connection refused" : (err.code ?? clean(err.message));
    throw new GatewayError(`gateway unreachable: ${why}`);
  });
  const answer = clean(body);
  if (status < 200 || status > 299) throw new GatewayError(`gateway answered HTTP ${status}: ${answer}`);
  if (!/^\s*[03]:/.test(body)) throw new GatewayError(`gateway refused: ${answer}`);
}

const MAX_ANSWER = 4096;

function httpGet(url: URL, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const get = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = get(url, { method: "GET", agent: false, headers: { Connection: "close" } });
    const timer = setTimeout(() => {
      req.destroy();
      const limit = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
      reject(new GatewayError(`gateway did not answer within ${limit}`));
    }, timeoutMs);
    timer.unref();
    req.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.once("response", (res: IncomingMessage) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < MAX_ANSWER) body += chunk;
      });
      res.once("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    req.end();
  });
}
