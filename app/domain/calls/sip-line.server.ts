import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { config } from "~/config.server";
import type { PhoneCallRow } from "~/db/schema";
import { log } from "~/lib/log.server";
import { updateCallingCall } from "./queue.server";
import { phoneWav, silence } from "../records/index.server";
import { Baresip, type BaresipEvent } from "./baresip.server";
import { FINAL_PROMPTS, pressKey, startIvr, type IvrState, type Prompt } from "./ivr";
import { lineUsers, reportLineState, type LineState } from "./line-status.server";
import type { CallPlan } from "./plan.server";
import { promptAudio } from "./prompts.server";
import type { CallEnd, CallLine } from "./sender.server";
import { trustedCheck } from "./trunk.server";

/**
 * The self-hosted SIP line (decision 0080): baresip registered to an operator's SIP trunk or a
 * GSM gateway (VOICE_URL sip://user:password@host:port). Two baresip processes: "in" takes the
 * missed calls to the clinic's number and rejects them at once (the caller pays nothing); "out"
 * places one call at a time, plays each prompt as a WAV file and switches to the next one when
 * keys arrive (as SIP INFO or RFC 2833 events). A prompt that ends ends the call.
 */

const RING_MS = 45_000;

/**
 * What the line hands over: the caller's number, and when the call did not come from the trunk
 * (decision 0101) the address it came from (intake records it refused and calls nobody back).
 */
export type MissedCallHandler = (number: string, opts: { notFromTrunk?: string }) => Promise<unknown>;

function trunk() {
  const url = config().voice.url!;
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const host = url.host; // host:port
  const register = url.searchParams.get("register") !== "no";
  return { user, password, host, register };
}

/** The number in a SIP address (sip:+919876543210@host → +919876543210), or null. */
export function numberOf(uri: string | undefined): string | null {
  const m = /^sips?:(\+?\d{6,15})@/.exec(uri ?? "");
  if (!m) return null;
  return m[1].startsWith("+") ? m[1] : `+${m[1]}`;
}

export class SipLine implements CallLine {
  private incoming: Baresip | null = null;
  private outgoing: Baresip | null = null;
  private dir = path.join(config().voice.workDir, "sip");
  private state: { state: LineState; detail: string | null } = { state: "registering", detail: null };
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private onMissedCall: MissedCallHandler) {}

  async start(): Promise<void> {
    try {
      await this.startLines();
    } catch (err) {
      await this.report("not-running", String((err as Error)?.message ?? err).slice(0, 300));
      throw err;
    }
    // Once a minute the row says the line is still there (or that baresip ended).
    this.heartbeat = setInterval(() => {
      if (this.incoming?.exited) void this.report("not-running", "baresip ended");
      else void this.checkRegistration();
    }, 60_000);
    this.heartbeat.unref();
  }

  /** What the admins see of this node's line (decision 0093); a failure to write it is only logged. */
  private async report(state: LineState, detail: string | null) {
    this.state = { state, detail };
    await reportLineState(state, detail).catch((err) =>
      log("warn", "the SIP line's state could not be written", { error: String(err?.message ?? err) }),
    );
  }

  /**
   * The registration as baresip holds it (`reginfo`): events say why it changed, but the first
   * one can come before the control connection is open.
   */
  private async checkRegistration() {
    const t = trunk();
    if (!t.register) return this.report("no-registration", null);
    const info = await this.incoming!.command("reginfo");
    const aor = `sip:${lineUsers()[0]}@${t.host}`;
    const line = info.data
      .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
      .split("\n")
      .find((l) => l.includes(aor));
    const { state, detail } = this.state;
    if (!info.ok || !line) return this.report(state, detail);
    if (/\sOK\s/.test(line)) return this.report("registered", null);
    if (/\sERR\b/.test(line))
      return this.report("not-registered", state === "not-registered" ? detail : null);
    return this.report(state === "registered" ? "registering" : state, detail);
  }

  private async startLines(): Promise<void> {
    const v = config().voice;
    const t = trunk();
    const [host, port] = v.sipListen.split(":");
    const quiet = path.join(this.dir, "silence.wav");
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(quiet, phoneWav(silence(1000)), { mode: 0o600 });
    const auth = t.password ? `;auth_pass=${t.password}` : "";
    const [own, ...others] = lineUsers();
    this.incoming = new Baresip({
      name: "in",
      dir: path.join(this.dir, "in"),
      listen: v.sipListen,
      // The account's own user registers; the other forms of the number only answer.
      accounts: [
        `<sip:${own}@${t.host}>${auth};regint=${t.register ? 600 : 0}`,
        ...others.map((user) => `<sip:${user}@${t.host}>;regint=0`),
      ],
      rtpPorts: v.rtpPorts,
      source: quiet,
      // Where each INVITE came from: only the trunk's calls are taken (decision 0101).
      trace: true,
    });
    // Calls go out from the clinic's published number (the caller ID a trunk passes on), signing in
    // to the trunk as the account's user.
    const from = v.number ?? own;
    this.outgoing = new Baresip({
      name: "out",
      dir: path.join(this.dir, "out"),
      listen: `${host}:${Number(port) + 2}`, // baresip also takes port + 1 (SIP over TLS)
      accounts: [`<sip:${from}@${t.host}>${from === own ? "" : `;auth_user=${own}`}${auth};regint=0`],
      rtpPorts: v.rtpPorts,
      source: quiet,
      dumpDir: v.dumpDir,
    });
    // One after the other: each takes a free port for its control connection, and a port given
    // back by the first probe could otherwise be handed to both.
    this.incoming.onEvent((e) => void this.incomingEvent(e));
    await this.incoming.start();
    await this.outgoing.start();
    await this.checkRegistration();
    log("info", "SIP line ready", {
      listen: v.sipListen,
      trunk: t.host,
      register: t.register,
      answers: others.length + 1,
      rtpPorts: v.rtpPorts.join("-"),
    });
  }

  private async incomingEvent(e: BaresipEvent) {
    if (e.type === "REGISTER_OK") return this.report("registered", null);
    if (e.type === "REGISTER_FAIL")
      return this.report("not-registered", (e.param ?? "").slice(0, 200) || null);
    if (e.type !== "CALL_INCOMING") return;
    // Rejected before it is answered: a missed call costs the caller nothing.
    await this.incoming!.command("hangup");
    // Only the trunk's calls are called back (decision 0101): anyone who reaches the line can send
    // an INVITE with any caller's number.
    const from = await this.incoming!.callSource(e.id ?? "", await trustedCheck());
    const number = numberOf(e.peeruri);
    if (!number) {
      log("warn", "a call without a usable number was rejected", {
        fromTrunk: from.trunk,
        source: from.source,
      });
      return;
    }
    const opts = from.trunk ? {} : { notFromTrunk: from.source ?? `unknown (${from.why})` };
    await this.onMissedCall(number, opts).catch((err) =>
      log("error", "a missed call could not be recorded", { error: String((err as Error)?.message ?? err) }),
    );
  }

  async place(row: PhoneCallRow, plan: CallPlan): Promise<CallEnd> {
    const out = this.outgoing;
    if (!out || out.exited)
      return {
        answered: false,
        failed: "the SIP line is not running",
        state: null,
        answeredAt: null,
        durationMs: 0,
      };
    const callDir = path.join(this.dir, "calls", row.id);
    mkdirSync(callDir, { recursive: true, mode: 0o700 });
    const files = new Map<Prompt, string>();
    const fileOf = async (prompt: Prompt) => {
      let file = files.get(prompt);
      if (!file) {
        file = path.join(callDir, `${prompt}.wav`);
        const wav = await promptAudio(plan, prompt, {
          waitForKeys: !FINAL_PROMPTS.includes(prompt),
        });
        writeFileSync(file, wav, { mode: 0o600 });
        files.set(prompt, file);
      }
      return file;
    };
    try {
      const first = startIvr(plan);
      let state: IvrState = first.state;
      // Every sound the call may play is ready before it rings: a key switches at once, with no
      // silence while a prompt is spoken into a file.
      if (first.play === "intro")
        for (const p of plan.step
          ? (["intro", "again", "step", "step-done", "step-later", "step-declined", "not-verified"] as const)
          : (["intro", "again", "content", "menu", "callback", "not-verified", "none-ready"] as const))
          await fileOf(p);
      await out.command("ausrc", `aufile,${await fileOf(first.play)}`);
      const remember = (set: Partial<PhoneCallRow>) =>
        updateCallingCall(row.id, set).catch((err) =>
          log("warn", "a call's state was not written", { error: String(err?.message ?? err) }),
        );
      return await new Promise<CallEnd>((resolve) => {
        let callId: string | undefined;
        let answeredAt: Date | null = null;
        let queue = Promise.resolve();
        const finish = (end: Omit<CallEnd, "answeredAt" | "durationMs" | "state">) => {
          clearTimeout(ring);
          clearTimeout(longest);
          stopListening();
          resolve({
            ...end,
            state: answeredAt ? state : null,
            answeredAt,
            durationMs: answeredAt ? Date.now() - answeredAt.getTime() : 0,
          });
        };
        const ring = setTimeout(() => {
          if (!answeredAt) void out.command("hangup");
        }, RING_MS);
        const longest = setTimeout(() => void out.command("hangup"), config().voice.maxCallMs);
        const stopListening = out.onEvent((e) => {
          if (e.direction && e.direction !== "outgoing") return;
          if (callId === undefined && e.id && e.type.startsWith("CALL_")) callId = e.id;
          if (e.id && callId && e.id !== callId) return;
          if (e.type === "CALL_ESTABLISHED") {
            answeredAt = new Date();
            // Written as it happens: were this process to die mid-call, her call is not placed again.
            void remember({ answeredAt });
          } else if (e.type === "CALL_DTMF_START" && e.param) {
            const key = e.param;
            // Keys are handled in order; each may switch the sound.
            queue = queue.then(async () => {
              const next = pressKey(plan, state, key);
              state = next.state;
              if (next.play) await out.command("ausrc", `aufile,${await fileOf(next.play)}`);
              await remember({ ivrState: JSON.stringify({ state, play: next.play }) });
            });
          } else if (e.type === "CALL_CLOSED") {
            const reason = e.param ?? "";
            void queue.then(() => {
              if (answeredAt) finish({ answered: true });
              else if (/\b486\b|busy/i.test(reason)) finish({ answered: false, busy: true });
              else if (
                /\b(408|480|487|603)\b|timeout|terminated|declined|cancel/i.test(reason) ||
                reason === ""
              )
                finish({ answered: false });
              else finish({ answered: false, failed: `not connected: ${reason.slice(0, 120)}` });
            });
          }
        });
        void out.command("dial", `sip:${row.number}@${trunk().host}`).then((r) => {
          if (!r.ok) finish({ answered: false, failed: `dial refused: ${r.data.slice(0, 120)}` });
        });
      });
    } finally {
      // Nothing of a call stays on disk.
      rmSync(callDir, { recursive: true, force: true });
    }
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    await Promise.all([this.incoming?.stop(), this.outgoing?.stop()]);
    await this.report("not-running", "stopped");
  }
}
