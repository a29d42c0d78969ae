import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Transporter } from "nodemailer";
import { config } from "~/config.server";
import { log } from "~/lib/log.server";

/**
 * How one mail leaves (decisions 0020, 0061): over SMTP when SMTP_URL is set, otherwise as an .eml
 * file in data/outbox/. When, and what a failure means, is the outbox's (mail-outbox.server.ts).
 */

export type Mail = { to: string; subject: string; text: string; html: string };

let transport: Transporter | undefined;
let streamTransport: Transporter | undefined;

/** The mail server must answer within these, so a sender (or a request waiting for a code) is never held long. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** nodemailer, loaded when the first mail leaves (most starts send none). */
const mailer = async () => (await import("nodemailer")).default;

async function smtp(): Promise<Transporter> {
  // One connection per mail (no pool): a mail server that went away and came back is simply used again.
  transport ??= (await mailer()).createTransport({ url: config().smtpUrl!, ...SMTP_TIMEOUTS } as never);
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

/** A failure of the mail server; its message is safe to store and show (no credentials, no content). */
export class SmtpError extends Error {}

/**
 * Sends one message: over SMTP when SMTP_URL is set, otherwise written as an .eml file to
 * data/outbox/ (named by the outbox row, so a mail taken again after a crash rewrites its own
 * file) with one log line naming the recipient and subject. SMTP failures throw SmtpError.
 */
export async function transmit(mail: Mail & { id: string; createdAt: Date }): Promise<void> {
  const c = config();
  const message = { from: c.mailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html };
  if (c.smtpUrl) {
    try {
      await (await smtp()).sendMail(message);
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { responseCode?: number };
      // Never the message (nodemailer may quote the server's whole answer) beyond its code.
      const why =
        e.code === "ECONNECTION" || e.code === "ESOCKET"
          ? `mail server unreachable${/ECONNREFUSED/.test(String(e.message)) ? ": connection refused" : ""}`
          : e.code === "ETIMEDOUT"
            ? "mail server did not answer in time"
            : e.responseCode
              ? `mail server refused (${e.responseCode})`
              : `could not send (${e.code ?? "unexpected error"})`;
      throw new SmtpError(why);
    }
    return;
  }
  streamTransport ??= (await mailer()).createTransport({
    streamTransport: true,
    buffer: true,
    newline: "unix",
  });
  const info = await streamTransport.sendMail(message);
  mkdirSync(c.outboxDir, { recursive: true, mode: 0o700 });
  const stamp = mail.createdAt.toISOString().replace(/[:.]/g, "-");
  const file = path.join(c.outboxDir, `${stamp}-${mail.id}.eml`);
  writeFileSync(file, info.message as Buffer, { mode: 0o600 });
  log("info", "mail written to outbox", { to: mail.to, subject: mail.subject, file: path.basename(file) });
}
