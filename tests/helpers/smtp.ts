import { SMTPServer } from "smtp-server";
import { freePort } from "./server";

export type CapturedMail = { to: string[]; raw: string; subject: string };

/** A real in-process SMTP server that keeps every message it receives. */
export async function startSmtp() {
  const mails: CapturedMail[] = [];
  const make = () => {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, session, callback) {
        let raw = "";
        stream.setEncoding("utf8");
        stream.on("data", (d) => (raw += d));
        stream.on("end", () => {
          const subject =
            /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, " ") ?? "";
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, subject });
          callback();
        });
      },
    });
    // A sending app killed mid-connection (the multi-node and crash tests) resets its socket: not our error.
    server.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "ECONNRESET" && err.code !== "EPIPE") throw err;
    });
    return server;
  };
  const port = await freePort();
  const listen = async () => {
    const server = make();
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
    return server;
  };
  let server: SMTPServer | null = await listen();
  const close = async () => {
    const s = server;
    server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** Waits for a message to this address whose subject or body matches. */
    async waitFor(to: string, match: RegExp = /./, timeoutMs = 10_000): Promise<CapturedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = [...mails]
          .reverse()
          .find((x) => x.to.includes(to) && (match.test(x.subject) || match.test(x.raw)));
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${match}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    /** The mail server goes down: nothing listens on its port (a sender's connection is refused). */
    stop: close,
    /** …and comes back on the same port, keeping what it received before. */
    start: async () => {
      server ??= await listen();
    },
    close,
  };
}

/** The 6-digit code in a verification mail's subject. */
export function codeFrom(mail: CapturedMail): string {
  const m = /\b(\d{6})\b/.exec(mail.subject);
  if (!m) throw new Error(`no code in ${mail.subject}`);
  return m[1];
}

/** The reset link's token in a reset mail. */
export function resetTokenFrom(mail: CapturedMail): string {
  const body = mail.raw.replace(/=\r?\n/g, "");
  const m = /update-password\/([A-Za-z0-9_-]{20,})/.exec(body);
  if (!m) throw new Error("no reset link in mail");
  return m[1];
}
