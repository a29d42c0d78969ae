import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { mkdirSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import path from "node:path";
import { log } from "~/lib/log.server";
import { startProgram, type LongRunning } from "~/lib/programs.server";
import { SipTrace, verdict, type Verdict } from "./sip-trace";

/**
 * One baresip process (decision 0080), driven over its ctrl_tcp module: commands and events are
 * JSON in netstrings. The app runs two: the "in" line, registered to the trunk, on which missed
 * calls arrive and are rejected; the "out" line, which places one call at a time and switches the
 * sound it plays (`ausrc`) as the person presses keys. baresip 1.0 acts on its current call, so a
 * line that places calls never also takes them.
 */

export type BaresipEvent = {
  type: string;
  /** "call", "register", … */
  class?: string;
  accountaor?: string;
  id?: string;
  param?: string;
  peeruri?: string;
  direction?: string;
};

export type BaresipOptions = {
  name: string;
  dir: string;
  listen: string;
  /**
   * The accounts (baresip's accounts file, one line each). baresip answers a request only when its
   * user part is an account's (else 404), so the "in" line has one per form of the clinic's number.
   */
  accounts: string[];
  /** The UDP ports the calls' sound (RTP) may use (VOICE_RTP_PORTS). */
  rtpPorts: [number, number];
  /** The sound of the first prompt (an 8 kHz WAV). */
  source: string;
  dumpDir?: string;
  /**
   * Read baresip's SIP trace (`-s`) for where each message came from (decision 0101): the "in"
   * line tells the trunk's calls from forged ones by it.
   */
  trace?: boolean;
};

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * baresip's `rtp_ports` line for the range an operator opened (VOICE_RTP_PORTS): its start rounded up
 * to an even port. baresip (libre) takes a port in the range and clears its lowest bit (RTP on an
 * even port, RTCP on the next), so an odd start let the sound use the port below the range, one the
 * firewall does not let through.
 */
export function rtpPortsLine([from, to]: readonly [number, number]): string {
  return `rtp_ports ${from + (from % 2)}-${to}`;
}

export class Baresip {
  private process: LongRunning | null = null;
  private socket: Socket | null = null;
  private buffer = "";
  private token = 0;
  private waiting = new Map<string, (r: { ok: boolean; data: string }) => void>();
  private listeners = new Set<(e: BaresipEvent) => void>();
  private trace = new SipTrace();
  exited = false;

  constructor(readonly opts: BaresipOptions) {}

  async start(): Promise<void> {
    const host = this.opts.listen.split(":")[0];
    const ctrl = await freePort("127.0.0.1");
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    const lines = [
      `sip_listen ${this.opts.listen}`,
      `net_interface ${host}`,
      rtpPortsLine(this.opts.rtpPorts),
      `audio_source aufile,${this.opts.source}`,
      `audio_player aufile,${path.join(this.opts.dir, "heard.wav")}`,
      `audio_alert aufile,${path.join(this.opts.dir, "alert.wav")}`,
      "module_path /usr/lib/baresip/modules",
      "module g711.so",
      "module aufile.so",
      ...(this.opts.dumpDir ? ["module sndfile.so", `snd_path ${this.opts.dumpDir}`] : []),
      "module_app account.so",
      "module_app menu.so",
      "module_app ctrl_tcp.so",
      `ctrl_tcp_listen 127.0.0.1:${ctrl}`,
    ];
    if (this.opts.dumpDir) mkdirSync(this.opts.dumpDir, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(this.opts.dir, "config"), lines.join("\n") + "\n", { mode: 0o600 });
    writeFileSync(path.join(this.opts.dir, "accounts"), this.opts.accounts.join("\n") + "\n", {
      mode: 0o600,
    });
    writeFileSync(path.join(this.opts.dir, "contacts"), "", { mode: 0o600 });
    // Through the one door (decision 0086): its own process group, memory and file-size limits.
    this.process = startProgram("baresip", {
      options: [...(this.opts.trace ? ["-s"] : []), "-f", this.opts.dir],
    });
    const child = this.process.child;
    let said = "";
    const keep = (text: string) => {
      said = (said + text).slice(-2000);
    };
    // The trace's messages are read, never kept in what baresip said (they hold callers' numbers).
    child.stdout!.on("data", (c: Buffer) =>
      keep(this.opts.trace ? this.trace.push(c.toString("latin1")) : c.toString()),
    );
    child.stderr!.on("data", (c: Buffer) => keep(c.toString()));
    child.once("exit", (code, signal) => {
      this.exited = true;
      this.socket?.destroy();
      // A command waiting for its answer hears now that none will come (ended at shutdown, decision 0103).
      for (const answer of this.waiting.values()) answer({ ok: false, data: "baresip ended" });
      this.waiting.clear();
      log(code === 0 ? "info" : "error", `baresip (${this.opts.name} line) ended`, {
        code,
        signal,
        said: said
          // Colour codes (ESC [ … m) out of the log line.
          .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
          .split("\n")
          .slice(-4)
          .join(" | "),
      });
    });
    child.once("error", (err) => {
      this.exited = true;
      log("error", `baresip (${this.opts.name} line) could not start`, { error: err.message });
    });
    const started = Date.now();
    while (!this.socket) {
      if (this.exited) throw new Error(`baresip (${this.opts.name} line) did not start: ${said.slice(-300)}`);
      if (Date.now() - started > 10_000) throw new Error(`baresip (${this.opts.name} line) did not answer`);
      await new Promise((r) => setTimeout(r, 100));
      await new Promise<void>((resolve) => {
        const s = connect(ctrl, "127.0.0.1");
        s.once("connect", () => {
          this.socket = s;
          s.on("data", (d: Buffer) => this.read(d.toString("utf8")));
          s.on("error", () => {});
          resolve();
        });
        s.once("error", () => resolve());
      });
    }
  }

  private read(chunk: string) {
    this.buffer += chunk;
    for (;;) {
      const m = /^(\d+):/.exec(this.buffer);
      if (!m) return;
      const n = Number(m[1]);
      const start = m[0].length;
      if (this.buffer.length < start + n + 1) return;
      const text = this.buffer.slice(start, start + n);
      this.buffer = this.buffer.slice(start + n + 1);
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (msg.response && typeof msg.token === "string") {
        this.waiting.get(msg.token)?.({ ok: msg.ok === true, data: String(msg.data ?? "") });
        this.waiting.delete(msg.token);
      } else if (msg.event) {
        for (const l of this.listeners) l(msg as unknown as BaresipEvent);
      }
    }
  }

  /**
   * Whether the incoming call `callId` came from the trunk (decision 0101, rules in sip-trace.ts).
   * First a mark: a SIP OPTIONS carrying a random word is sent to the line, and the trace is read
   * until it shows that word. baresip handles one message at a time and prints each as it takes it,
   * so by then every message it took before the call's event — the call's INVITE among them — has
   * been read, whichever of its two outputs (the trace, the control connection) arrived first.
   */
  async callSource(callId: string, trusted: (source: string) => boolean): Promise<Verdict> {
    if (!this.opts.trace) return { trunk: false, source: null, why: "the line reads no trace" };
    const [host, port] = this.opts.listen.split(":");
    const to = host === "0.0.0.0" ? "127.0.0.1" : host;
    const word = randomBytes(16).toString("hex");
    const socket = createSocket("udp4");
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once("error", reject);
        socket.bind(0, () => resolve());
      });
      const me = socket.address();
      const message = [
        `OPTIONS sip:mark-${word}@${to}:${port} SIP/2.0`,
        `Via: SIP/2.0/UDP ${me.address}:${me.port};branch=z9hG4bK${word}`,
        `From: <sip:mark@${me.address}>;tag=${word.slice(0, 8)}`,
        `To: <sip:mark-${word}@${to}>`,
        `Call-ID: mark-${word}`,
        "CSeq: 1 OPTIONS",
        "Max-Forwards: 0",
        "Content-Length: 0",
        "",
        "",
      ].join("\r\n");
      socket.send(message, Number(port), to);
      if (!(await this.trace.seen(word, 3_000)))
        return { trunk: false, source: null, why: "the line's trace did not answer" };
    } catch (err) {
      return { trunk: false, source: null, why: `no mark: ${String((err as Error)?.message ?? err)}` };
    } finally {
      socket.close();
    }
    return verdict(this.trace, callId, this.opts.listen, trusted);
  }

  onEvent(listener: (e: BaresipEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a command and waits (at most 5 s) for its answer. */
  command(command: string, params = ""): Promise<{ ok: boolean; data: string }> {
    const socket = this.socket;
    if (!socket || this.exited) return Promise.resolve({ ok: false, data: "baresip is not running" });
    const token = `t${++this.token}`;
    const body = JSON.stringify({ command, params, token });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(token);
        resolve({ ok: false, data: "no answer" });
      }, 5_000);
      this.waiting.set(token, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      socket.write(`${Buffer.byteLength(body)}:${body},`);
    });
  }

  async stop(): Promise<void> {
    const running = this.process;
    if (!running || this.exited) return;
    await this.command("quit").catch(() => {});
    // Asked to quit; whatever is left of it after 2 s is ended with its process group.
    await Promise.race([
      new Promise<void>((resolve) => running.child.once("exit", () => resolve())),
      new Promise<void>((resolve) => setTimeout(resolve, 2_000)),
    ]);
    await running.end(1_000);
  }
}
