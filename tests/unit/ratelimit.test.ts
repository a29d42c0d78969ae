import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "~/domain/platform/client";
import type { DomainError } from "~/domain/platform/errors";
import { runScript } from "../helpers/scripts";

/*
 * The rate-limit domain against a real SQLite file (the default "database" store), and two
 * separate processes sharing it. The environment is set before the modules are imported,
 * because config() reads it once.
 */

type RL = typeof import("~/domain/platform/ratelimit.server");
let rl: RL;
let tmp: string;
const MAIL_PER_HOUR = 60;
const env = () => ({
  DATA_DIR: path.join(tmp, "data"),
  UPLOADS_DIR: path.join(tmp, "uploads"),
  LOG_LEVEL: "silent",
  MAIL_PER_HOUR: String(MAIL_PER_HOUR),
  // The mail budget per address of the tests below (the default, 200, is over MAIL_PER_HOUR here).
  RATE_LIMITS: JSON.stringify({ mail: { address: { points: 30, duration: 3600 } } }),
});

const at = (ip: string): Client => ({ ip, userAgent: null });

/** Resolves to "ok" or the DomainError's code and Retry-After seconds. */
async function outcome(p: Promise<unknown>) {
  try {
    await p;
    return { ok: true as const };
  } catch (err) {
    const e = err as DomainError;
    return { ok: false as const, code: e.code, retryAfter: e.extra?.retryAfterSeconds };
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "cb-ratelimit-"));
  Object.assign(process.env, env());
  for (const k of ["DATABASE_URL", "RATE_LIMIT_DISABLED", "RATE_LIMIT_STORE", "SESSION_SECRET"]) {
    delete process.env[k];
  }
  rl = await import("~/domain/platform/ratelimit.server");
});

afterAll(async () => {
  await (await import("~/db/client.server")).closeDatabase();
  rmSync(tmp, { recursive: true, force: true });
});

describe("addresses", () => {
  it("counts an IPv6 client by its /64 and an IPv4 client by its address", () => {
    expect(rl.addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(rl.addressKey("2001:DB8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(rl.addressKey("::1")).toBe("0:0:0:0::/64");
    expect(rl.addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(rl.addressKey("192.0.2.7")).toBe("192.0.2.7");
    expect(rl.addressKey("unknown")).toBe("unknown");
  });
});

describe("budgets (mail ceiling counted across these tests: 30 + 5 + 25 = MAIL_PER_HOUR)", () => {
  it("one address over its mail budget is refused with Retry-After; another address is not", async () => {
    for (let i = 0; i < 30; i++) {
      expect(await outcome(rl.limit("mail", `a${i}@example.test`, at("203.0.113.1")))).toEqual({ ok: true });
    }
    const refused = await outcome(rl.limit("mail", "a30@example.test", at("203.0.113.1")));
    expect(refused).toMatchObject({ ok: false, code: "rate_limited" });
    expect(refused.ok === false && refused.retryAfter).toBeGreaterThan(3000);
    expect(await outcome(rl.limit("verifyCode", "x@example.test", at("203.0.113.2")))).toEqual({ ok: true });
  });

  it("an account's mail budget holds across addresses", async () => {
    for (let i = 0; i < 5; i++) {
      expect(await outcome(rl.limit("mail", "Target@Example.test", at(`198.51.100.${i + 1}`)))).toEqual({
        ok: true,
      });
    }
    expect(await outcome(rl.limit("mail", "target@example.test", at("198.51.100.77")))).toMatchObject({
      ok: false,
      code: "rate_limited",
    });
  });

  it("the hourly mail ceiling stops everyone, and a notice mail is skipped", async () => {
    let sent = 35; // the two tests above
    for (let i = 0; sent < MAIL_PER_HOUR; i++, sent++) {
      expect(await outcome(rl.limit("mail", `c${i}@example.test`, at(`192.0.2.${i + 1}`)))).toEqual({
        ok: true,
      });
    }
    expect(await outcome(rl.limit("mail", "fresh@example.test", at("192.0.2.200")))).toMatchObject({
      ok: false,
      code: "rate_limited",
    });
    expect(await rl.takeMailPoint()).toBe(false);
  });

  it("contact forms are limited per address only", async () => {
    for (let i = 0; i < 60; i++)
      expect(await outcome(rl.limit("publicForm", null, at("203.0.113.50")))).toEqual({ ok: true });
    expect(await outcome(rl.limit("publicForm", null, at("203.0.113.50")))).toMatchObject({ ok: false });
    expect(await outcome(rl.limit("publicForm", null, at("203.0.113.51")))).toEqual({ ok: true });
  });

  it("uploads are limited per account across addresses", async () => {
    for (let i = 0; i < 30; i++) {
      expect(await outcome(rl.limit("upload", "user-1", at(`10.0.${i}.1`)))).toEqual({ ok: true });
    }
    expect(await outcome(rl.limit("upload", "user-1", at("10.9.9.9")))).toMatchObject({ ok: false });
    expect(await outcome(rl.limit("upload", "user-2", at("10.9.9.9")))).toEqual({ ok: true });
  });
});

describe("SMS budgets", () => {
  it("counts a number per address: strangers asking for it elsewhere do not spend the owner's pair", async () => {
    for (let i = 0; i < 5; i++)
      expect(await outcome(rl.limit("sms", "+919700005000", at("203.0.113.70")))).toEqual({ ok: true });
    expect(await outcome(rl.limit("sms", "+919700005000", at("203.0.113.70")))).toMatchObject({ ok: false });
    expect(await outcome(rl.limit("sms", "+919700005000", at("203.0.113.71")))).toEqual({ ok: true });
  });

  it("a number's budget, then its reserve only for its owner's login and reset codes", async () => {
    const phone = "+919700006000";
    const sms = (fromOwner: boolean) =>
      outcome(rl.limitSms(phone, "IN", "account", { queued: true, fromOwner: async () => fromOwner }));
    for (let i = 0; i < 10; i++) expect(await sms(false)).toEqual({ ok: true });
    expect(await sms(false)).toMatchObject({ ok: false, code: "rate_limited" });
    expect(await outcome(rl.limitSms(phone, "IN", "signup", { queued: true }))).toMatchObject({ ok: false });
    for (let i = 0; i < 3; i++) expect(await sms(true)).toEqual({ ok: true });
    expect(await sms(true)).toMatchObject({ ok: false });
  });

  it("signup codes are counted per block of 1,000 numbers; login and reset codes are not", async () => {
    for (let i = 0; i < 10; i++)
      expect(await outcome(rl.limitSms(`+9197000070${10 + i}`, "IN", "signup", { queued: true }))).toEqual({
        ok: true,
      });
    expect(await outcome(rl.limitSms("+919700007099", "IN", "signup", { queued: true }))).toMatchObject({
      ok: false,
    });
    expect(await outcome(rl.limitSms("+919700008099", "IN", "signup", { queued: true }))).toEqual({
      ok: true,
    });
    // Login and reset codes go only to numbers with an account: they are not counted per block.
    for (let i = 0; i < 30; i++)
      expect(await outcome(rl.limitSms(`+9197000070${40 + i}`, "IN", "account", { queued: true }))).toEqual({
        ok: true,
      });
  });
});

describe("wrong passwords never lock the owner out", () => {
  const fail = async (account: string, ip: string) => {
    const attempt = await rl.beginLogin(account, at(ip));
    return attempt.failed();
  };

  it("an address waits a growing delay after 5 failures; another address is let straight in", async () => {
    for (let i = 0; i < 5; i++) await fail("admin@example.test", "203.0.113.66");
    const refused = await outcome(rl.beginLogin("admin@example.test", at("203.0.113.66")));
    expect(refused).toMatchObject({ ok: false, code: "rate_limited", retryAfter: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    await fail("admin@example.test", "203.0.113.66"); // the 6th failure: next wait is 2 s
    const again = await outcome(rl.beginLogin("admin@example.test", at("203.0.113.66")));
    expect(again).toMatchObject({ ok: false, retryAfter: 2 });
    // The owner, elsewhere, is not held up.
    const owner = await rl.beginLogin("admin@example.test", at("198.51.100.200"));
    await owner.succeeded();
  });

  it("mails the owner once, and with many failures a failing address waits from its first miss — a clean one still gets in", async () => {
    const account = "owner@example.test";
    let notices = 0;
    for (let a = 0; a < 4; a++) {
      for (let i = 0; i < 5; i++) if ((await fail(account, `100.64.0.${a + 1}`)).notifyOwner) notices++;
    }
    expect(notices).toBe(1);
    // Over 20 failures on the account: strict. A new address may try once, then waits a minute.
    await fail(account, "100.64.1.1");
    expect(await outcome(rl.beginLogin(account, at("100.64.1.1")))).toMatchObject({
      ok: false,
      retryAfter: 60,
    });
    // The owner from a clean address is let through, and a success clears that address.
    const owner = await rl.beginLogin(account, at("100.64.2.2"));
    await owner.succeeded();
    const next = await rl.beginLogin(account, at("100.64.2.2"));
    await next.succeeded();
  });

  it("parallel guesses cannot slip past the delay", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => outcome(rl.beginLogin("parallel@example.test", at("203.0.113.99")))),
    );
    expect(results.filter((r) => r.ok).length).toBeLessThanOrEqual(5);
  });
});

describe("the database store", () => {
  it("prunes expired counters", async () => {
    const { sqliteConnection } = await import("~/db/client.server");
    const sqlite = () => sqliteConnection()!;
    const count = () => (sqlite().prepare("SELECT count(*) AS n FROM rate_limits").get() as { n: number }).n;
    const before = count();
    expect(before).toBeGreaterThan(0);
    // Nothing of the above has expired yet; an hour and a day from now, everything has.
    expect(await rl.pruneRateLimits(Date.now())).toBe(0);
    expect(await rl.pruneRateLimits(Date.now() + 25 * 60 * 60 * 1000)).toBe(before);
    // No e-mail or IP address is stored in the clear.
    const keys = sqlite().prepare("SELECT key FROM rate_limits").all();
    expect(JSON.stringify(keys)).not.toMatch(/example|203\.0/);
  });

  it("counts together across two processes (atomic increments)", async () => {
    const startAt = Date.now() + 4000;
    const run = async (ip: string) => {
      const { stdout } = await runScript("tests/helpers/ratelimit-worker.ts", [], {
        env: { ...process.env, ...env(), START_AT: String(startAt), WORKER_IP: ip, TRIES: "60" },
      });
      return JSON.parse(stdout) as { verify: number; login: number };
    };
    const [a, b] = await Promise.all([run("192.0.2.101"), run("192.0.2.102")]);
    // One account+address pair, 120 tries from two processes: exactly its budget of 20 went through.
    expect(a.verify + b.verify).toBe(20);
    // One account+address pair guessed in parallel from two processes: at most the free tries (+1 as a
    // wait ends), never all refused. Fewer than the 5 free tries is right too: the other process's
    // failures in flight can take the account past `strictAfter` before one of these reads its count,
    // and a strict account lets a failing address try once before it waits.
    expect(a.login + b.login).toBeGreaterThanOrEqual(1);
    expect(a.login + b.login).toBeLessThanOrEqual(6);
  }, 60_000);
});
