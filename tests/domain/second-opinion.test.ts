import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  makeAdmin,
  makeExpert,
  makePatient,
  makeReport,
  refusal,
  review,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Second opinions in the domain (decision 0038): the list counters stay exact (the patient's and
 * the per-type ones count first opinions, second opinions count per specialty), a withdrawn
 * consent deleting an awaited second opinion keeps the case's file, and the rules of who may ask.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

type Row = Record<string, unknown>;
async function query(text: string, ...params: unknown[]): Promise<Row[]> {
  if (d.db.dialect() === "sqlite")
    return d.db
      .sqliteConnection()!
      .prepare(text)
      .all(...params) as Row[];
  let i = 0;
  const { rows } = await d.db.pgPool()!.query(
    text.replace(/\?/g, () => `$${++i}`),
    params,
  );
  return rows as Row[];
}

/** The last statement of a migration: its recount of the counters, as a query. */
function recountOf(sqlite: string, pg: string): string {
  const file = d.db.dialect() === "sqlite" ? sqlite : pg;
  const text = readFileSync(path.resolve(process.cwd(), file), "utf8");
  const last = text.split("--> statement-breakpoint").at(-1)!.trim();
  expect(last.startsWith("INSERT INTO list_counts (key, n)")).toBe(true);
  return last.replace("INSERT INTO list_counts (key, n)", "").replace(/;\s*$/, "");
}

/** Every counter equals its real count: the 0031 recount, with this decision's keys recounted by its migration. */
async function expectExact() {
  const pairs = (rows: Row[]) => rows.map((r) => Object.values(r)).map(([k, n]) => [String(k), Number(n)]);
  const mine = /^r:(st|p|ss):/;
  const base = pairs(
    await query(recountOf("drizzle/sqlite/0010_list_counts.sql", "drizzle/pg/0007_list_counts.sql")),
  ).filter(([k]) => !mine.test(k as string));
  const second = pairs(
    await query(recountOf("drizzle/sqlite/0013_second_opinions.sql", "drizzle/pg/0010_second_opinions.sql")),
  );
  const real = Object.fromEntries([...base, ...second]);
  const counters = Object.fromEntries(
    pairs(await query("SELECT key, n FROM list_counts WHERE n <> 0")) as [string, number][],
  );
  expect(counters).toEqual(real);
  return counters;
}

describe("second opinions", () => {
  let patient: Person;
  let cardio: Person;
  let radio: Person;
  let neuro: Person;
  let admin: Person;
  let ecg: { _id: string };
  let second: { _id: string };

  it("counts the case once for the patient and the second opinion under its specialty", async () => {
    patient = await makePatient();
    cardio = await makeExpert({ specialties: ["Cardiology"] });
    radio = await makeExpert({ specialties: ["Radiology"] });
    neuro = await makeExpert({ specialties: ["Neurology"] });
    admin = await makeAdmin();
    ecg = await makeReport(patient, { type: "ECG", urgency: "urgent" });
    await claim(cardio, ecg);
    second = await d.consultation.requestSecondOpinion(cardio, ecg._id, {
      specialty: "Radiology",
      note: "The axis?",
    });
    const c = await expectExact();
    expect(c[`r:p:${patient.id}`]).toBe(1);
    expect(c["r:st:Pending:ECG"]).toBe(1);
    expect(c["r:ss:Pending:Radiology"]).toBe(1);
    expect(c["r:s:Pending"]).toBe(2);
    expect(c["r:sp:Pending:0"]).toBe(2);
    const list = await d.consultation.listPatientReports(patient, patient.id, { page: 1, pageSize: 10 });
    expect(list.total).toBe(1);
    expect(list.items[0].secondOpinions?.map((s) => s._id)).toEqual([second._id]);
  });

  it("the queue of the specialty asked holds it; the first expert cannot take it", async () => {
    const only = await d.consultation.listPendingReports(radio, { page: 1, pageSize: 10 }, { match: "only" });
    expect(only.items.map((r) => r._id)).toEqual([second._id]);
    expect(only.total).toBe(1);
    const first = await d.consultation.listPendingReports(
      cardio,
      { page: 1, pageSize: 10 },
      { match: "first" },
    );
    expect(first.items.map((r) => r._id)).toEqual([ecg._id, second._id]);
    expect(first.total).toBe(2);
    expect((await refusal(() => claim(cardio, second))).message).toBe("panel.notYourSpecialty");
  });

  it("reviews keep the counters exact; agreement is required for the second only", async () => {
    await review(cardio, ecg);
    await claim(radio, second);
    expect((await refusal(() => review(radio, second))).extra?.fieldErrors).toMatchObject({
      agreement: ["panel.agreementRequired"],
      agreementReason: ["panel.reasonRequired"],
    });
    await d.consultation.addReview(radio, second._id, {
      review: "Borderline axis.",
      agreement: "disagree",
      agreementReason: "the axis is normal",
    });
    const c = await expectExact();
    expect(c["r:ss:Reviewed:Radiology"]).toBe(1);
    expect(c[`r:e:${radio.id}`]).toBe(1);
  });

  it("a withdrawn consent deletes an awaited second opinion but keeps the case's file", async () => {
    const awaited = await d.consultation.requestSecondOpinion(admin, ecg._id, {
      specialty: "Neurology",
      note: "Any neurological cause?",
    });
    expect(neuro.id).toBeTruthy();
    await d.rights.changeConsent(
      patient,
      { purpose: "review", granted: false },
      { via: "settings", locale: "en" },
    );
    const left = await query(
      "SELECT id, file_key FROM reports WHERE id = ? OR second_of = ?",
      ecg._id,
      ecg._id,
    );
    expect(left.map((r) => r.id).sort()).toEqual([ecg._id, second._id].sort());
    expect(left.map((r) => r.id)).not.toContain(awaited._id);
    expect(await d.records.storedExists(String(left[0].file_key))).toBe(true);
    await expectExact();
  });
});

describe("one expert, one opinion of a case (decision 0058)", () => {
  it("whoever claimed, gave or asked for an opinion of the case takes no other; only the second's holder reads the first", async () => {
    const patient = await makePatient();
    const cardio = await makeExpert({ specialties: ["Cardiology"] });
    // Both specialties: they could take either opinion, but only one.
    const both = await makeExpert({ specialties: ["Cardiology", "Radiology"] });
    const radio = await makeExpert({ specialties: ["Radiology", "Neurology"] });
    const onlooker = await makeExpert({ specialties: ["Radiology"] });
    const ecg = await makeReport(patient, { type: "ECG" });
    await claim(both, ecg);
    await d.consultation.releaseReport(both, ecg._id);
    await claim(cardio, ecg);
    const second = await d.consultation.requestSecondOpinion(cardio, ecg._id, {
      specialty: "Radiology",
      note: "The axis?",
    });
    await review(cardio, ecg);
    // Claimed the first, released it, another expert gave it: still no second opinion from them.
    expect((await refusal(() => claim(both, second))).message).toBe("panel.oneOpinionPerCase");
    // An approved radiologist who has not taken the second does not read the first opinion.
    const { report: looked } = await d.consultation.reviewScreenReport(onlooker, second._id);
    expect(looked.firstOpinion ?? null).toBeNull();
    const held = await claim(radio, second);
    expect(held.firstOpinion?._id).toBe(ecg._id);
    await d.consultation.addReview(radio, second._id, {
      review: "Normal axis.",
      agreement: "agree",
      agreementReason: "same reading",
    });
    // The second expert cannot give a third opinion of the same case in their other specialty.
    const third = await d.consultation.requestSecondOpinion(cardio, ecg._id, {
      specialty: "Neurology",
      note: "Syncope?",
    });
    expect((await refusal(() => claim(radio, third))).message).toBe("panel.oneOpinionPerCase");
    const signed = await refusal(() =>
      d.consultation.addReview(radio, third._id, { review: "x", agreement: "agree", agreementReason: "x" }),
    );
    expect(signed).toMatchObject({ code: "forbidden", message: "panel.oneOpinionPerCase" });
  });

  it("one expert claiming both opinions of a case at once gets one", async () => {
    const patient = await makePatient();
    const cardio = await makeExpert({ specialties: ["Cardiology"] });
    const both = await makeExpert({ specialties: ["Cardiology", "Radiology"] });
    const ecg = await makeReport(patient, { type: "ECG" });
    await claim(cardio, ecg);
    const second = await d.consultation.requestSecondOpinion(cardio, ecg._id, {
      specialty: "Radiology",
      note: "The axis?",
    });
    await d.consultation.releaseReport(cardio, ecg._id);
    const outcomes = await Promise.allSettled([claim(both, second), claim(both, ecg)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(["panel.firstExpertCannot", "panel.oneOpinionPerCase"]).toContain(refused.reason.message);
  });

  it("adding a specialty sends an approved expert back to the admin; dropping one does not", async () => {
    const widening = await makeExpert({ specialties: ["Cardiology"] });
    const wider = await d.accounts.updateExpertDetails(widening, {
      specialties: ["Cardiology", "Radiology"],
    });
    expect(wider.backToReview).toBe(true);
    expect(wider.user.approved).toBe(false);
    const narrowing = await makeExpert({ specialties: ["Cardiology", "Radiology"] });
    const narrower = await d.accounts.updateExpertDetails(narrowing, { specialties: ["Cardiology"] });
    expect(narrower.backToReview).toBe(false);
    expect(narrower.user.approved).toBe(true);
  });
});
