/**
 * Where a missed call came from (decision 0101), read from baresip's SIP trace (`baresip -s`):
 * baresip 1.0 tells its controller the caller's URI and the Call-ID of an incoming call, but not the
 * address the INVITE came from, and the URI, Via and Contact are whatever the sender wrote. Its trace
 * prints every message it takes, after libre parsed it, as
 *
 *     ESC[36;1m#
 *     UDP 203.0.113.10:5060 -> 10.0.0.5:5062
 *     INVITE sip:+911140000000@… SIP/2.0
 *     …the message as received…ESC[;m
 *
 * and the second line is libre's own account of the packet's source and destination. The message in
 * between is the sender's, and can hold anything — a forged trace block too. So a call counts as the
 * trunk's only when (`verdict`):
 *
 * 1. an INVITE naming its Call-ID arrived (to the line's address) from a trusted address;
 * 2. nothing from an untrusted address names that Call-ID: not its message, nor what the trace shows
 *    after it up to the next block. libre ends the headers at the first empty line and refuses a
 *    header line without a colon, so a forged block can start only in a body, after the sender's
 *    headers; a forged end mark inside the headers (in a header's value) cuts the sender's block
 *    short, and the rest of its headers — its Call-ID — then shows after it, before any other block;
 * 3. no message from an untrusted address was too long to be read whole lately, and the trace did not
 *    have to drop messages younger than TRACE_KEEP_MS (a flood could push the sender's out).
 *
 * The controller reads the trace only after a mark of its own (a random word it sends the line, see
 * baresip.server.ts) came back through it, so every message before the call's event has been read.
 */

const START = "\x1b[36;1m#";
const END = "\x1b[;m";
/** Longer than any UDP datagram; a longer block (or what follows it) is kept cut. */
const MOST = 70_000;
/** How long blocks are kept, and how far back a cut one makes every call suspect. */
export const TRACE_KEEP_MS = 30_000;
/** What is kept at most; a block dropped younger than TRACE_KEEP_MS makes every call suspect for as long. */
const MOST_BLOCKS = 5_000;
const MOST_CHARS = 16_000_000;

export type TraceBlock = {
  at: number;
  from: string;
  to: string;
  /** The message as printed (latin1: one character per byte). */
  text: string;
  /** What the trace shows after the block's end mark, up to the next block (baresip's log, or the rest of a cut message). */
  tail: string;
  /** Longer than MOST: kept cut, and its sender's calls lately are refused. */
  cut: boolean;
};

export class SipTrace {
  blocks: TraceBlock[] = [];
  /** When a block was last dropped before its time (a flood): the calls around it cannot be told. */
  overflowAt = 0;
  private chars = 0;
  private pending = "";
  private inBlock = false;
  private last: TraceBlock | null = null;
  private afterEnd = false;
  private waiters = new Set<() => void>();

  /** Takes what baresip wrote on stdout (as latin1); returns what was not trace (its own log lines). */
  push(chunk: string, now = Date.now()): string {
    this.pending += chunk;
    let said = "";
    for (;;) {
      if (this.inBlock) {
        const end = this.pending.indexOf(END);
        if (end < 0) {
          if (this.pending.length > MOST) {
            this.close(this.pending.slice(0, MOST), now, true);
            this.pending = "";
          }
          break;
        }
        this.close(this.pending.slice(0, end), now, false);
        this.pending = this.pending.slice(end + END.length);
        // The line feed baresip prints after its end mark.
        this.afterEnd = true;
        continue;
      }
      if (this.afterEnd && this.pending) {
        this.afterEnd = false;
        if (this.pending.startsWith("\n")) this.pending = this.pending.slice(1);
      }
      const nl = this.pending.indexOf("\n");
      if (nl < 0) break;
      const line = this.pending.slice(0, nl);
      this.pending = this.pending.slice(nl + 1);
      if (line === START) {
        this.inBlock = true;
        this.last = null;
      } else {
        said += `${line}\n`;
        if (this.last && this.last.tail.length < MOST) this.last.tail += `${line}\n`;
        else if (this.last) this.last.cut = true;
      }
    }
    for (const wake of [...this.waiters]) wake();
    return said;
  }

  private close(body: string, now: number, cut: boolean) {
    this.inBlock = false;
    const nl = body.indexOf("\n");
    const head = /^[A-Z]+ (\S+) -> (\S+)$/.exec(nl < 0 ? body : body.slice(0, nl));
    const text = nl < 0 ? "" : body.slice(nl + 1);
    const block = { at: now, from: head?.[1] ?? "", to: head?.[2] ?? "", text, tail: "", cut };
    this.blocks.push(block);
    this.chars += text.length;
    this.last = cut ? null : block;
    const old = now - TRACE_KEEP_MS;
    while (
      this.blocks.length &&
      (this.blocks.length > MOST_BLOCKS || this.chars > MOST_CHARS || this.blocks[0].at < old)
    ) {
      const gone = this.blocks.shift()!;
      this.chars -= gone.text.length;
      if (gone.at >= old) this.overflowAt = now;
    }
  }

  /** Resolves once a block containing `word` was read (true), or after `ms` (false). */
  seen(word: string, ms: number): Promise<boolean> {
    const has = () => this.blocks.some((b) => b.text.includes(word));
    if (has()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(ok);
      };
      const check = () => {
        if (has()) done(true);
      };
      const timer = setTimeout(() => done(false), ms);
      this.waiters.add(check);
    });
  }
}

export type Verdict = { trunk: true; source: string } | { trunk: false; source: string | null; why: string };

/**
 * Whether the call `callId` came from the trunk (see the rules above). `listen` is the line's
 * address as the trace writes it (host:port); `trusted` says whether a source (address:port) is the
 * trunk's.
 */
export function verdict(
  trace: { blocks: TraceBlock[]; overflowAt: number },
  callId: string,
  listen: string,
  trusted: (source: string) => boolean,
  now = Date.now(),
): Verdict {
  // An id with anything but visible ASCII cannot be matched byte for byte: refused.
  if (!/^[\x21-\x7e]{1,256}$/.test(callId)) return { trunk: false, source: null, why: "unusable Call-ID" };
  if (trace.overflowAt >= now - TRACE_KEEP_MS)
    return { trunk: false, source: null, why: "too many messages lately to tell" };
  const recent = trace.blocks.filter((b) => b.at >= now - TRACE_KEEP_MS && b.from !== listen);
  const untrusted = recent.filter((b) => !trusted(b.from));
  const naming = untrusted.find((b) => b.text.includes(callId) || b.tail.includes(callId));
  if (naming) return { trunk: false, source: naming.from, why: "from an address that is not the trunk's" };
  const cut = untrusted.find((b) => b.cut);
  if (cut)
    return { trunk: false, source: cut.from, why: "a message too long to read came from elsewhere lately" };
  const invite = recent.find(
    (b) => b.to === listen && b.text.startsWith("INVITE ") && b.text.includes(callId) && trusted(b.from),
  );
  if (!invite) return { trunk: false, source: null, why: "its INVITE was not seen" };
  return { trunk: true, source: invite.from };
}
