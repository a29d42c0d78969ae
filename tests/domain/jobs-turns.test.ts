import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDomain, type Domain } from "../helpers/factories";
import { until } from "../helpers/jobs-worker-process";
import type { TurnsBy } from "~/domain/platform/index.server";

/*
 * The runner's loops at once and its turns (decisions 0100, 0113), on a real database: a kind runs
 * `concurrency` jobs at once in one process and never more; a kind that takes turns by group runs
 * one job of a group at a time, anywhere (a live lease elsewhere holds the group back until it runs
 * out), and serves the group served longest ago first.
 */
let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

/** A gate the handlers wait at until it opens. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

async function jobRow(id: string) {
  return (await d.platform.jobById(id))!;
}

describe("loops at once", () => {
  it("runs `concurrency` jobs at once in one process, never more, and all of them", async () => {
    const g = gate();
    let running = 0;
    let most = 0;
    const ran: number[] = [];
    const kind = d.platform.defineJobKind<{ n: number }>("test.together", {
      run: async ({ n }) => {
        running++;
        most = Math.max(most, running);
        await g.opened;
        running--;
        ran.push(n);
      },
      maxAttempts: 1,
      backoff: [10],
      concurrency: 3,
      pollMs: 50,
    });
    for (let n = 0; n < 7; n++) await kind.enqueue({ n });
    d.platform.startJobs(["test.together"]);
    try {
      await until(() => running === 3, 10_000);
      await new Promise((r) => setTimeout(r, 200));
      expect(running).toBe(3);
      g.open();
      await until(() => ran.length === 7, 10_000);
      expect(most).toBe(3);
      expect([...ran].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    } finally {
      await kind.stop();
    }
  });
});

describe("turns", () => {
  // The group is the key's first letter ("a1" → "a").
  const byLetter: TurnsBy = (key) => sql`substr(${key}, 1, 1)`;

  it("the group served longest ago goes first, whatever the order asked", async () => {
    const order: string[] = [];
    const kind = d.platform.defineJobKind<{ k: string }>("test.turns", {
      run: async ({ k }) => void order.push(k),
      maxAttempts: 1,
      backoff: [10],
      turnsBy: byLetter,
    });
    const t0 = Date.now() - 10_000;
    for (const [i, k] of ["a1", "a2", "a3", "b1", "c1"].entries())
      await kind.enqueue({ k }, { key: k, runAt: new Date(t0 + i) });
    await kind.runDue();
    // a1 (first asked), then the groups never served (b, c), then a again.
    expect(order).toEqual(["a1", "b1", "c1", "a2", "a3"]);
  });

  it("one job of a group at a time, anywhere: a live lease holds the group back until it runs out", async () => {
    const ran: string[] = [];
    const kind = d.platform.defineJobKind<{ k: string }>("test.held", {
      run: async ({ k }) => void ran.push(k),
      maxAttempts: 3,
      backoff: [10],
      turnsBy: byLetter,
    });
    // Asked for a millisecond apart: within one millisecond the order is the ids' (random).
    const t0 = Date.now() - 10_000;
    const a1 = await kind.enqueue({ k: "a1" }, { key: "a1", runAt: new Date(t0) });
    await kind.enqueue({ k: "a2" }, { key: "a2", runAt: new Date(t0 + 1) });
    await kind.enqueue({ k: "b1" }, { key: "b1", runAt: new Date(t0 + 2) });
    // Another process runs a1 under a live lease.
    const { jobs } = d.schema;
    const set = (leasedUntil: Date) =>
      d.db
        .db()
        .update(jobs)
        .set({ state: "running", attempts: 1, holder: "elsewhere", leasedUntil })
        .where(eq(jobs.id, a1.id));
    await set(new Date(Date.now() + 60_000));
    await kind.runDue();
    expect(ran).toEqual(["b1"]); // a2 waits for a1's turn to end
    expect((await jobRow(a1.id)).state).toBe("running");
    // Its process died: the lease runs out, and the group goes on (a1 again first, then a2).
    await set(new Date(Date.now() - 1_000));
    await kind.runDue();
    expect(ran).toEqual(["b1", "a1", "a2"]);
  });

  it("with loops at once, never two of one group together", async () => {
    const g = gate();
    const now = new Set<string>();
    let clash = false;
    const done: string[] = [];
    const kind = d.platform.defineJobKind<{ k: string }>("test.apart", {
      run: async ({ k }) => {
        for (const other of now) if (other[0] === k[0]) clash = true;
        now.add(k);
        await g.opened;
        await new Promise((r) => setTimeout(r, 20));
        now.delete(k);
        done.push(k);
      },
      maxAttempts: 1,
      backoff: [10],
      turnsBy: byLetter,
      concurrency: 3,
      pollMs: 50,
    });
    for (const k of ["a1", "a2", "a3", "b1", "b2"]) await kind.enqueue({ k }, { key: k });
    d.platform.startJobs(["test.apart"]);
    try {
      await until(() => now.size === 2, 10_000); // one of a, one of b; the third loop finds no group free
      await new Promise((r) => setTimeout(r, 200));
      expect(now.size).toBe(2);
      g.open();
      await until(() => done.length === 5, 10_000);
      expect(clash).toBe(false);
    } finally {
      await kind.stop();
    }
  });
});
