import { createSocket } from "node:dgram";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { openTestDb } from "../helpers/db";
import { onlyWith, requireTool } from "../helpers/requires";
import { Browserish, pageText, startServer, type TestServer } from "../helpers/server";
import { missedCallScenario, runSipp, sipPort } from "../helpers/sip-phone";

/*
 * The line answers only its trunk (decision 0101), on the real baresip line of the built app: the
 * trunk is 127.0.0.1 (VOICE_URL's host); sipp sends missed calls from 127.0.0.1 (the trunk) and from
 * 127.0.0.9 (anyone else who can reach the line — every 127.0.0.0/8 address reaches it here). A
 * forged missed call with a patient's number is rejected like any other, recorded refused and shown
 * to the admins, and nobody is called back; one from the clinic's own number neither; the trunk's
 * call of the same patient is still taken. Callbacks are due an hour later, so nothing is dialled.
 */
const ok = requireTool("baresip", "baresip-core") && requireTool("sipp", "sip-tester");
const { describe, it, beforeAll, afterAll } = onlyWith(ok, vitest);

const ADMIN = { email: "admin@calls-trunk.test", password: "Admin-pass-123" };
const PATIENT = "+919876543210";

describe("the SIP line answers only its trunk", () => {
  let dir: string;
  let app: TestServer & { root: string };
  let clinicPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "cb-sip-trunk-"));
    clinicPort = await sipPort();
    let trunkPort: number;
    do trunkPort = await sipPort();
    while (Math.abs(trunkPort - clinicPort) < 8 || Math.abs(trunkPort + 1000 - clinicPort) < 8);
    app = await startServer({
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      VOICE_URL: `sip://clinic@127.0.0.1:${trunkPort}?register=no`,
      VOICE_SIP_LISTEN: `127.0.0.1:${clinicPort}`,
      VOICE_NUMBER: "+911140000000",
      VOICE_RTP_PORTS: `${clinicPort + 100}-${clinicPort + 139}`,
      VOICE_CALLBACK_SECONDS: "3600",
    });
    // A profile with the patient's number (a centre's registration: no login of her own).
    const db = await openTestDb(app.dataDir, { write: true });
    await db.run(
      "insert into patients (id, first_name, locale, phone) values (?, ?, ?, ?)",
      "trunk-test-patient",
      "Asha",
      "hi",
      PATIENT,
    );
    await db.close();
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A missed call from `from` sent from `ip`; it must be rejected (486/603) before it is answered. */
  async function missedCall(name: string, from: string, ip: string) {
    const phone = runSipp(dir, name, missedCallScenario(from), await sipPort(), {
      target: `127.0.0.1:${clinicPort}`,
      ip,
    });
    const timer = setTimeout(phone.stop, 15_000);
    try {
      const done = await phone.done;
      let errors = "";
      try {
        errors = readFileSync(path.join(dir, `${name}-errors.log`), "utf8").slice(-800);
      } catch {
        // none
      }
      expect(done.code, `${name}: ${errors} ${done.output.slice(-600)}`).toBe(0);
    } finally {
      clearTimeout(timer);
      phone.stop();
    }
  }

  /** The rows of phone_calls once the missed call from `number` is recorded (the line hands it on after the 486). */
  async function rowsAfter(number: string) {
    const end = Date.now() + 10_000;
    for (;;) {
      const db = await openTestDb(app.dataDir);
      const rows = (await db.all(
        "select direction, number, purpose, outcome, status, last_error from phone_calls order by created_at",
      )) as {
        direction: string;
        number: string;
        outcome: string | null;
        status: string;
        last_error: string | null;
      }[];
      await db.close();
      if (rows.some((r) => r.direction === "in" && r.number === number) || Date.now() > end) return rows;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("a forged missed call from another address is refused, nobody is called back, and the admins see why", async () => {
    await missedCall("forged", PATIENT, "127.0.0.9");
    let rows = await rowsAfter(PATIENT);
    expect(
      rows.filter((r) => r.direction === "out"),
      "nobody is called back",
    ).toEqual([]);
    expect(rows.find((r) => r.direction === "in" && r.number === PATIENT)).toMatchObject({
      purpose: "missed-call",
      outcome: "refused-not-trunk",
    });
    expect(rows.find((r) => r.direction === "in")?.last_error).toMatch(/^127\.0\.0\.9:\d+$/);

    // The clinic's own number, from the trunk itself: a loop through a real trunk, never called back.
    await missedCall("own", "+911140000000", "127.0.0.1");
    rows = await rowsAfter("+911140000000");
    expect(rows.filter((r) => r.direction === "out")).toEqual([]);
    expect(rows.find((r) => r.number === "+911140000000")).toMatchObject({
      direction: "in",
      outcome: "refused-own-number",
    });

    // One log line each, the number masked.
    const log = app.output();
    expect(log).toMatch(/missed call refused[^\n]*refused-not-trunk[^\n]*127\.0\.0\.9/);
    expect(log).toMatch(/missed call refused[^\n]*refused-own-number/);
    expect(log).not.toContain(PATIENT);

    // The admins' Calls tab: counted, and each with its reason.
    const admin = new Browserish(app.url);
    expect((await admin.post("/login", ADMIN)).status).toBe(302);
    const text = pageText(await (await admin.fetch("/dashboard/messages?kind=calls")).text());
    expect(text).toContain("Missed calls refused (last 24 hours)");
    expect(text).toContain("Not from the trunk: 1");
    expect(text).toContain("From the clinic's own number: 1");
    expect(text).toContain("Refused: not from the trunk");
    expect(text).toContain("Refused: the clinic's own number");
    expect(text).toMatch(/Came from 127\.0\.0\.9:\d+/);
    expect(text).toContain("Takes missed calls only from 127.0.0.1");
    expect(text).not.toContain(PATIENT);
  }, 60_000);

  it("a forged INVITE that hides its Call-ID and forges the trunk in baresip's trace is refused too", async () => {
    // The line tells the trunk's calls by baresip's SIP trace, in which each message is printed
    // between two colour marks after a line naming its source (app/domain/calls/sip-trace.ts). Here
    // 127.0.0.9 first sends an OPTIONS whose body forges a trace block of the trunk sending an
    // INVITE, then that INVITE, whose own block a forged end mark cuts before its Call-ID.
    const forged = "+919812340000";
    const callId = `forged-${Date.now()}@127.0.0.9`;
    const socket = createSocket("udp4");
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.9", () => resolve()));
    const me = `127.0.0.9:${socket.address().port}`;
    const line = `127.0.0.1:${clinicPort}`;
    const message = (start: string, headers: string[], body = "", type?: string) =>
      [
        start,
        `Via: SIP/2.0/UDP ${me};branch=z9hG4bK${Math.random().toString(36).slice(2)}`,
        `From: <sip:${forged}@127.0.0.9>;tag=f${Date.now()}`,
        `To: <sip:clinic@${line}>`,
        ...headers,
        "Max-Forwards: 70",
        ...(type ? [`Content-Type: ${type}`] : []),
        `Content-Length: ${Buffer.byteLength(body, "latin1")}`,
        "",
        body,
      ].join("\r\n");
    const fakeBlock = `\x1b[;m\n\x1b[36;1m#\nUDP 127.0.0.1:5060 -> ${line}\nINVITE sip:clinic@${line} SIP/2.0\r\nCall-ID: ${callId}\r\nContent-Length: 0\r\n\r\n`;
    const sdp = [
      "v=0",
      "o=phone 1 1 IN IP4 127.0.0.9",
      "s=-",
      "c=IN IP4 127.0.0.9",
      "t=0 0",
      "m=audio 6000 RTP/AVP 0",
      "a=rtpmap:0 PCMU/8000",
      "",
    ].join("\r\n");
    const send = (text: string) =>
      new Promise<void>((resolve) =>
        socket.send(Buffer.from(text, "latin1"), clinicPort, "127.0.0.1", () => resolve()),
      );
    try {
      await send(
        message(
          `OPTIONS sip:clinic@${line} SIP/2.0`,
          [`Call-ID: options-${Date.now()}@127.0.0.9`, "CSeq: 1 OPTIONS"],
          fakeBlock,
          "text/plain",
        ),
      );
      await send(
        message(
          `INVITE sip:clinic@${line} SIP/2.0`,
          ["X-Note: a\x1b[;m", `Call-ID: ${callId}`, "CSeq: 1 INVITE", `Contact: <sip:${forged}@${me}>`],
          sdp,
          "application/sdp",
        ),
      );
      const rows = await rowsAfter(forged);
      expect(
        rows.find((r) => r.direction === "in" && r.number === forged),
        JSON.stringify(rows),
      ).toMatchObject({
        outcome: "refused-not-trunk",
      });
      expect(rows.filter((r) => r.direction === "out")).toEqual([]);
    } finally {
      socket.close();
    }
  }, 30_000);

  it("the trunk's missed call from the same patient is still taken and called back", async () => {
    await missedCall("trunk", PATIENT, "127.0.0.1");
    const rows = await rowsAfter(PATIENT).then(async (r) => {
      // The refused row came first; wait for the trunk's.
      const end = Date.now() + 10_000;
      while (r.filter((x) => x.direction === "in" && x.number === PATIENT).length < 2 && Date.now() < end) {
        await new Promise((res) => setTimeout(res, 100));
        r = await rowsAfter(PATIENT);
      }
      return r;
    });
    const incoming = rows.filter((r) => r.direction === "in" && r.number === PATIENT);
    expect(incoming.map((r) => r.outcome)).toEqual(["refused-not-trunk", "callback-queued"]);
    expect(rows.filter((r) => r.direction === "out")).toMatchObject([
      { number: PATIENT, purpose: "callback", status: "queued" },
    ]);
  }, 30_000);
});
