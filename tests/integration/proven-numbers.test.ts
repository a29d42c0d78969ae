import { createHmac, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, signupViaApi, uploadSamplePdf } from "../helpers/api";
import { openTestDb, type TestDb } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { codeFrom, startSmtp } from "../helpers/smtp";

/*
 * A number is called only once proven to be hers (decision 0102), over HTTP against the built app.
 * A patient who typed someone else's number as her contact number cannot get it called — "call me"
 * is refused, an opinion queues no call to it — until she types the code sent to it by SMS; a wrong,
 * used, expired or another profile's code proves nothing, a stranger cannot prove it for her, too many
 * tries are a 429. A missed call from the number to the clinic proves it too. SMS go to the server's
 * outbox (data/sms-outbox).
 */

const ADMIN = { email: "admin@proven.test", password: "Admin-pass-123" };
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let api: ReturnType<typeof apiClient>;
let db: TestDb;
let expertToken = "";
let provider: Server;
const people: Record<string, { token: string; id: string; number: string }> = {};

/** A unique Indian mobile number: its 10 digits and its E.164 form. */
function mobile() {
  const national = `98${String(randomBytes(4).readUInt32BE(0) % 100_000_000).padStart(8, "0")}`;
  return { national, e164: `+91${national}` };
}

/** A patient who signed up with an e-mail and typed `number` as her contact number. */
async function patient(key: string, number = mobile()) {
  const r = await signupViaApi(api, smtp, codeFrom, {
    email: `${key}-${randomBytes(3).toString("hex")}@proven.test`,
    firstName: key,
    extra: { contactNumber: number.national },
  });
  people[key] = { token: r.token, id: r.user._id, number: number.e164 };
  return people[key];
}

/** The code texts the server sent to `e164`, oldest first. */
function codesTo(e164: string): { text: string; code: string }[] {
  const dir = path.join(server.dataDir, "sms-outbox");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((f) => {
      try {
        return JSON.parse(readFileSync(path.join(dir, f), "utf8"));
      } catch {
        return {};
      }
    })
    .filter((m) => m.to === e164 && m.purpose === "proof-code")
    .map((m) => ({ text: m.text as string, code: /\b(\d{6})\b/.exec(m.text)?.[1] ?? "" }));
}

async function newestCode(e164: string, count: number): Promise<string> {
  const end = Date.now() + 5_000;
  for (;;) {
    const sent = codesTo(e164);
    if (sent.length >= count) return sent[count - 1].code;
    if (Date.now() > end) throw new Error(`no code ${count} to ${e164}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const notice = (who: { id: string; token: string }) =>
  api.raw("GET", `/patients/${who.id}/notice`, undefined, who.token);
const choose = (who: { id: string; token: string }, noticeBy = "call") =>
  api.raw("PUT", `/patients/${who.id}/notice`, { noticeBy, callWindow: "evening" }, who.token);
const sendCode = (who: { id: string; token: string }, token = who.token) =>
  api.raw("POST", `/patients/${who.id}/notice/proof`, undefined, token);
const typeCode = (who: { id: string; token: string }, code: string, token = who.token) =>
  api.raw("PUT", `/patients/${who.id}/notice/proof`, { code }, token);

async function callsTo(number: string) {
  return db.all<{ purpose: string; status: string }>(
    "SELECT purpose, status FROM phone_calls WHERE number = ? AND direction = 'out'",
    number,
  );
}

async function proofsIn(patientId: string) {
  return db.all<{ detail: string }>(
    "SELECT detail FROM audit_events WHERE action = 'patient.number_proven' AND subject_id = ?",
    patientId,
  );
}

/** Her report, reviewed: an opinion is ready (and "call me" would queue a call). */
async function opinionFor(who: { token: string }) {
  const up = await uploadSamplePdf(api, who.token);
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  const id = up.body.data._id as string;
  expect((await api.post(`/report/claim/${id}`, {}, expertToken)).status).toBe(200);
  expect((await api.post(`/report/add-review/${id}`, { review: "Normal counts" }, expertToken)).status).toBe(
    200,
  );
}

beforeAll(async () => {
  smtp = await startSmtp();
  // A voice provider that takes every call (the missed-call webhook is a provider's); nothing is dialled.
  provider = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.setHeader("Content-Type", "application/json").end('{"Call":{"Sid":"CA1"}}'));
  });
  await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
  server = await startServer({
    VOICE_URL: `http://acme:tok3n@127.0.0.1:${(provider.address() as { port: number }).port}/Calls/connect`,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    SMTP_URL: smtp.url,
    SMS_URL: "",
    VOICE_NUMBER: "+911140000000",
    // The per-profile tries at a code are counted whatever this says (decision 0102).
    RATE_LIMIT_DISABLED: "1",
  });
  api = apiClient(server.url);
  db = await openTestDb(server.dataDir, { write: true });
  const adminToken = (await api.post("/auth/login", ADMIN)).body.token as string;
  const expert = await signupViaApi(api, smtp, codeFrom, { email: "dr@proven.test", accountType: "Expert" });
  expect((await api.post("/expert/approve-expert", { expertId: expert.user._id }, adminToken)).status).toBe(
    200,
  );
  expertToken = expert.token;
}, 120_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await smtp?.close();
  await new Promise((r) => provider?.close(r));
});

describe("a number is called only once proven (decision 0102)", () => {
  it("someone else's number typed as hers is not called until she types the code sent to it", async () => {
    const kamla = await patient("kamla");
    await db.run("UPDATE patients SET locale = 'hi' WHERE id = ?", kamla.id);
    // "Call me" with the unproven number: refused with the reason, nothing saved; an opinion is
    // ready and no call to that number is queued (the build before decision 0102: 200, and a call).
    const refused = await choose(kamla);
    await opinionFor(kamla);
    expect({ chosen: refused.status, calls: await callsTo(kamla.number) }).toEqual({
      chosen: 400,
      calls: [],
    });
    expect(JSON.stringify(refused.body)).toContain("not yet proven");
    const before = await notice(kamla);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({
      noticeBy: "sms",
      phoneProven: false,
      clinicNumber: "+911140000000",
    });
    expect(before.body.data.phone).toMatch(/^\+91\*+\d{4}$/);

    // A stranger and someone signed out cannot send her a code or prove it.
    const stranger = await patient("stranger");
    expect((await sendCode(kamla, stranger.token)).status).toBe(404);
    expect((await sendCode(kamla, "")).status).toBe(401);

    // The code goes by SMS to that number, in her language.
    const sent = await sendCode(kamla);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.data).toMatchObject({ expiresInMinutes: 10 });
    const code = await newestCode(kamla.number, 1);
    expect(codesTo(kamla.number)[0].text).toContain("कोड");

    // A stranger holding the code still cannot prove it for her; a wrong code proves nothing.
    expect((await typeCode(kamla, code, stranger.token)).status).toBe(404);
    const wrong = await typeCode(kamla, code === "000000" ? "111111" : "000000");
    expect(wrong.status).toBe(400);
    expect((await typeCode(kamla, "12ab")).status).toBe(400);
    expect((await notice(kamla)).body.data.phoneProven).toBe(false);
    expect(await proofsIn(kamla.id)).toEqual([]);

    // The right code: proven, in her access trail; the same code again is used.
    const proven = await typeCode(kamla, code);
    expect(proven.status, JSON.stringify(proven.body)).toBe(200);
    expect(proven.body.data.phoneProven).toBe(true);
    const trail = await proofsIn(kamla.id);
    expect(trail).toHaveLength(1);
    expect(JSON.parse(trail[0].detail)).toMatchObject({ how: "sms-code" });
    expect((await typeCode(kamla, code)).status).toBe(400);

    // Now the call can be chosen, and the next opinion queues it.
    expect((await choose(kamla)).status).toBe(200);
    await opinionFor(kamla);
    expect(await callsTo(kamla.number)).toEqual([expect.objectContaining({ purpose: "opinion-ready" })]);
  });

  it("an expired code proves nothing", async () => {
    const asha = await patient("asha");
    expect((await sendCode(asha)).status).toBe(200);
    const code = await newestCode(asha.number, 1);
    await db.run(
      "UPDATE verification_codes SET expires_at = ? WHERE phone = ? AND purpose = 'prove'",
      db.kind === "postgres" ? new Date(Date.now() - 60_000) : Date.now() - 60_000,
      asha.number,
    );
    const late = await typeCode(asha, code);
    expect(late.status).toBe(400);
    expect(JSON.stringify(late.body)).toMatch(/expired/i);
    expect((await notice(asha)).body.data.phoneProven).toBe(false);
  });

  it("a code sent to the same number for another patient does not prove it for her", async () => {
    const shared = mobile();
    const meena = await patient("meena", shared);
    const rani = await patient("rani", shared);
    expect((await sendCode(meena)).status).toBe(200);
    const meenas = await newestCode(shared.e164, 1);
    expect((await sendCode(rani)).status).toBe(200);
    const ranis = await newestCode(shared.e164, 2);
    if (ranis !== meenas) expect((await typeCode(rani, meenas)).status).toBe(400);
    expect((await notice(rani)).body.data.phoneProven).toBe(false);
    // Rani's code did not end Meena's: each proves her own profile only.
    expect((await typeCode(meena, meenas)).status).toBe(200);
    expect((await notice(rani)).body.data.phoneProven).toBe(false);
    expect((await typeCode(rani, ranis)).status).toBe(200);
  });

  it("too many tries at a code: 429, even with a new code", async () => {
    const sita = await patient("sita");
    expect((await sendCode(sita)).status).toBe(200);
    const code = await newestCode(sita.number, 1);
    const wrongCode = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) expect((await typeCode(sita, wrongCode)).status).toBe(400);
    expect((await sendCode(sita)).status).toBe(200);
    const fresh = await newestCode(sita.number, 2);
    const blocked = await typeCode(sita, fresh);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect((await notice(sita)).body.data.phoneProven).toBe(false);
  });

  it("a missed call from the number to the clinic proves it", async () => {
    const lata = await patient("lata");
    expect((await choose(lata)).status).toBe(400);
    const secret = readFileSync(path.join(server.dataDir, "secrets", "voice-webhook-secret"), "utf8").trim();
    const sig = createHmac("sha256", secret).update("missed:missed").digest("base64url").slice(0, 32);
    const missed = await fetch(`${server.url}/voice/missed?sig=${sig}`, {
      method: "POST",
      body: new URLSearchParams({ From: lata.number, CallSid: `IN-${randomBytes(4).toString("hex")}` }),
    });
    expect(missed.status).toBe(200);
    expect((await notice(lata)).body.data.phoneProven).toBe(true);
    const trail = await proofsIn(lata.id);
    expect(trail).toHaveLength(1);
    expect(JSON.parse(trail[0].detail)).toMatchObject({ how: "missed-call" });
    expect((await choose(lata)).status).toBe(200);
    // Her access trail says how, in words.
    const words = await api.raw("GET", "/profile/access-trail", undefined, lata.token);
    expect(words.status).toBe(200);
    expect(JSON.stringify(words.body)).toContain("Phone number for calls proven by a missed call from it");
  });

  it("a phone signup's own mobile number counts as proven, as before", async () => {
    const own = await patient("own");
    await db.run("UPDATE users SET phone = ? WHERE id = ?", own.number, own.id);
    expect((await notice(own)).body.data.phoneProven).toBe(true);
    expect((await choose(own, "both")).status).toBe(200);
  });
});
