import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as vitest from "vitest";
import { expect } from "vitest";
import { eq } from "drizzle-orm";
import { pcmWav } from "../helpers/audio";
import { onlyWith, requireTool } from "../helpers/requires";
import { Browserish, pageText, startServer } from "../helpers/server";
import {
  claim,
  freshDomain,
  makeAdmin,
  makeExpert,
  makePatient,
  refusal,
  review,
  type Domain,
  type Person,
} from "../helpers/factories";
import {
  answeringScenario,
  bestMatch,
  missedCallScenario,
  registrarScenario,
  runSipp,
  samplesOf,
  sipPort as freePort,
} from "../helpers/sip-phone";

/*
 * Opinions heard by phone on a real SIP stack (decision 0080): baresip is the clinic's line, sipp
 * the patient's phone. A missed call is rejected before it is answered, and the callback plays the
 * expert's voice note only after the right year of birth was keyed; what the phone heard (echoed
 * back to the clinic's line and recorded there) is compared with the note's telephone copy.
 */
const ok =
  requireTool("baresip", "baresip-core") &&
  requireTool("sipp", "sip-tester") &&
  requireTool("espeak-ng", "espeak-ng") &&
  requireTool("sox", "sox");
const { describe, it, beforeAll, afterAll } = onlyWith(ok, vitest);

/** A 16 kHz WAV of a rising sweep with a wobble: nothing in a spoken prompt looks like it. */
function sweep(seconds: number): Buffer {
  const rate = 16_000;
  let phase = 0;
  return pcmWav(seconds * rate, rate, (i) => {
    const t = i / rate;
    phase += (2 * Math.PI * (300 + 1200 * t + 200 * Math.sin(9 * t))) / rate;
    return 9000 * Math.sin(phase);
  });
}

async function* chunks(buf: Buffer) {
  yield new Uint8Array(buf);
}

/** `p`, or a failure after `ms` naming what was awaited and what `diagnose` finds then. */
async function within<T>(
  what: string,
  p: Promise<T>,
  ms: number,
  diagnose: () => Promise<unknown>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void diagnose().then(
        (found) => reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(found)}`)),
        (e) => reject(new Error(`timed out waiting for ${what} (${String(e)})`)),
      );
    }, ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a sipp run said in its error log (`-error_file`), for a failure message. */
const sippErrors = (dir: string, name: string) => {
  try {
    return readFileSync(path.join(dir, `${name}-errors.log`), "utf8").slice(-1500);
  } catch {
    return "";
  }
};

const until = async (
  what: string,
  check: () => Promise<boolean>,
  ms = 30_000,
  onTimeout?: () => Promise<unknown>,
) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await onTimeout?.())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe("calls on a SIP line", () => {
  let d: Domain;
  let calls: typeof import("~/domain/calls/index.server");
  let dir: string;
  let clinicPort: number;
  let phonePort: number;
  let patient: Person;
  let phoneCopy: Float32Array;
  /** The first of the 40 UDP ports the calls' sound may use (VOICE_RTP_PORTS). */
  let rtpFrom: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "cb-sip-"));
    clinicPort = await freePort();
    // The clinic's lines take clinicPort … clinicPort + 3; the phone's media is phonePort + 1000.
    do phonePort = await freePort();
    while (Math.abs(phonePort - clinicPort) < 8 || Math.abs(phonePort + 1000 - clinicPort) < 8);
    // The sound's ports: 40 above the clinic's lines, clear of the phone's.
    rtpFrom = clinicPort + 100;
    if (Math.abs(phonePort - rtpFrom) < 50 || Math.abs(phonePort + 1000 - rtpFrom) < 50) rtpFrom += 200;
    d = await freshDomain({
      VOICE_URL: `sip://clinic@127.0.0.1:${phonePort}?register=no`,
      VOICE_SIP_LISTEN: `127.0.0.1:${clinicPort}`,
      VOICE_SIP_DUMP_DIR: path.join(dir, "dump"),
      VOICE_NUMBER: "+911140000000",
      VOICE_SIP_USERS: "clinic-gateway",
      VOICE_RTP_PORTS: `${rtpFrom}-${rtpFrom + 39}`,
      VOICE_CALLBACK_SECONDS: "0",
      VOICE_RETRY_SECONDS: "1",
      LOG_LEVEL: process.env.TEST_LOG ?? "silent",
    });
    const { db } = d.db;
    const { patients, voiceNotes } = d.schema;
    patient = await makePatient({ phone: "+919876543210", locale: "hi" });
    await db().update(patients).set({ birthYear: 1984 }).where(eq(patients.accountId, patient.id));
    const expert = await makeExpert();
    const { makeReport } = await import("../helpers/factories");
    const report = await makeReport(patient);
    await claim(expert, report);
    const note = await d.records.storeUpload(chunks(sweep(2)), {
      maxBytes: 1 << 20,
      allowed: "audio",
      fileName: "note.wav",
    });
    await d.consultation.addVoiceNote(expert, report._id, { kind: "explanation", language: "hi" }, note);
    await review(expert, report);
    const [row] = await db().select().from(voiceNotes).where(eq(voiceNotes.reportId, report._id));
    expect(row.phoneFileKey, "the note's telephone copy is made when it is stored").toBeTruthy();
    const stream = await d.records.openDecrypted(row.phoneFileKey!);
    const parts: Buffer[] = [];
    for await (const c of stream) parts.push(c as Buffer);
    phoneCopy = samplesOf(Buffer.concat(parts));
    expect(phoneCopy.length).toBeGreaterThan(15_000); // 2 s at 8 kHz
    calls = await import("~/domain/calls/index.server");
    await calls.startCalls();
    calls.repollCallSender(200);
  }, 60_000);

  afterAll(async () => {
    await calls?.stopCalls();
    await d?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a missed call is rejected; the callback plays the voice note only after the right year of birth", async () => {
    const { db } = d.db;
    const { phoneCalls, auditEvents } = d.schema;
    // The phone: wrong digits at 1.5 s, the right ones at 5 s, hangs up 14 s later.
    const phone = runSipp(
      dir,
      "phone",
      answeringScenario([
        { wait: 1500 },
        { keys: "1111" },
        { wait: 3000 },
        { keys: "1984" },
        { wait: 14_000 },
        "hang up",
      ]),
      phonePort,
    );
    const missed = runSipp(dir, "missed", missedCallScenario("+919876543210"), await freePort(), {
      target: `127.0.0.1:${clinicPort}`,
    });
    // Bounded waits that say what happened (the rows, each sipp's errors), and no sipp left behind
    // for the next test's phone to collide with.
    const diagnose = async () => ({
      calls: await db().select().from(phoneCalls),
      missed: sippErrors(dir, "missed"),
      phone: sippErrors(dir, "phone"),
    });
    let rejected: Awaited<typeof missed.done>;
    let answered: Awaited<typeof phone.done>;
    try {
      rejected = await within("the missed call to be rejected", missed.done, 15_000, diagnose);
      answered = await within("the callback to be answered and hung up", phone.done, 35_000, diagnose);
    } finally {
      missed.stop();
      phone.stop();
    }
    expect(rejected.code, `sipp: ${rejected.output}`).toBe(0); // 486/603, never 200: the caller pays nothing
    expect(answered.code, `sipp: ${answered.output}`).toBe(0);
    await until("the callback to be settled", async () => {
      const rows = await db().select().from(phoneCalls).where(eq(phoneCalls.direction, "out"));
      return rows.length === 1 && rows[0].status === "done";
    });
    const rows = await db().select().from(phoneCalls);
    const incoming = rows.find((r) => r.direction === "in")!;
    const out = rows.find((r) => r.direction === "out")!;
    expect(incoming).toMatchObject({
      purpose: "missed-call",
      outcome: "callback-queued",
      number: "+919876543210",
    });
    expect(out).toMatchObject({ purpose: "callback", outcome: "heard", attempts: 1, locale: "hi" });
    expect(out.verifiedAt).toBeTruthy();
    expect(out.durationMs).toBeGreaterThan(9_000);

    // The call came from the clinic's published number (the caller ID a trunk passes on), not from
    // the line's user name, and its sound on a port of VOICE_RTP_PORTS (decision 0093).
    // (The first INVITE received with its sound described; a retransmission or a line cut short by a
    // busy machine's trace is passed over.)
    const invite =
      phone
        .messages()
        .split(/\n-{20,}[^\n]*\n/)
        .find((m) => /received[\s\S]*INVITE sip:/.test(m) && /^m=audio \d+/m.test(m)) ?? "";
    expect(invite, phone.messages().slice(0, 1500)).toMatch(/^From:[^\n]*<sip:\+911140000000@/m);
    const media = Number(/^m=audio (\d+)/m.exec(invite)?.[1]);
    expect(media, invite.slice(0, 800)).toBeGreaterThanOrEqual(rtpFrom);
    expect(media, invite.slice(0, 800)).toBeLessThanOrEqual(rtpFrom + 39);

    // What the phone heard: the note, well after the right digits, and not before them.
    const dump = path.join(dir, "dump");
    const heard = samplesOf(
      readFileSync(
        path.join(
          dump,
          readdirSync(dump)
            .filter((f) => f.endsWith("-dec.wav"))
            .sort()
            .at(-1)!,
        ),
      ),
    );
    const needle = phoneCopy.subarray(6_000, 8_000);
    const rightDigitsAt = 5.5 * 8000;
    const match = bestMatch(heard, needle);
    expect(match.score, "the voice note reached the phone").toBeGreaterThan(0.8);
    expect(match.at).toBeGreaterThan(rightDigitsAt);
    expect(
      bestMatch(heard, needle, 0, rightDigitsAt).score,
      "nothing of it before the right digits",
    ).toBeLessThan(0.5);

    // The access trail says it was heard by phone.
    const events = await db().select().from(auditEvents).where(eq(auditEvents.action, "patient.call_heard"));
    expect(events).toHaveLength(1);
    const trail = await d.care.accessTrail(patient, { locale: "hi" }, { limit: 10 } as never);
    expect(trail.items.map((e) => e.text)).toContain("राय फ़ोन पर सुनी गई");
  }, 60_000);

  it("a busy phone is tried three times, then the call is failed for the admins", async () => {
    const { db } = d.db;
    const { phoneCalls } = d.schema;
    const phone = runSipp(dir, "busy", answeringScenario("busy"), phonePort, { calls: 3 });
    try {
      const queued = await d.calls.queueCall({
        number: "+919812345678",
        patientId: null,
        purpose: "general",
        locale: "en",
        at: new Date(),
      });
      expect(queued.queued).toBe(true);
      await until(
        "three attempts",
        async () => {
          const [row] = await db().select().from(phoneCalls).where(eq(phoneCalls.number, "+919812345678"));
          return row?.status === "failed";
        },
        20_000,
        async () => ({ calls: await db().select().from(phoneCalls), phone: sippErrors(dir, "busy") }),
      );
      const [row] = await db().select().from(phoneCalls).where(eq(phoneCalls.number, "+919812345678"));
      expect(row).toMatchObject({ attempts: 3, outcome: "busy", status: "failed" });
    } finally {
      phone.stop();
    }
  }, 30_000);

  it("a missed call is taken whatever form of the clinic's number the trunk addresses it to, and called back", async () => {
    const { db } = d.db;
    const { phoneCalls } = d.schema;
    // International with and without +, with 00, national with its 0, bare, and VOICE_SIP_USERS.
    const forms = [
      "+911140000000",
      "911140000000",
      "00911140000000",
      "01140000000",
      "1140000000",
      "clinic-gateway",
    ];
    const callers = forms.map((_, i) => `+9198000001${String(i).padStart(2, "0")}`);
    // The phone answers each callback and hangs up after a moment.
    const phone = runSipp(dir, "forms-phone", answeringScenario([{ wait: 800 }, "hang up"]), phonePort, {
      calls: forms.length,
    });
    const diagnose = async () => ({
      calls: await db().select().from(phoneCalls),
      phone: sippErrors(dir, "forms-phone"),
    });
    try {
      for (const [i, to] of forms.entries()) {
        const name = `missed-${i}`;
        const missed = runSipp(dir, name, missedCallScenario(callers[i], to), await freePort(), {
          target: `127.0.0.1:${clinicPort}`,
        });
        try {
          const rejected = await within(`the missed call to ${to}`, missed.done, 15_000, diagnose);
          // 486 before it is answered (never 404: the line knows the number in this form).
          expect(rejected.code, `${to}: ${sippErrors(dir, name)} ${rejected.output.slice(-600)}`).toBe(0);
        } finally {
          missed.stop();
        }
      }
      await until(
        "every caller to be called back",
        async () => {
          const rows = await db().select().from(phoneCalls);
          return callers.every((n) =>
            rows.some((r) => r.direction === "out" && r.number === n && r.status === "done"),
          );
        },
        60_000,
        diagnose,
      );
    } finally {
      phone.stop();
    }
    const rows = await db().select().from(phoneCalls);
    for (const n of callers) {
      expect(rows.find((r) => r.direction === "in" && r.number === n)).toMatchObject({
        purpose: "missed-call",
        outcome: "general-queued",
      });
      expect(rows.find((r) => r.direction === "out" && r.number === n)?.answeredAt, n).toBeTruthy();
    }
  }, 120_000);

  it("the line says what it answers to, its ports, and that it does not register (register=no)", async () => {
    const admin = await makeAdmin();
    const line = await calls.phoneLine(admin);
    expect(line).toMatchObject({
      kind: "sip",
      number: "+911140000000",
      trunk: `127.0.0.1:${phonePort}`,
      listen: `127.0.0.1:${clinicPort}`,
      rtpPorts: [rtpFrom, rtpFrom + 39],
    });
    expect(line.answersTo).toEqual([
      "clinic",
      "+911140000000",
      "911140000000",
      "00911140000000",
      "01140000000",
      "1140000000",
      "clinic-gateway",
    ]);
    expect(line.nodes).toHaveLength(1);
    expect(line.nodes[0].state).toBe("no-registration");
    const patient = await makePatient();
    expect((await refusal(() => calls.phoneLine(patient))).code).toBe("forbidden");
  });
});

/*
 * The admins' Calls tab (decision 0093) over HTTP against the built app: with no VOICE_URL it says
 * no line is set up (not merely "no calls yet"); with a SIP trunk it says whether the line is
 * registered — here with a registrar (sipp) that accepts it.
 */
describe("the Calls tab says whether a line is set up and registered", () => {
  const ADMIN = { email: "admin@calls-line.test", password: "Admin-pass-123" };
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "cb-sip-line-"));
    // The suite above set the clinic's line in this process's environment, which servers inherit.
    for (const key of Object.keys(process.env)) if (key.startsWith("VOICE_")) delete process.env[key];
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function callsTab(env: Record<string, string>, wait?: (text: string) => boolean) {
    const server = await startServer({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ...env });
    try {
      const admin = new Browserish(server.url);
      expect((await admin.post("/login", ADMIN)).status).toBe(302);
      const end = Date.now() + 20_000;
      for (;;) {
        const text = pageText(await (await admin.fetch("/dashboard/messages?kind=calls")).text());
        if (!wait || wait(text) || Date.now() > end) return text;
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      await server.stop();
    }
  }

  it("no VOICE_URL: no line is set up, and no calls yet", async () => {
    const text = await callsTab({});
    expect(text).toContain("The phone line");
    expect(text).toContain("No phone line is set up");
    expect(text).toContain("No calls yet.");
  }, 60_000);

  it("a SIP trunk that accepts the registration: registered", async () => {
    const trunkPort = await freePort();
    let clinicPort: number;
    do clinicPort = await freePort();
    while (Math.abs(clinicPort - trunkPort) < 8 || Math.abs(clinicPort - trunkPort - 1000) < 8);
    const registrar = runSipp(dir, "registrar", registrarScenario(), trunkPort);
    try {
      const text = await callsTab(
        {
          VOICE_URL: `sip://clinic:secret@127.0.0.1:${trunkPort}`,
          VOICE_SIP_LISTEN: `127.0.0.1:${clinicPort}`,
          VOICE_NUMBER: "+911140000000",
          VOICE_RTP_PORTS: `${clinicPort + 100}-${clinicPort + 139}`,
        },
        (t) => t.includes("Registered with the trunk"),
      );
      expect(text, `${sippErrors(dir, "registrar")}\n${registrar.messages()}`).toContain(
        "Registered with the trunk",
      );
      expect(text).toContain(`SIP trunk or gateway 127.0.0.1:${trunkPort}`);
      expect(text).toContain("+911140000000, 911140000000, 00911140000000, 01140000000, 1140000000");
      expect(text).toContain(`UDP ports ${clinicPort + 100}–${clinicPort + 139}`);
      expect(registrar.messages()).toMatch(/REGISTER sip:127\.0\.0\.1/);
    } finally {
      registrar.stop();
    }
  }, 60_000);
});
