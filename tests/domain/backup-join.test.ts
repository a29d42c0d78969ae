import * as vitest from "vitest";
import { expect } from "vitest";
import { and, eq } from "drizzle-orm";
import { onlyWith, requireTool } from "../helpers/requires";
import type { Domain, Person } from "../helpers/factories";
import { resticDomain } from "../helpers/restic";

const { afterAll, beforeAll, describe, it } = onlyWith(requireTool("restic", "restic"), vitest);

/*
 * The backup schedule on the one runner (decision 0113), with real restic: each due slot is one
 * job keyed by the slot, and `npm run backup` (its `backupOrJoin`) while the scheduled backup runs
 * waits for that run and reports its result, instead of failing with "another backup is running".
 */

let d: Domain;
let ops: typeof import("~/domain/operations/index.server");
let admin: Person;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ d, ops, admin, close } = await resticDomain({ verifyFiles: 2, reports: 2 }));
}, 60_000);
afterAll(async () => {
  await close?.();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a backup asked for while the scheduled one runs", () => {
  it("waits for the scheduled run and reports its result: one run, one snapshot, its slot's job done", async () => {
    const now = Date.now();
    const scheduled = ops.backupTick(now);
    const { backupRuns, jobs } = d.schema;
    // The scheduled run has started (its row says running).
    for (let i = 0; ; i++) {
      const [row] = await d.db.db().select().from(backupRuns).where(eq(backupRuns.status, "running"));
      if (row) break;
      if (i > 400) throw new Error("the scheduled backup did not start");
      await sleep(25);
    }
    const joined = await ops.backupOrJoin();
    const run = await scheduled;
    expect(run).toMatchObject({ status: "verified", trigger: "scheduled" });
    expect(joined).toMatchObject({ id: run!.id, status: "verified", trigger: "scheduled", joined: true });
    expect(joined.snapshotId).toBe(run!.snapshotId);
    expect(await ops.listBackupRuns(admin)).toHaveLength(1);
    const slotJobs = await d.db
      .db()
      .select()
      .from(jobs)
      .where(and(eq(jobs.kind, "backup")));
    expect(slotJobs.map((j) => [j.key, j.state, j.attempts])).toEqual([
      [new Date(ops.dueSlot(now)!).toISOString(), "done", 1],
    ]);
  }, 120_000);

  it("with none running, takes its own backup", async () => {
    const run = await ops.backupOrJoin();
    expect(run).toMatchObject({ status: "verified", trigger: "manual", joined: false });
    expect(await ops.listBackupRuns(admin)).toHaveLength(2);
  }, 120_000);
});
