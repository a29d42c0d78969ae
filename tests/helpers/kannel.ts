import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./server";

/*
 * A real SMS gateway for tests (../shared/notes/sms-gateway.md): Debian's Kannel — bearerbox,
 * smsbox and the fake SMS centre `fakesmsc` standing in for the operator — started from a
 * generated configuration in a temporary folder, everything on 127.0.0.1 and free ports.
 * `delivered()` reads what fakesmsc received, i.e. what a phone would get.
 *
 * Needs `apt-get install -y kannel kannel-extras` (fakesmsc is in kannel-extras).
 */

export const KANNEL_BINARIES = {
  bearerbox: "/usr/sbin/bearerbox",
  smsbox: "/usr/sbin/smsbox",
  fakesmsc: "/usr/lib/kannel/test/fakesmsc",
} as const;

export type DeliveredSms = {
  /** As Kannel passed it on: the sendsms `from`. */
  sender: string;
  /** The `to` number. */
  receiver: string;
  /** "text" (GSM 7-bit), "ucs-2", or "data" (8-bit). */
  coding: "text" | "ucs-2" | "data";
  /** What the phone shows (UCS-2 decoded; parts of a long message joined). */
  text: string;
  /** How many SMS it took (parts of a concatenated message). */
  parts: number;
};

export type Kannel = {
  /** An SMS_URL for the app: credentials in the userinfo, `from` as a parameter. */
  url: string;
  sendsmsPort: number;
  username: string;
  password: string;
  /** Every message fakesmsc received so far, in order (fakesmsc's own test traffic left out). */
  delivered(): DeliveredSms[];
  /** Waits until at least `n` messages have arrived (bounded), then returns them all. */
  waitForDelivered(n: number, timeoutMs?: number): Promise<DeliveredSms[]>;
  /** The tail of each process's log, for error messages. */
  logs(): string;
  /** Ends the processes this helper started (by their PIDs) and removes its folder. */
  stop(): Promise<void>;
};

export type KannelOptions = {
  /** Serve sendsms on this port (e.g. one an app was told about before Kannel ran); default: a free one. */
  sendsmsPort?: number;
  username?: string;
  password?: string;
  from?: string;
  /** Numbers matching this regular expression are refused by sendsms (Kannel's black-list-regex). */
  refuseNumbers?: string;
};

/** fakesmsc must send one message of its own; Kannel's answer to it ("ok") shows the chain works. */
const PING_FROM = "000111";
const PING_TO = "000222";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function requireBinaries() {
  const missing = Object.values(KANNEL_BINARIES).filter((b) => !existsSync(b));
  if (missing.length) {
    throw new Error(
      `Kannel is not installed (${missing.join(", ")} not found). Install Debian's packages: apt-get install -y kannel kannel-extras`,
    );
  }
}

function tail(file: string, lines = 25): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no output)";
  }
}

/** Resolves when `url` answers HTTP at all (any status), or rejects after `timeoutMs`. */
async function waitForHttp(url: string, timeoutMs: number, alive: () => string | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = alive();
    if (dead) throw new Error(dead);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await sleep(100);
  }
}

type Proc = { name: string; child: ChildProcess; out: string; exited: Promise<void> };

function run(name: string, bin: string, args: string[], dir: string): Proc {
  const out = path.join(dir, `${name}.out`);
  const fd = openSync(out, "a", 0o600);
  // Output goes straight to a file: nothing buffers in this process, and fakesmsc's file is what
  // delivered() reads.
  const child = spawn(bin, args, { cwd: dir, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) r();
    else child.once("exit", () => r());
  });
  child.once("error", () => {}); // a spawn failure shows as an early exit
  return { name, child, out, exited };
}

const isRunning = (p: Proc) => p.child.exitCode === null && p.child.signalCode === null && !!p.child.pid;

async function kill(p: Proc) {
  if (!isRunning(p)) return;
  p.child.kill("SIGTERM");
  await Promise.race([p.exited, sleep(5_000)]);
  if (isRunning(p)) {
    p.child.kill("SIGKILL");
    await Promise.race([p.exited, sleep(2_000)]);
  }
}

function config(
  dir: string,
  ports: Record<"admin" | "smsbox" | "smsc" | "sendsms", number>,
  o: Required<Omit<KannelOptions, "sendsmsPort" | "refuseNumbers">> & { refuseNumbers?: string },
) {
  const q = (s: string) => `"${s.replace(/"/g, "")}"`;
  return `group = core
admin-port = ${ports.admin}
admin-password = ${q(randomBytes(8).toString("hex"))}
admin-interface = 127.0.0.1
smsbox-port = ${ports.smsbox}
smsbox-interface = 127.0.0.1
box-allow-ip = 127.0.0.1
log-file = ${q(path.join(dir, "bearerbox.log"))}
log-level = 1

group = smsc
smsc = fake
smsc-id = FAKE
our-host = 127.0.0.1
port = ${ports.smsc}
connect-allow-ip = 127.0.0.1

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = ${ports.sendsms}
sendsms-interface = 127.0.0.1
log-file = ${q(path.join(dir, "smsbox.log"))}
log-level = 1

group = sendsms-user
username = ${q(o.username)}
password = ${q(o.password)}
user-allow-ip = 127.0.0.1
max-messages = 10
concatenation = true
${o.refuseNumbers ? `black-list-regex = ${q(o.refuseNumbers)}\n` : ""}
group = sms-service
keyword = default
text = "ok"
`;
}

/**
 * Starts bearerbox, fakesmsc and smsbox and waits (bounded) until sendsms answers and a message
 * has gone round the whole chain. Retries with other ports if one was taken meanwhile.
 */
export async function startKannel(opts: KannelOptions = {}): Promise<Kannel> {
  requireBinaries();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function startOnce(opts: KannelOptions): Promise<Kannel> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cb-kannel-"));
  const o = {
    username: opts.username ?? "app",
    password: opts.password ?? randomBytes(9).toString("base64url"),
    from: opts.from ?? "CareBridge",
    refuseNumbers: opts.refuseNumbers,
  };
  const ports = {
    admin: await freePort(),
    smsbox: await freePort(),
    smsc: await freePort(),
    sendsms: opts.sendsmsPort ?? (await freePort()),
  };
  const conf = path.join(dir, "kannel.conf");
  writeFileSync(conf, config(dir, ports, o), { mode: 0o600 });
  const procs: Proc[] = [];
  const fakeOut = path.join(dir, "fakesmsc.out");
  const stop = async () => {
    for (const p of [...procs].reverse()) await kill(p);
    rmSync(dir, { recursive: true, force: true });
  };
  const logs = () =>
    ["bearerbox.log", "bearerbox.out", "smsbox.log", "smsbox.out", "fakesmsc.out"]
      .map((f) => `--- ${f}\n${tail(path.join(dir, f))}`)
      .join("\n");
  const deadOne = () => {
    const dead = procs.find((p) => !isRunning(p));
    return dead ? `Kannel's ${dead.name} exited early (code ${dead.child.exitCode}):\n${logs()}` : null;
  };
  try {
    // 1. bearerbox: its admin HTTP port answers once it is up (the fake SMS centre's port with it).
    procs.push(run("bearerbox", KANNEL_BINARIES.bearerbox, ["-v", "1", conf], dir));
    await waitForHttp(`http://127.0.0.1:${ports.admin}/`, 15_000, deadOne);
    // 2. fakesmsc, the operator: one message of its own (required), then quiet for an hour.
    procs.push(
      run(
        "fakesmsc",
        KANNEL_BINARIES.fakesmsc,
        [
          "-H",
          "127.0.0.1",
          "-r",
          String(ports.smsc),
          "-i",
          "3600",
          "-m",
          "2",
          `${PING_FROM} ${PING_TO} text ping`,
        ],
        dir,
      ),
    );
    // 3. smsbox with the sendsms interface.
    procs.push(run("smsbox", KANNEL_BINARIES.smsbox, ["-v", "1", conf], dir));
    await waitForHttp(`http://127.0.0.1:${ports.sendsms}/`, 15_000, deadOne);
    // 4. The chain works: fakesmsc's message reached smsbox, whose answer reached fakesmsc.
    const deadline = Date.now() + 20_000;
    while (!parseFakesmsc(fakeOut).some((m) => m.receiver === PING_FROM)) {
      const dead = deadOne();
      if (dead) throw new Error(dead);
      if (Date.now() > deadline)
        throw new Error(`Kannel did not pass a message round within 20 s:\n${logs()}`);
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  // A long message shows once all its parts are in, as on a phone: read between two parts, it would
  // look like a message cut short (a test read one so under load).
  const delivered = () => parseFakesmsc(fakeOut).filter((m) => m.receiver !== PING_FROM && m.complete);
  const userinfo = `${encodeURIComponent(o.username)}:${encodeURIComponent(o.password)}`;
  return {
    url: `http://${userinfo}@127.0.0.1:${ports.sendsms}/cgi-bin/sendsms?from=${encodeURIComponent(o.from)}`,
    sendsmsPort: ports.sendsms,
    username: o.username,
    password: o.password,
    delivered,
    async waitForDelivered(n, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = delivered();
        if (got.length >= n) return got;
        if (Date.now() > deadline)
          throw new Error(`fakesmsc got ${got.length} of ${n} messages within ${timeoutMs} ms:\n${logs()}`);
        await sleep(50);
      }
    },
    logs,
    stop,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading fakesmsc's output

/** Kannel's url-encoding ("+" is a space, %XX a byte) back to bytes. */
function urlBytes(s: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "+") out.push(0x20);
    else if (c === "%" && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(...Buffer.from(c, "utf8"));
  }
  return Buffer.from(out);
}

function ucs2be(bytes: Buffer): string {
  const le = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  le.swap16();
  return le.toString("utf16le");
}

/**
 * The parts of a long message carry no coding in fakesmsc's output ("udh … data …"): UCS-2
 * big-endian has a control byte in nearly every pair (0x00 for Latin, 0x09 Devanagari and
 * Bengali, 0x0B Tamil), GSM text arrives as UTF-8 without any.
 */
function looksUcs2(bytes: Buffer): boolean {
  if (bytes.length % 2) return false;
  return bytes.some((b) => b < 0x20 && b !== 0x0a && b !== 0x0d);
}

/** Concatenation info from a UDH: reference, total and sequence number (8- or 16-bit reference). */
function concatInfo(udh: Buffer): { ref: number; total: number; seq: number } | null {
  let i = 1;
  while (i + 1 < udh.length) {
    const iei = udh[i];
    const len = udh[i + 1];
    const v = udh.subarray(i + 2, i + 2 + len);
    if (iei === 0x00 && len === 3) return { ref: v[0], total: v[1], seq: v[2] };
    if (iei === 0x08 && len === 4) return { ref: (v[0] << 8) | v[1], total: v[2], seq: v[3] };
    i += 2 + len;
  }
  return null;
}

/**
 * Every message in fakesmsc's output, in order: `Got message N: <sender receiver type data>` with
 * type text (plain), ucs-2 or data (url-encoded), or `udh <udh> data <data>` for one part of a
 * long message (parts are joined). A text with a line break is cut by fakesmsc's line format;
 * the app sends none.
 */
export function parseFakesmsc(file: string): (DeliveredSms & { complete: boolean })[] {
  let raw = "";
  try {
    raw = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: (DeliveredSms & { complete: boolean })[] = [];
  const long = new Map<
    string,
    { msg: DeliveredSms & { complete: boolean }; parts: Map<number, Buffer>; total: number }
  >();
  for (const line of raw.split("\n")) {
    const m = /Got message \d+: <(.*)>\s*$/.exec(line);
    if (!m) continue;
    const [sender, receiver, type, ...rest] = m[1].split(" ");
    const data = rest.join(" ");
    if (type === "text") out.push({ sender, receiver, coding: "text", text: data, parts: 1, complete: true });
    else if (type === "ucs-2")
      out.push({ sender, receiver, coding: "ucs-2", text: ucs2be(urlBytes(data)), parts: 1, complete: true });
    else if (type === "data")
      out.push({
        sender,
        receiver,
        coding: "data",
        text: urlBytes(data).toString("latin1"),
        parts: 1,
        complete: true,
      });
    else if (type === "udh") {
      const udh = urlBytes(rest[0] ?? "");
      const body = urlBytes(rest.slice(2).join(" "));
      const info = concatInfo(udh);
      if (!info) {
        out.push({
          sender,
          receiver,
          coding: "data",
          text: body.toString("latin1"),
          parts: 1,
          complete: true,
        });
        continue;
      }
      const key = `${sender}|${receiver}|${info.ref}|${info.total}`;
      let entry = long.get(key);
      if (!entry || entry.parts.has(info.seq)) {
        entry = {
          msg: { sender, receiver, coding: "text", text: "", parts: 0, complete: false },
          parts: new Map(),
          total: info.total,
        };
        long.set(key, entry);
        out.push(entry.msg);
      }
      entry.parts.set(info.seq, body);
      const joined = Buffer.concat([...entry.parts.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b));
      entry.msg.parts = entry.parts.size;
      entry.msg.complete = entry.parts.size === entry.total;
      entry.msg.coding = looksUcs2(joined) ? "ucs-2" : "text";
      entry.msg.text = entry.msg.coding === "ucs-2" ? ucs2be(joined) : joined.toString("utf8");
    }
  }
  return out;
}
