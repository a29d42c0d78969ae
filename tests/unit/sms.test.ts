import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * The SMS domain against a real SQLite file and a stand-in gateway on a local port: how the
 * sendsms request is built and which answers count as accepted. (A real Kannel: tests/integration/sms.test.ts.)
 */

type Mods = {
  sms: typeof import("~/domain/messaging/sms.server") &
    typeof import("~/domain/messaging/sms-segments.server");
  client: typeof import("~/db/client.server");
  schema: typeof import("~/db/schema");
  orm: typeof import("drizzle-orm");
};
let m: Mods;
let tmp: string;
let gateway: Server;
const requests: URLSearchParams[] = [];
const password = "p@ss:w0rd/secret";

/** The stand-in gateway answers by the number's last two digits. */
const ANSWERS: Record<string, [number, string] | "hang"> = {
  "01": [202, "0: Accepted for delivery"],
  "02": [202, "3: Queued for later delivery"],
  "03": [200, "Sent."],
  "04": [503, "Service unavailable for "], // + the request's query, as a careless gateway might echo it
  "05": "hang",
  "06": [403, "Authorization failed for sendsms"],
};

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "cb-sms-unit-"));
  gateway = createServer((req, res) => {
    const q = new URL(req.url!, "http://x").searchParams;
    requests.push(q);
    const answer = ANSWERS[(q.get("to") ?? "").slice(-2)] ?? [500, "?"];
    if (answer === "hang") return; // never answers
    res.writeHead(answer[0], { "Content-Type": "text/html" });
    res.end(answer[0] === 503 ? answer[1] + req.url : answer[1]);
  });
  await new Promise<void>((r) => gateway.listen(0, "127.0.0.1", r));
  const port = (gateway.address() as AddressInfo).port;
  for (const k of ["DATABASE_URL", "STORAGE_URL", "SMTP_URL", "ENCRYPTION_KEY", "SESSION_SECRET"])
    delete process.env[k];
  Object.assign(process.env, {
    DATA_DIR: path.join(tmp, "data"),
    UPLOADS_DIR: path.join(tmp, "uploads"),
    LOG_LEVEL: "silent",
    SMS_URL: `http://app%20user:${encodeURIComponent(password)}@127.0.0.1:${port}/cgi-bin/sendsms?from=CareBridge&smsc=airtel`,
  });
  m = {
    sms: {
      ...(await import("~/domain/messaging/sms.server")),
      ...(await import("~/domain/messaging/sms-segments.server")),
    },
    client: await import("~/db/client.server"),
    schema: await import("~/db/schema"),
    orm: await import("drizzle-orm"),
  };
  // No background sender here: the test calls processSmsQueue() itself. The bound on an answer is
  // 2 s: the gateway's prompt answers must arrive within it on a loaded machine too, or they
  // would read as the timeout the silent case is there to show.
  m.sms.configureSmsSender({ timeoutMs: 2_000, backoffMs: [60_000] });
});

afterAll(async () => {
  gateway?.closeAllConnections();
  gateway?.close();
  await m?.client.closeDatabase();
  rmSync(tmp, { recursive: true, force: true });
});

async function row(to: string) {
  const { smsMessages } = m.schema;
  const [r] = await m.client.db().select().from(smsMessages).where(m.orm.eq(smsMessages.to, to));
  return r;
}

describe("smsSegments", () => {
  it("counts GSM 7-bit septets (extension characters twice) and UCS-2 code units", () => {
    expect(m.sms.smsSegments("")).toEqual({ encoding: "gsm", units: 0, segments: 1 });
    expect(m.sms.smsSegments("Hello @ £ $ ¥ è é Ä ß")).toEqual({ encoding: "gsm", units: 21, segments: 1 });
    expect(m.sms.smsSegments("a".repeat(160))).toEqual({ encoding: "gsm", units: 160, segments: 1 });
    expect(m.sms.smsSegments("a".repeat(161))).toEqual({ encoding: "gsm", units: 161, segments: 2 });
    expect(m.sms.smsSegments("a".repeat(306))).toEqual({ encoding: "gsm", units: 306, segments: 2 });
    expect(m.sms.smsSegments("a".repeat(307))).toEqual({ encoding: "gsm", units: 307, segments: 3 });
    expect(m.sms.smsSegments("€{}[]~|^\\")).toEqual({ encoding: "gsm", units: 18, segments: 1 });
    expect(m.sms.smsSegments("€".repeat(80))).toEqual({ encoding: "gsm", units: 160, segments: 1 });
    expect(m.sms.smsSegments("€".repeat(81))).toEqual({ encoding: "gsm", units: 162, segments: 2 });
    // Outside the default alphabet: the whole text goes as UCS-2.
    expect(m.sms.smsSegments("नमस्ते")).toEqual({ encoding: "ucs2", units: 6, segments: 1 });
    expect(m.sms.smsSegments("Code 123 ç")).toEqual({ encoding: "ucs2", units: 10, segments: 1 });
    expect(m.sms.smsSegments("অ".repeat(70))).toEqual({ encoding: "ucs2", units: 70, segments: 1 });
    expect(m.sms.smsSegments("அ".repeat(71))).toEqual({ encoding: "ucs2", units: 71, segments: 2 });
    expect(m.sms.smsSegments("க".repeat(134))).toEqual({ encoding: "ucs2", units: 134, segments: 2 });
    expect(m.sms.smsSegments("க".repeat(135))).toEqual({ encoding: "ucs2", units: 135, segments: 3 });
    expect(m.sms.smsSegments("ok 😀")).toEqual({ encoding: "ucs2", units: 5, segments: 1 });
  });
});

describe("maskPhone", () => {
  it("keeps the country code and the last 4 digits", () => {
    expect(m.sms.maskPhone("+919876543210")).toBe("+91******3210");
    expect(m.sms.maskPhone("+447700900123")).toBe("+44******0123");
    expect(m.sms.maskPhone("+8801712345678")).toBe("+880******5678");
    expect(m.sms.maskPhone("+12025550123")).toBe("+1******0123");
    expect(m.sms.maskPhone("+123")).toBe("+***");
  });
});

describe("the sendsms request", () => {
  it("carries the userinfo as username/password, keeps the URL's parameters, adds to, text, charset and coding", async () => {
    await m.sms.queueSms({ to: "+919800000001", text: "Your code is 424242 {ok}", purpose: "signup-code" });
    await m.sms.queueSms({ to: "+919800000002", text: "आपका कोड 515151 है", purpose: "login-code" });
    expect(await m.sms.processSmsQueue()).toEqual({ sent: 2, retrying: 0, failed: 0 });
    // Sent side by side: in the order they arrive, which is not the order they were queued.
    const [gsm, ucs2] = requests
      .splice(0)
      .sort((a, b) => String(a.get("to")).localeCompare(String(b.get("to"))));
    expect(Object.fromEntries(gsm)).toEqual({
      from: "CareBridge",
      smsc: "airtel",
      username: "app user",
      password,
      to: "+919800000001",
      text: "Your code is 424242 {ok}",
      charset: "UTF-8",
      coding: "0",
    });
    expect(ucs2.get("text")).toBe("आपका कोड 515151 है");
    expect(ucs2.get("coding")).toBe("2");
    for (const to of ["+919800000001", "+919800000002"]) {
      expect(await row(to)).toMatchObject({
        status: "sent",
        attempts: 1,
        lockedUntil: null,
        lastError: null,
      });
      expect((await row(to)).sentAt).toBeInstanceOf(Date);
    }
  });

  it("retries any other answer, a timeout or a refusal; stored errors hold neither the password nor the text", async () => {
    const cases = {
      "+919800000003": "gateway refused: Sent.",
      "+919800000004":
        "gateway answered HTTP 503: Service unavailable for /cgi-bin/sendsms?from=CareBridge&smsc=airtel&username=app+user&password=***&to=+91******0004&text=***",
      "+919800000005": "gateway did not answer within 2 s",
      "+919800000006": "gateway answered HTTP 403: Authorization failed for sendsms",
    };
    for (const to of Object.keys(cases))
      await m.sms.queueSms({ to, text: `Your code is 606060 (${to})`, purpose: "reset-code" });
    const started = Date.now();
    expect(await m.sms.processSmsQueue()).toEqual({ sent: 0, retrying: 4, failed: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const [to, error] of Object.entries(cases)) {
      const r = await row(to);
      expect(r).toMatchObject({ status: "queued", attempts: 1, lockedUntil: null, sentAt: null });
      expect(r.lastError?.startsWith(error), `${to}: ${r.lastError}`).toBe(true);
      expect(r.lastError).not.toContain("w0rd");
      expect(r.lastError).not.toContain("606060");
      expect(r.lastError).not.toContain(to.slice(1));
      expect(r.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
    }
    // Not due again for a minute: another round sends nothing.
    expect(await m.sms.processSmsQueue()).toEqual({ sent: 0, retrying: 0, failed: 0 });
  });

  it("gives up after the last attempt", async () => {
    m.sms.configureSmsSender({ timeoutMs: 300, backoffMs: [10] });
    await m.sms.queueSms({ to: "+919800000106", text: "Your opinion is ready", purpose: "opinion-ready" });
    await m.sms.processSmsQueue();
    await new Promise((r) => setTimeout(r, 30));
    await m.sms.processSmsQueue();
    expect(await row("+919800000106")).toMatchObject({
      status: "failed",
      attempts: 2,
      lastError: "gateway answered HTTP 403: Authorization failed for sendsms",
      lockedUntil: null,
      sentAt: null,
    });
  });

  it("takes a message again whose sender died holding it (its job's lease ran out, decision 0113)", async () => {
    const { smsMessages, jobs } = m.schema;
    m.sms.configureSmsSender({ timeoutMs: 300, backoffMs: [10] });
    const id = "d".repeat(24);
    await m.client
      .db()
      .insert(smsMessages)
      .values({
        id,
        to: "+919800000201",
        text: "Your opinion is ready",
        purpose: "opinion-ready",
        status: "sending",
        attempts: 1,
        nextAttemptAt: new Date(Date.now() - 120_000),
      });
    await m.client
      .db()
      .insert(jobs)
      .values({
        id: "j".repeat(24),
        kind: "sms",
        key: id,
        payload: JSON.stringify({ id }),
        state: "running",
        attempts: 1,
        runAt: new Date(Date.now() - 120_000),
        holder: "a sender that died",
        leasedUntil: new Date(Date.now() - 1_000),
      });
    expect((await m.sms.processSmsQueue()).sent).toBe(1);
    expect(await row("+919800000201")).toMatchObject({ status: "sent", attempts: 2 });
  });
});
