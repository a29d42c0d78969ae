import { describe, expect, it } from "vitest";
import { trustedEntry } from "~/config-phone-line.server";
import { SipTrace, verdict } from "~/domain/calls/sip-trace";

/*
 * Where a missed call came from (decision 0101), read from baresip's SIP trace as it prints it: a
 * colour mark, the line "UDP source -> destination", the message, an end mark. The message is the
 * sender's and may forge marks of its own.
 */
const LINE = "10.0.0.5:5062";
const TRUNK = "203.0.113.10:5060";
const START = "\x1b[36;1m#\n";
const END = "\x1b[;m\n";
const block = (from: string, message: string, to = LINE) => `${START}UDP ${from} -> ${to}\n${message}${END}`;
const invite = (callId: string, extra: string[] = []) =>
  [
    `INVITE sip:+911140000000@${LINE} SIP/2.0`,
    "Via: SIP/2.0/UDP x;branch=z9hG4bK1",
    ...extra,
    `Call-ID: ${callId}`,
    "CSeq: 1 INVITE",
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n");
const trusted = (source: string) => source.startsWith("203.0.113.10:");

function traced(...chunks: string[]) {
  const trace = new SipTrace();
  let said = "";
  for (const c of chunks) said += trace.push(c);
  return { trace, said };
}

describe("baresip's SIP trace (decision 0101)", () => {
  it("takes the trunk's INVITE, and keeps the trace out of what baresip said", () => {
    const { trace, said } = traced(
      "baresip is ready.\n",
      block(TRUNK, invite("abc@trunk")),
      "ua: incoming\n",
    );
    expect(verdict(trace, "abc@trunk", LINE, trusted)).toEqual({ trunk: true, source: TRUNK });
    expect(said).toBe("baresip is ready.\nua: incoming\n");
  });

  it("reads blocks split anywhere across chunks", () => {
    const all = block(TRUNK, invite("abc@trunk"));
    const { trace } = traced(...[...all].map((c) => c));
    expect(verdict(trace, "abc@trunk", LINE, trusted).trunk).toBe(true);
  });

  it("refuses an INVITE from elsewhere, and one whose INVITE it never saw", () => {
    const { trace } = traced(block("198.51.100.7:5060", invite("x@y")));
    expect(verdict(trace, "x@y", LINE, trusted)).toMatchObject({
      trunk: false,
      source: "198.51.100.7:5060",
    });
    expect(verdict(trace, "other@y", LINE, trusted).trunk).toBe(false);
  });

  it("is not fooled by a trunk's block forged in a body and a Call-ID hidden behind a forged end mark", () => {
    const forgedTrunk = `${END}${START}UDP ${TRUNK} -> ${LINE}\n${invite("victim@x")}`;
    const options = [
      `OPTIONS sip:clinic@${LINE} SIP/2.0`,
      "Call-ID: options@x",
      "Content-Length: 99",
      "",
      forgedTrunk,
    ].join("\r\n");
    const evil = "198.51.100.7:5060";
    const { trace } = traced(
      block(evil, options),
      // Its INVITE: a header's value ends its block before its Call-ID.
      block(evil, invite("victim@x", ["X-Note: a\x1b[;m"])),
      block("127.0.0.1:40000", "OPTIONS sip:mark-1@x SIP/2.0\r\nCall-ID: mark-1\r\n\r\n"),
    );
    expect(verdict(trace, "victim@x", LINE, trusted)).toMatchObject({ trunk: false, source: evil });
  });

  it("refuses every call while a flood pushes messages out before their time", () => {
    const evil = "198.51.100.7:5060";
    const { trace } = traced(
      block(evil, invite("victim@x")),
      ...Array.from({ length: 5_000 }, (_, i) =>
        block(evil, `OPTIONS sip:x SIP/2.0\r\nCall-ID: f${i}\r\n\r\n`),
      ),
      block(TRUNK, invite("victim@x")),
    );
    expect(trace.blocks.some((b) => b.text.includes("victim@x") && b.from === evil)).toBe(false);
    expect(verdict(trace, "victim@x", LINE, trusted)).toMatchObject({ trunk: false });
  });

  it("refuses an id it cannot match byte for byte", () => {
    const { trace } = traced(block(TRUNK, invite("a b")));
    expect(verdict(trace, "a b", LINE, trusted).trunk).toBe(false);
  });

  it("waits for a word to come through the trace", async () => {
    const trace = new SipTrace();
    const seen = trace.seen("mark-42", 1_000);
    trace.push(block("127.0.0.1:40000", "OPTIONS sip:mark-42@x SIP/2.0\r\n\r\n"));
    expect(await seen).toBe(true);
    expect(await trace.seen("mark-43", 50)).toBe(false);
  });
});

describe("VOICE_SIP_TRUSTED entries", () => {
  it("takes addresses, CIDR ranges and host names, and nothing else", () => {
    for (const ok of ["203.0.113.10", "198.51.100.0/24", "2001:db8::/32", "sip.operator.example", "gw-1"])
      expect(trustedEntry(ok), ok).toBe(true);
    for (const bad of ["1.2.3.4/33", "1.2.3.4/", "host/24", "a b", "", "1.2.3.4/24/1", "-x.example"])
      expect(trustedEntry(bad), bad).toBe(false);
  });
});
