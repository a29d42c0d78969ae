import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDomain, makePatient, type Domain } from "../helpers/factories";
import { makeReport } from "../helpers/factories";
import { labPdf } from "../helpers/lab-corpus";

/*
 * The lab reader as the one runner's kind "lab-read" (decisions 0082, 0113), on a real database: a
 * read that keeps failing is tried the kind's three times and then given up, its reading "failed"
 * with the last error and its job dead on the Service screen; a read whose process died mid-way is
 * taken again after its lease and stored once.
 */
let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function reading(reportId: string) {
  const { labReads } = d.schema;
  return (await d.db.db().select().from(labReads).where(eq(labReads.reportId, reportId)))[0];
}

async function jobOf(reportId: string) {
  const { jobs } = d.schema;
  return (await d.db.db().select().from(jobs).where(eq(jobs.key, reportId)))[0];
}

describe("the lab-read kind", () => {
  it("a read that keeps failing is given up after three attempts: failed with its error, its job dead", async () => {
    const reader = await import("~/domain/records/lab-reader.server");
    reader.configureLabReader({ backoff: [10] });
    try {
      const report = await makeReport(await makePatient());
      const row = (
        await d.db.db().select().from(d.schema.reports).where(eq(d.schema.reports.id, report._id))
      )[0];
      await d.records.deleteStored(row.fileKey); // its file is gone: every attempt fails
      for (let i = 0; i < 3; i++) {
        await d.records.processLabReads();
        await sleep(30);
      }
      const read = await reading(report._id);
      expect(read.status).toBe("failed");
      expect(read.attempts).toBe(3);
      expect(read.lastError).toBeTruthy();
      const job = await jobOf(report._id);
      expect(job.state).toBe("dead");
      expect(job.attempts).toBe(3);
      // Nothing more is tried.
      await d.records.processLabReads();
      expect((await jobOf(report._id)).attempts).toBe(3);
    } finally {
      reader.configureLabReader();
    }
  });

  it("a read whose process died mid-way is taken again after its lease and stored once", async () => {
    const report = await makeReport(await makePatient(), { bytes: await labPdf("table") });
    const { jobs, labReads, labValues } = d.schema;
    // As a reader that died mid-read leaves it: the reading "reading", its job running under a lease that ran out.
    await d.db
      .db()
      .update(jobs)
      .set({ state: "running", attempts: 1, holder: "gone", leasedUntil: new Date(Date.now() - 1000) })
      .where(eq(jobs.key, report._id));
    await d.db
      .db()
      .update(labReads)
      .set({ status: "reading", attempts: 1 })
      .where(eq(labReads.reportId, report._id));
    await d.records.processLabReads();
    const read = await reading(report._id);
    expect(read.status).toBe("read");
    expect(read.attempts).toBe(2);
    const job = await jobOf(report._id);
    expect(job.state).toBe("done");
    expect(job.attempts).toBe(2);
    // Its values once: no name twice.
    const values = await d.db.db().select().from(labValues).where(eq(labValues.reportId, report._id));
    expect(values.length).toBeGreaterThan(3);
    expect(new Set(values.map((v) => `${v.loinc}|${v.printedName}`)).size).toBe(values.length);
  });
});
