import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import { config } from "~/config.server";
import { newId } from "~/utils/ids.server";
import { log } from "~/utils/log.server";

export type Mail = { to: string; subject: string; text: string; html: string };

let transport: Transporter | undefined;
let streamTransport: Transporter | undefined;

function smtp(): Transporter {
  transport ??= nodemailer.createTransport(config().smtpUrl!);
  return transport;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Simple, safe HTML: paragraphs of escaped text, plus an optional link button. */
export function simpleHtml(paragraphs: string[], link?: { href: string; label: string }) {
  const body = paragraphs.map((p) => `<p style="margin:0 0 12px">${escapeHtml(p)}</p>`).join("");
  const button = link
    ? `<p><a href="${escapeHtml(link.href)}" style="display:inline-block;background:#0b5f56;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(link.label)}</a></p>`
    : "";
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:16px;line-height:1.5;color:#0f172a">${body}${button}</body></html>`;
}

/**
 * Sends one message: over SMTP when SMTP_URL is set, otherwise written as an .eml file
 * to data/outbox/ with one log line naming the recipient and subject.
 */
export async function sendMail(mail: Mail): Promise<void> {
  const c = config();
  const message = { from: c.mailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html };
  if (c.smtpUrl) {
    await smtp().sendMail(message);
    return;
  }
  streamTransport ??= nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  const info = await streamTransport.sendMail(message);
  mkdirSync(c.outboxDir, { recursive: true, mode: 0o700 });
  const file = path.join(c.outboxDir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${newId()}.eml`);
  writeFileSync(file, info.message as Buffer, { mode: 0o600 });
  log("info", "mail written to outbox", { to: mail.to, subject: mail.subject, file: path.basename(file) });
}

const inFlight = new Set<Promise<void>>();
let failedSinceStart = 0;

/**
 * Mail has no stored queue: "queued" is what this process is still sending in the background,
 * "failed" how many background sends failed since it started (for /metrics and the Service screen).
 */
export function mailQueue(): { queued: number; failed: number } {
  return { queued: inFlight.size, failed: failedSinceStart };
}

/**
 * Off the request path: the answer never waits for (or is timed by) the mail server, and a mail
 * failure never fails the user's action (it is logged). `flushMail()` waits for these at shutdown.
 */
export function sendMailInBackground(mail: Mail) {
  const p: Promise<void> = sendMail(mail)
    .catch((err) => {
      failedSinceStart++;
      log("error", "mail failed", { to: mail.to, subject: mail.subject, error: String(err?.message ?? err) });
    })
    .finally(() => inFlight.delete(p));
  inFlight.add(p);
}

/** Waits until every background mail started so far is sent (or has failed); for a clean shutdown. */
export async function flushMail(): Promise<void> {
  while (inFlight.size) await Promise.allSettled([...inFlight]);
}
