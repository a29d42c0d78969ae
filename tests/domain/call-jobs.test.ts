import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { freshDomain, makeAdmin, type Domain, type Person } from "../helpers/factories";

/*
 * The call sender as the runner's kind "phone-call" (decision 0113), on both databases: a call
 * nobody answers is retried as its next job until VOICE_ATTEMPTS, then failed and its job dead
 * with the last error on the Service screen's background work; a job whose process died mid-call
 * (its lease ran out) is taken again and does not ring a phone she already answered.
 */

let d: Domain;
let calls: typeof import("~/domain/calls/index.server");
let ops: typeof import("~/domain/operations/index.server");
let admin: Person;
beforeAll(async () => {
  d = await freshDomain({ VOICE_ATTEMPTS: "2", VOICE_RETRY_SECONDS: "0", VOICE_CALLBACK_SECONDS: "0" });
  calls = await import("~/domain/calls/index.server");
  ops = await import("~/domain/operations/index.server");
  admin = await makeAdmin();
});
afterAll(async () => {
  calls?.setCallLine(null);
  await d?.close();
});

type Rung = { id: string; attempt: number };
/** A line that counts who it rang and answers as told. */
function fakeLine(answer: (row: { id: string }) => Promise<import("~/domain/calls/sender.server").CallEnd>) {
  const rung: Rung[] = [];
  const line: import("~/domain/calls/index.server").CallLine = {
    async place(row) {
      rung.push({ id: row.id, attempt: row.attempts });
      return answer(row);
    },
  };
  calls.setCallLine(line);
  return rung;
}

const queue = async (number: string) => {
  const q = await d.calls.queueCall({
    number,
    patientId: null,
    purpose: "callback",
    locale: "en",
    at: new Date(),
  });
  if (!q.queued) throw new Error(q.reason);
  return q.id;
};
const callRow = async (id: string) =>
  (await d.db.db().select().from(d.schema.phoneCalls).where(eq(d.schema.phoneCalls.id, id)))[0];
const jobsOf = (id: string) =>
  d.db
    .db()
    .select()
    .from(d.schema.jobs)
    .where(and(eq(d.schema.jobs.kind, "phone-call")))
    .then((all) => all.filter((j) => j.key.startsWith(id)));

describe("the phone-call kind", () => {
  it("a call nobody answers is placed again as its next job; after the last attempt it fails and its job is dead, shown to admins", async () => {
    const rung = fakeLine(async () => ({
      answered: false,
      busy: true,
      state: null,
      answeredAt: null,
      durationMs: 0,
    }));
    const id = await queue("+919811100001");
    // VOICE_RETRY_SECONDS=0: the next job is due at once, in the same round.
    expect(await calls.processCallQueue()).toBe(2);
    expect(await callRow(id)).toMatchObject({ status: "failed", outcome: "busy", attempts: 2 });
    expect(rung.map((r) => r.id)).toEqual([id, id]);
    const jobs = await jobsOf(id);
    expect(jobs.map((j) => j.state).sort()).toEqual(["dead", "done"]);
    const dead = jobs.find((j) => j.state === "dead")!;
    expect(dead.lastError).toBe("call not completed after 2 attempts: busy");
    // Nothing more is placed.
    expect(await calls.processCallQueue()).toBe(0);
    const work = await ops.backgroundWork(admin);
    expect(work.dead.find((j) => j.id === dead.id)).toMatchObject({
      kind: "phone-call",
      attempts: 1,
      lastError: "call not completed after 2 attempts: busy",
    });
    expect(work.kinds.find((k) => k.kind === "phone-call")).toMatchObject({ dead: 1 });
    // Her number is never in what the admins see.
    expect(JSON.stringify(work)).not.toContain("9811100001");
  });

  it("a job whose process died mid-call is taken again after its lease and does not ring the call she answered", async () => {
    const rung = fakeLine(async () => {
      throw new Error("the line must not be used");
    });
    const id = await queue("+919811100002");
    const [job] = await jobsOf(id);
    // As the process left them when it died: the job held under its lease, the call being placed
    // (attempt 1), answered (an unknown caller's general message), and her keys so far written as they came (the SIP line does so).
    const answeredAt = new Date(Date.now() - 20_000);
    await d.db
      .db()
      .update(d.schema.phoneCalls)
      .set({
        status: "calling",
        attempts: 1,
        lockedUntil: new Date(Date.now() + 600_000),
        answeredAt,
        ivrState: JSON.stringify({ state: { step: "menu", verified: false, wrong: 0 }, play: "again" }),
      })
      .where(eq(d.schema.phoneCalls.id, id));
    await d.db
      .db()
      .update(d.schema.jobs)
      .set({ state: "running", attempts: 1, holder: "gone", leasedUntil: new Date(Date.now() + 60_000) })
      .where(eq(d.schema.jobs.id, job.id));
    // Not while its lease holds.
    await calls.processCallQueue();
    expect((await d.platform.jobById(job.id))!.state).toBe("running");
    expect((await callRow(id)).status).toBe("calling");
    // The lease ran out: taken again, the call ended as answered, the phone not rung again.
    await d.db
      .db()
      .update(d.schema.jobs)
      .set({ leasedUntil: new Date(Date.now() - 1) })
      .where(eq(d.schema.jobs.id, job.id));
    await calls.processCallQueue();
    expect(rung).toHaveLength(0);
    expect(await d.platform.jobById(job.id)).toMatchObject({ state: "done", attempts: 2 });
    const row = await callRow(id);
    expect(row).toMatchObject({ status: "done", outcome: "general-heard", attempts: 1 });
    expect(row.answeredAt!.getTime()).toBe(answeredAt.getTime());
    expect(await jobsOf(id)).toHaveLength(1);
  });

  it("a job whose process died before she answered: the call counts as lost and is placed again as its next job", async () => {
    const rung = fakeLine(async () => ({
      answered: true,
      state: null,
      answeredAt: new Date(),
      durationMs: 1000,
    }));
    const id = await queue("+919811100003");
    const [job] = await jobsOf(id);
    await d.db
      .db()
      .update(d.schema.phoneCalls)
      .set({ status: "calling", attempts: 1, lockedUntil: new Date(Date.now() + 600_000) })
      .where(eq(d.schema.phoneCalls.id, id));
    await d.db
      .db()
      .update(d.schema.jobs)
      .set({ state: "running", attempts: 1, holder: "gone", leasedUntil: new Date(Date.now() - 1) })
      .where(eq(d.schema.jobs.id, job.id));
    await calls.processCallQueue();
    expect(await d.platform.jobById(job.id)).toMatchObject({ state: "done" });
    // Lost, retried (VOICE_RETRY_SECONDS=0: at once, the same round), answered the second time.
    expect(rung).toEqual([{ id, attempt: 2 }]);
    expect(await callRow(id)).toMatchObject({ status: "done", outcome: "general-heard", attempts: 2 });
  });
});
