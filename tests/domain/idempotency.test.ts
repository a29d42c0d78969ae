import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDomain, makePatient, type Domain } from "../helpers/factories";

/*
 * Idempotency keys in the database (decision 0062): one claim per (account, key), the answer kept
 * and replayed, a left-over pending row taken over after an hour, and rows kept at least 7 days
 * (the hourly prune removes only older ones).
 */
let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const DAY = 24 * 60 * 60 * 1000;

async function age(accountId: string, key: string, ms: number) {
  const t = d.schema.idempotencyKeys;
  await d.db
    .db()
    .update(t)
    .set({ createdAt: new Date(Date.now() - ms) })
    .where(and(eq(t.accountId, accountId), eq(t.key, key)));
}

describe("idempotency keys", () => {
  it("one claim per account and key; the answer replayed; another fingerprint refused", async () => {
    const { claimIdempotencyKey: claim, completeIdempotencyKey: complete } = d.platform;
    const a = await makePatient();
    const b = await makePatient();
    expect(await claim(a.id, "k1", "f1")).toEqual({ kind: "claimed" });
    expect(await claim(a.id, "k1", "f1")).toEqual({ kind: "in_progress" });
    expect(await claim(a.id, "k1", "f2")).toEqual({ kind: "mismatch" });
    expect(await claim(b.id, "k1", "f2")).toEqual({ kind: "claimed" });
    await complete(a.id, "k1", { status: 201, headers: { location: "/x" }, body: "{}" });
    expect(await claim(a.id, "k1", "f1")).toEqual({
      kind: "replay",
      answer: { status: 201, headers: { location: "/x" }, body: "{}" },
    });
    // A released key (a refusal) may be claimed again, with any body.
    await d.platform.releaseIdempotencyKey(b.id, "k1");
    expect(await claim(b.id, "k1", "f3")).toEqual({ kind: "claimed" });
    // A pending row left an hour ago by a process that died is taken over once.
    await age(b.id, "k1", 61 * 60 * 1000);
    const both = await Promise.all([claim(b.id, "k1", "f3"), claim(b.id, "k1", "f3")]);
    expect(both.map((c) => c.kind).sort()).toEqual(["claimed", "in_progress"]);
  });

  it("keeps keys for 7 days: the prune removes only older ones", async () => {
    const { claimIdempotencyKey: claim, completeIdempotencyKey: complete } = d.platform;
    const p = await makePatient();
    for (const k of ["six-days", "eight-days"]) {
      await claim(p.id, k, "f");
      await complete(p.id, k, { status: 201, headers: {}, body: "{}" });
    }
    await age(p.id, "six-days", 6 * DAY);
    await age(p.id, "eight-days", 8 * DAY);
    expect(await d.platform.pruneIdempotencyKeys()).toBe(1);
    expect((await claim(p.id, "six-days", "f")).kind).toBe("replay");
    expect((await claim(p.id, "eight-days", "f")).kind).toBe("claimed");
  });
});
