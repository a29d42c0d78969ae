import { spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { createServer } from "node:net";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * sipp as a patient's phone in tests (decision 0080): a scenario file written from a few lines,
 * run as a child process (killed by PID at the end). Keys go as SIP INFO (application/dtmf-relay),
 * which baresip reports as DTMF; the RTP the phone hears is echoed back (`-rtp_echo`), so what the
 * clinic's line records coming back is what the phone heard.
 */

const SDP = `v=0
      o=phone 1 1 IN IP[local_ip_type] [local_ip]
      s=-
      c=IN IP[media_ip_type] [media_ip]
      t=0 0
      m=audio [media_port] RTP/AVP 0 101
      a=rtpmap:0 PCMU/8000
      a=rtpmap:101 telephone-event/8000`;

const reply = (code: string, sdp = false) => `  <send${code === "200 OK" ? ' retrans="500"' : ""}>
    <![CDATA[
      SIP/2.0 ${code}
      [last_Via:]
      [last_From:]
      [last_To:];tag=[pid]SIPpTag01[call_number]
      [last_Call-ID:]
      [last_CSeq:]
      Contact: <sip:[local_ip]:[local_port];transport=[transport]>
      ${sdp ? "Content-Type: application/sdp\n      Content-Length: [len]\n\n      " + SDP : "Content-Length: 0"}
    ]]>
  </send>`;

let cseq = 10;
const info = (key: string) => `  <send>
    <![CDATA[
      INFO [$contact] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: [$to];tag=[pid]SIPpTag01[call_number]
      To: [$from]
      Call-ID: [call_id]
      CSeq: ${cseq++} INFO
      Contact: <sip:[local_ip]:[local_port];transport=[transport]>
      Max-Forwards: 70
      Content-Type: application/dtmf-relay
      Content-Length: [len]

      Signal=${key}
      Duration=160
    ]]>
  </send>
  <recv response="200"/>
  <pause milliseconds="150"/>`;

const receiveInvite = `  <recv request="INVITE" crlf="true">
    <action>
      <ereg regexp=".*" search_in="hdr" header="From:" assign_to="from"/>
      <ereg regexp=".*" search_in="hdr" header="To:" assign_to="to"/>
      <ereg regexp="sip:[^>;]*" search_in="hdr" header="Contact:" assign_to="contact"/>
    </action>
  </recv>`;

const bye = `  <send retrans="500">
    <![CDATA[
      BYE [$contact] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: [$to];tag=[pid]SIPpTag01[call_number]
      To: [$from]
      Call-ID: [call_id]
      CSeq: 99 BYE
      Max-Forwards: 70
      Content-Length: 0
    ]]>
  </send>
  <recv response="200"/>`;

export type PhoneStep = { wait: number } | { keys: string } | "hang up";

/** Whether `port` is free on 127.0.0.1 for both TCP and UDP (SIP and RTP are UDP). */
async function freeOn(port: number): Promise<boolean> {
  const tcp = await new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
  if (!tcp) return false;
  return new Promise<boolean>((resolve) => {
    const u = createSocket("udp4");
    u.once("error", () => resolve(false));
    u.bind(port, "127.0.0.1", () => u.close(() => resolve(true)));
  });
}

/**
 * A port free with its neighbours and its media port (+ 1000), on TCP and UDP alike, below the
 * kernel's ephemeral range (32768 and up here): baresip binds its port + 1 for TLS only when the
 * server starts, seconds after this look, and a port in the ephemeral range could meanwhile be
 * given to any outgoing connection of the run (CI: "SIP/TLS transport failed: Address already in
 * use"). Other tests take their ports from the kernel, so none picks one down here.
 */
export async function sipPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    // sipp's media port is port + 1000; the clinic's second line is port + 2 (each takes its port + 1
    // for TLS too); the sound's ports are up to port + 339 (rtpFrom).
    const all = await Promise.all([port, port + 1, port + 2, port + 3, port + 1000].map(freeOn));
    if (all.every(Boolean)) return port;
  }
}

/** A phone that answers, then follows `steps` (pauses, keys, hanging up); or that is busy. */
export function answeringScenario(steps: PhoneStep[] | "busy"): string {
  const body =
    steps === "busy"
      ? `  <recv request="INVITE"/>\n${reply("486 Busy Here")}\n  <recv request="ACK"/>`
      : [
          receiveInvite,
          reply("180 Ringing"),
          reply("200 OK", true),
          '  <recv request="ACK" rtd="true" crlf="true"/>',
          ...steps.map((s) =>
            s === "hang up"
              ? bye
              : "wait" in s
                ? `  <pause milliseconds="${s.wait}"/>`
                : [...s.keys].map(info).join("\n"),
          ),
          // The clinic may end the call first: then its BYE is answered.
          steps.at(-1) === "hang up"
            ? ""
            : `  <recv request="BYE"/>\n${reply("200 OK").replace(' retrans="500"', "")}`,
        ].join("\n");
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>\n<scenario name="patient's phone">\n${body}\n</scenario>\n`;
}

/**
 * A missed call from `from` (E.164) to the clinic, addressed to `to` (the user part: the clinic's
 * number in whatever form a trunk or gateway writes it): rejected (486 or 603) before it is answered.
 */
export function missedCallScenario(from: string, to = "clinic"): string {
  const head = (method: string) => `      ${method} sip:${to}@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:${from}@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]`;
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="missed call">
  <send retrans="500">
    <![CDATA[
${head("INVITE")}
      To: <sip:${to}@[remote_ip]:[remote_port]>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: <sip:${from}@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Type: application/sdp
      Content-Length: [len]

      ${SDP}
    ]]>
  </send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="603" optional="true" next="ack"/>
  <recv response="486"/>
  <label id="ack"/>
  <send>
    <![CDATA[
${head("ACK")}
      [last_To:]
      Call-ID: [call_id]
      CSeq: 1 ACK
      Max-Forwards: 70
      Content-Length: 0
    ]]>
  </send>
</scenario>
`;
}

/** A registrar (an operator's trunk, a GSM gateway) that accepts one registration. */
export function registrarScenario(): string {
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="registrar">
  <recv request="REGISTER"/>
  <send>
    <![CDATA[
      SIP/2.0 200 OK
      [last_Via:]
      [last_From:]
      [last_To:];tag=[pid]SIPpTag01[call_number]
      [last_Call-ID:]
      [last_CSeq:]
      [last_Contact:];expires=600
      Expires: 600
      Content-Length: 0
    ]]>
  </send>
</scenario>
`;
}

export type SippRun = {
  done: Promise<{ code: number | null; output: string }>;
  stop: () => void;
  /** Every SIP message the phone sent and received so far (sipp's -trace_msg). */
  messages: () => string;
};

/** Runs sipp with `scenario` (written into `dir`) on 127.0.0.1:`port`; `target` makes it call out. */
export function runSipp(
  dir: string,
  name: string,
  scenario: string,
  port: number,
  opts: { target?: string; calls?: number; ip?: string } = {},
): SippRun {
  const file = path.join(dir, `${name}.xml`);
  writeFileSync(file, scenario);
  const args = [
    "-sf",
    file,
    "-i",
    // Any 127.0.0.0/8 address reaches the clinic's line on this machine: a caller that is not the trunk.
    opts.ip ?? "127.0.0.1",
    "-p",
    String(port),
    "-m",
    String(opts.calls ?? 1),
    "-nostdin",
    "-mp",
    String(port + 1000),
  ];
  if (!opts.target) args.push("-rtp_echo");
  else args.push(opts.target);
  const messageFile = path.join(dir, `${name}-messages.log`);
  args.push("-trace_err", "-error_file", path.join(dir, `${name}-errors.log`));
  args.push("-trace_msg", "-message_file", messageFile);
  const child = spawn("sipp", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
  child.stderr.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
  const done = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, output })),
  );
  return {
    done,
    stop: () => {
      if (child.exitCode === null) child.kill("SIGKILL");
    },
    messages: () => {
      try {
        return readFileSync(messageFile, "utf8");
      } catch {
        return "";
      }
    },
  };
}

/** The 16-bit samples of a WAV as numbers in −1…1. */
export function samplesOf(wav: Buffer): Float32Array {
  let at = 12;
  while (at + 8 <= wav.length) {
    const id = wav.toString("ascii", at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === "data") {
      const end = Math.min(wav.length, at + 8 + size);
      const out = new Float32Array(Math.floor((end - at - 8) / 2));
      for (let i = 0; i < out.length; i++) out[i] = wav.readInt16LE(at + 8 + i * 2) / 32768;
      return out;
    }
    at += 8 + size + (size % 2);
  }
  return new Float32Array(0);
}

/** Where `needle` best matches inside `hay` (normalised cross-correlation): its sample offset and score. */
export function bestMatch(
  hay: Float32Array,
  needle: Float32Array,
  from = 0,
  to = hay.length,
): { at: number; score: number } {
  let nn = 0;
  for (const v of needle) nn += v * v;
  let best = { at: -1, score: 0 };
  for (let i = from; i + needle.length <= Math.min(to, hay.length); i++) {
    let dot = 0;
    let hh = 0;
    for (let j = 0; j < needle.length; j++) {
      const h = hay[i + j];
      dot += h * needle[j];
      hh += h * h;
    }
    const score = hh > 0 ? dot / Math.sqrt(hh * nn) : 0;
    if (score > best.score) best = { at: i, score };
  }
  return best;
}
