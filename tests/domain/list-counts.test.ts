import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  makeCentrePatient,
  makeExpert,
  makePatient,
  makeReport,
  newClient,
  review,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * The lists' totals are counter rows kept by triggers (decision 0031). After every kind of write
 * — uploads, claims, reviews, deletions, an erasure's cascades, a transaction rolled back — each
 * counter must equal a real count of its rows. The real counts are the migration's own backfill
 * query (a GROUP BY over the tables, independent of the triggers), run now; a few are also
 * checked against a plain count(*) written here.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

type Row = { key: string; n: number };

async function query(text: string): Promise<Row[]> {
  const lite = d.db.sqliteConnection();
  if (d.db.dialect() === "sqlite") return lite!.prepare(text).all() as Row[];
  const { rows } = await d.db.pgPool()!.query(text);
  return rows as Row[];
}

/** Every counter's true value, computed from the rows by a GROUP BY (the bulk load's recount). */
async function recountQuery(): Promise<string> {
  const { RECOUNT_QUERY } = await import("~/db/bulk-load.server");
  return RECOUNT_QUERY;
}

async function counters(): Promise<Record<string, number>> {
  // The centres' versions (v:c:, decision 0047) are not counts: tests/domain/centres.test.ts checks them.
  const rows = await query("SELECT key, n FROM list_counts WHERE n <> 0 AND key NOT LIKE 'v:%'");
  return Object.fromEntries(rows.map((r) => [r.key, Number(r.n)]));
}

async function expectExact() {
  const raw = await query(await recountQuery());
  const real = Object.fromEntries(
    raw.map((r) => {
      const values = Object.values(r as Record<string, unknown>);
      return [String(values[0]), Number(values[1])];
    }),
  );
  expect(await counters()).toEqual(real);
  // And a few against counts written out here.
  const plain = async (text: string) => Number(Object.values((await query(text))[0])[0]);
  const c = await counters();
  expect(c["r:s:Pending"] ?? 0).toBe(await plain("SELECT count(*) FROM reports WHERE status = 'Pending'"));
  expect(c["r:s:Reviewed"] ?? 0).toBe(await plain("SELECT count(*) FROM reports WHERE status = 'Reviewed'"));
  expect(c["a:all"] ?? 0).toBe(await plain("SELECT count(*) FROM audit_events"));
  expect(c["u:all"] ?? 0).toBe(await plain("SELECT count(*) FROM users"));
  // A centre's reports are its profiles' reports (the column the trigger copies agrees with the join).
  for (const [key, n] of Object.entries(c).filter(([k]) => k.startsWith("r:cs:"))) {
    const [, , centre, status, priority] = key.split(":");
    expect(n).toBe(
      await plain(
        `SELECT count(*) FROM reports JOIN patients ON patients.id = reports.patient_id WHERE patients.centre_id = '${centre}' AND reports.status = '${status}' AND reports.priority = ${Number(priority)}`,
      ),
    );
  }
  return c;
}

describe("list counters kept by triggers", () => {
  let patient: Person;
  let other: Person;
  let expert: Person;

  it("count uploads (per status, type, urgency and patient), users and audit events", async () => {
    patient = await makePatient();
    other = await makePatient();
    expert = await makeExpert({ specialties: ["Radiology"] });
    for (const type of ["X-Ray", "MRI", "Blood Test"]) await makeReport(patient, { type });
    await makeReport(other, { type: "X-Ray", urgency: "urgent" });
    const c = await expectExact();
    expect(c["r:s:Pending"]).toBe(4);
    expect(c["r:st:Pending:X-Ray"]).toBe(2);
    expect(c["r:sp:Pending:0"]).toBe(1);
    expect(c[`r:p:${patient.id}`]).toBe(3);
    expect(c["u:t:Expert"]).toBe(1);
  });

  it("follow claims, releases and reviews (status, expert, follow-up expert)", async () => {
    const [a, b] = [await makeReport(patient, { type: "CT Scan" }), await makeReport(other, { type: "ECG" })];
    await claim(expert, a);
    await d.consultation.releaseReport(expert, a._id);
    await claim(expert, b);
    await review(expert, a);
    await review(expert, b);
    const c = await expectExact();
    expect(c["r:s:Reviewed"]).toBe(2);
    expect(c[`r:e:${expert.id}`]).toBe(2);
    expect(c["r:st:Pending:CT Scan"] ?? 0).toBe(0);
  });

  it("follow deletions, public forms and centre patients", async () => {
    const r = await makeReport(patient, { type: "Urine Test" });
    await d.consultation.deleteReport(patient, r._id);
    await d.messaging.saveContactMessage(
      null,
      { name: "Asha", email: "a@example.com", message: "Hello" },
      newClient(),
    );
    await d.messaging.saveCallbackRequest(
      null,
      { name: "Asha", countryCode: "+91", phoneNumber: "9876543210", message: "" },
      newClient(),
    );
    const { centreId } = await makeCentrePatient();
    const c = await expectExact();
    expect(c["cm:all"]).toBe(1);
    expect(c["cb:all"]).toBe(1);
    expect(c[`pc:${centreId}`]).toBe(1);
    expect(c["c:all"]).toBe(1);
  });

  it("follow an erasure's cascades (the patient's reports, the expert leaving reviewed reports)", async () => {
    await d.rights.eraseAccount(other, { password: other.password, immediate: true }, other.client);
    let c = await expectExact();
    expect(c[`r:p:${other.id}`] ?? 0).toBe(0);
    await d.rights.eraseAccount(expert, { password: expert.password, immediate: true }, expert.client);
    c = await expectExact();
    expect(c[`r:e:${expert.id}`] ?? 0).toBe(0);
  });

  it("follow a centre's reports: a profile moved to a centre takes its reports; uploads, reviews, erasure", async () => {
    const p = await makePatient();
    const reader = await makeExpert({ specialties: ["Radiology"] });
    const first = await makeReport(p, { type: "X-Ray", urgency: "urgent" });
    await makeReport(p, { type: "MRI" });
    const { centreId } = await makeCentrePatient({ patient: p.id });
    let c = await expectExact();
    expect(c[`r:cs:${centreId}:Pending:0`]).toBe(1);
    expect(c[`r:cs:${centreId}:Pending:1`]).toBe(1);
    expect(c[`p:c:${centreId}`]).toBe(1);
    await makeReport(p, { type: "ECG" });
    await claim(reader, first);
    await review(reader, first);
    c = await expectExact();
    expect(c[`r:cs:${centreId}:Reviewed:0`]).toBe(1);
    expect(c[`r:cs:${centreId}:Pending:0`] ?? 0).toBe(0);
    expect(c[`r:cs:${centreId}:Pending:1`]).toBe(2);
    await d.rights.eraseAccount(p, { password: p.password, immediate: true }, p.client);
    c = await expectExact();
    expect(c[`r:cs:${centreId}:Pending:1`] ?? 0).toBe(0);
  });

  it("are untouched by a transaction that rolls back", async () => {
    const before = await expectExact();
    const { reports, contactMessages } = d.schema;
    const { eq } = await import("drizzle-orm");
    const [row] = await d.db.db().select().from(reports).where(eq(reports.status, "Pending")).limit(1);
    await expect(
      d.db.transaction(function* (tx) {
        yield* d.db.exec(tx.insert(reports).values({ ...row, id: "rolledback000000000000001" }));
        yield* d.db.exec(tx.delete(reports).where(eq(reports.id, row.id)));
        yield* d.db.exec(
          tx
            .insert(contactMessages)
            .values({ id: "rolledback000000000000002", name: "x", email: "x@y.z", message: "m" }),
        );
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await expectExact()).toEqual(before);
  });
});
