import { eq, sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alias } from "~/db/alias";
import { claim, freshDomain, makeExpert, makePatient, makeReport, type Domain } from "../helpers/factories";

/*
 * Prepared selects map their rows with rowMapper() (app/db/client.server.ts) instead of drizzle's
 * own mapper. The same select, run unprepared (drizzle maps it) and prepared (ours), must give the
 * same objects: nested fields, sql columns, timestamps and booleans decoded, and a left-joined
 * table's object null when the join found nothing — on both databases.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

describe("rows of prepared selects", () => {
  it("are the objects drizzle's own mapping gives, left joins and sql columns included", async () => {
    const patient = await makePatient();
    const expert = await makeExpert();
    const claimedReport = await makeReport(patient);
    await makeReport(patient);
    await claim(expert, claimedReport);
    const { reports, users, patients } = d.schema;
    const claimer = alias(users, "claimer");
    const select = (patientId: SQL | string) =>
      d.db
        .db()
        .select({
          n: sql<number>`1 + 1`,
          report: reports,
          patient: {
            id: patients.id,
            firstName: patients.firstName,
            upper: sql<string>`upper(${patients.firstName})`,
          },
          claimer: { id: claimer.id, firstName: claimer.firstName, createdAt: claimer.createdAt },
        })
        .from(reports)
        .innerJoin(patients, eq(patients.id, reports.patientId))
        .leftJoin(claimer, eq(claimer.id, reports.claimedBy))
        .where(eq(reports.patientId, patientId))
        .orderBy(reports.createdAt, reports.id);
    const byDrizzle = await select(patient.id);
    const prepared = d.db.prepareQuery(
      "row_mapping_test",
      select(sql.placeholder("patient") as unknown as SQL),
    );
    const byOurs = await prepared.execute({ patient: patient.id });
    expect(byDrizzle).toHaveLength(2);
    expect(byOurs).toEqual(byDrizzle);
    const claimedRow = byOurs.find((r) => r.report.id === claimedReport._id)!;
    expect(claimedRow.claimer?.id).toBe(expert.id);
    expect(claimedRow.claimer?.createdAt).toBeInstanceOf(Date);
    expect(claimedRow.report.createdAt).toBeInstanceOf(Date);
    expect(byOurs.find((r) => r.report.id !== claimedReport._id)!.claimer).toBeNull();
  });
});

describe.runIf(process.env.TEST_BACKEND === "pg-s3")("the PostgreSQL pool's connections", () => {
  it("plan no Memoize caches and price an index probe at 1.1, on every connection (decisions 0044, 0052)", async () => {
    // Held side by side, so the pool opens several connections rather than reusing one.
    const pool = d.db.pgPool()!;
    const clients = await Promise.all(Array.from({ length: 3 }, () => pool.connect()));
    try {
      const settings = await Promise.all(
        clients.map((c) =>
          c.query("select current_setting('enable_memoize') as m, current_setting('random_page_cost') as r"),
        ),
      );
      expect(settings.map((r) => r.rows[0])).toEqual(Array(3).fill({ m: "off", r: "1.1" }));
    } finally {
      clients.forEach((c) => c.release());
    }
  });
});
