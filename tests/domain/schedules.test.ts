import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDomain, type Domain } from "../helpers/factories";
import { jobsWorker, until } from "../helpers/jobs-worker-process";

/*
 * Work on a clock on the one runner (decision 0113), on a real database (SQLite, or PostgreSQL with
 * TEST_BACKEND=pg-s3): each period is one job whoever asks for it, in this process or another; a
 * schedule of each process's own work runs in each; a slot that fails is retried and then dead
 * like any job; a started schedule asks by itself and stops asking when stopped; finished slots
 * nobody asks for any more are pruned.
 */
let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function jobsOf(kind: string) {
  return d.db.db().select().from(d.schema.jobs).where(eq(d.schema.jobs.kind, kind));
}

const slotWorker = (own: boolean, now: number) => jobsWorker("slot", own ? "own" : "shared", String(now));

describe("a period is one job", () => {
  it("asked for twice at once, and again later in the period: one job, run once, for the period's start", async () => {
    const ran: number[] = [];
    const s = d.platform.defineSchedule("test.period", {
      run: async (slot) => void ran.push(slot),
      everyMs: () => 10_000,
    });
    const now = 1_700_000_003_000;
    const [a, b] = await Promise.all([s.askDue(now), s.askDue(now + 1)]);
    expect(a!.id).toBe(b!.id);
    expect([a!.joined, b!.joined].sort()).toEqual([false, true]);
    expect((await s.askDue(now + 6_999))!.id).toBe(a!.id);
    await s.job.runDue();
    await s.job.runDue();
    expect(ran).toEqual([1_700_000_000_000]);
    // The next period is new work.
    const next = await s.askDue(now + 7_000);
    expect(next!.id).not.toBe(a!.id);
    await s.job.runDue();
    expect(ran).toEqual([1_700_000_000_000, 1_700_000_010_000]);
  });

  it("no slot due (slotAt null): nothing is asked for", async () => {
    const s = d.platform.defineSchedule("test.never", {
      run: async () => {
        throw new Error("never");
      },
      everyMs: () => 1_000,
      slotAt: () => null,
    });
    expect(await s.askDue()).toBeNull();
    expect(await jobsOf("test.never")).toHaveLength(0);
  });

  it("two processes asking for the same slot: the cluster's schedule runs once, a per-process one in each", async () => {
    const now = Date.now();
    for (const own of [false, true]) {
      const children = await Promise.all([slotWorker(own, now), slotWorker(own, now)]);
      await until(() => children.every((c) => c.out().startsWith("ready\n")), 60_000);
      for (const c of children) c.stdin!.write("go\n");
      expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0]);
      const ran = children.flatMap((c) => JSON.parse(c.out().slice("ready\n".length)) as number[]);
      const slot = now - (now % 60_000);
      expect(ran).toEqual(own ? [slot, slot] : [slot]);
      const rows = await jobsOf(`test.slot.${own ? "own" : "shared"}`);
      expect(rows.map((r) => r.state)).toEqual(own ? ["done", "done"] : ["done"]);
    }
  }, 120_000);
});

describe("failures", () => {
  it("a slot that fails is tried again after its backoff, then dead with its error for the Service screen", async () => {
    let tries = 0;
    const s = d.platform.defineSchedule("test.failing", {
      run: async () => {
        tries++;
        throw new Error("the disk is gone");
      },
      everyMs: () => 60_000,
      maxAttempts: 2,
      backoff: [10],
    });
    const asked = (await s.askDue())!;
    await s.job.runDue();
    await sleep(30);
    await s.job.runDue();
    expect(tries).toBe(2);
    const row = (await d.platform.jobById(asked.id))!;
    expect(row.state).toBe("dead");
    expect(row.lastError).toBe("the disk is gone");
    const figures = (await d.platform.jobFigures()).find((f) => f.kind === "test.failing")!;
    expect(figures.dead).toBe(1);
  });
});

describe("a started schedule", () => {
  it("asks for its slot by itself (and once at start), and asks no more once stopped", async () => {
    const ran: number[] = [];
    const s = d.platform.defineSchedule("test.started", {
      run: async (slot) => void ran.push(slot),
      everyMs: () => 300,
      atStart: true,
    });
    s.start();
    s.start(); // idempotent
    await until(() => ran.length >= 4, 10_000);
    await s.stop();
    const after = ran.length;
    await sleep(900);
    expect(ran.length).toBe(after);
    const rows = await jobsOf("test.started");
    expect(rows.filter((r) => r.key.endsWith("@start"))).toHaveLength(1);
    // Each period's job ran once.
    const slots = rows.filter((r) => !r.key.endsWith("@start")).map((r) => r.key);
    expect(new Set(slots).size).toBe(slots.length);
    expect(rows.every((r) => r.state === "done" && r.attempts === 1)).toBe(true);
  });
});

describe("pruning", () => {
  it("finished slots older than two periods go; newer ones, dead ones and other kinds' stay", async () => {
    const s = d.platform.defineSchedule("test.pruned", { run: async () => {}, everyMs: () => 60_000 });
    const now = Date.now();
    for (const ago of [0, 60_000, 5 * 60_000]) await s.askDue(now - ago);
    await s.job.runDue();
    const rows = await jobsOf("test.pruned");
    expect(rows).toHaveLength(3);
    for (const r of rows)
      await d.db
        .db()
        .update(d.schema.jobs)
        .set({ finishedAt: new Date(Date.parse(r.key)) })
        .where(eq(d.schema.jobs.id, r.id));
    const other = d.platform.defineJobKind("test.kept", {
      run: async () => {},
      maxAttempts: 1,
      backoff: [10],
    });
    const kept = await other.enqueue({});
    await other.runDue();
    await d.db
      .db()
      .update(d.schema.jobs)
      .set({ finishedAt: new Date(now - 3_600_000) })
      .where(eq(d.schema.jobs.id, kept.id));
    await d.platform.pruneScheduleJobs(now);
    const left = await jobsOf("test.pruned");
    expect(left.map((r) => Date.parse(r.key)).sort()).toEqual(
      [now - 60_000, now].map((t) => t - (t % 60_000)).sort(),
    );
    expect(
      await d.db
        .db()
        .select()
        .from(d.schema.jobs)
        .where(and(eq(d.schema.jobs.kind, "test.kept"), eq(d.schema.jobs.state, "done"))),
    ).toHaveLength(1);
  });
});
