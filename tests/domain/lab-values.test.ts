import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  makeDependant,
  makeExpert,
  makePatient,
  makeReport,
  pdfBytes,
  refusal,
  review,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * Lab values (decision 0084): the expert holding a report confirms, corrects, removes and adds
 * values, with who and when; the patient's side sees only checked values and only after the
 * opinion; the series over time joins two reviewed reports. Runs on both databases.
 */

let d: Domain;
beforeAll(async () => {
  d = await freshDomain();
});
afterAll(() => d?.close());

const HB = "718-7";
let seq = 0;
async function seedRead(reportId: string, value: number, range = "12.0-15.5") {
  const id = `lv-${Date.now()}-${seq++}`;
  const [low, high] = range.split("-").map(Number);
  await d.db
    .db()
    .insert(d.schema.labValues)
    .values({
      id,
      reportId,
      loinc: HB,
      printedName: "Hb",
      value,
      unit: "g/dL",
      printedValue: String(value),
      printedUnit: "g/dl",
      rangeText: range,
      rangeLow: low,
      rangeHigh: high,
      flag: value < low ? "L" : null,
      page: 1,
      box: "[0.1,0.2,0.5,0.03]",
      confidence: 0.95,
      status: "read",
      createdAt: new Date(Date.now() + seq),
    });
  return id;
}

describe("lab values", () => {
  let patient: Person;
  let manager: Person;
  let expert: Person;
  let other: Person;
  let report: { _id: string; patient: { _id: string } };
  let ids: string[];

  it("the holder confirms, corrects, removes and adds; the patient sees nothing until the opinion", async () => {
    patient = await makePatient();
    manager = await makePatient();
    expert = await makeExpert();
    other = await makeExpert();
    report = (await makeReport(patient)) as typeof report;
    ids = [await seedRead(report._id, 9.8), await seedRead(report._id, 11.0), await seedRead(report._id, 99)];
    expect((await refusal(() => d.consultation.valuesForReview(expert, report._id))).code).toBe("forbidden");
    await claim(expert, report);
    expect((await refusal(() => d.consultation.valuesForReview(other, report._id))).message).toBe(
      "labs.notYours",
    );
    expect(await d.consultation.valuesForReview(expert, report._id)).toHaveLength(3);
    const confirmed = await d.consultation.checkValue(expert, report._id, ids[0], { action: "confirm" });
    expect(confirmed).toMatchObject({ status: "confirmed", flag: "L" });
    expect(confirmed.checkedAt).not.toBeNull();
    // Corrected in g/L: stored in g/dL, the printed range converted alike, the flag from it.
    const corrected = await d.consultation.checkValue(expert, report._id, ids[1], {
      action: "correct",
      value: "160",
      unit: "g/L",
      range: "120 - 155",
    });
    expect(corrected).toMatchObject({
      status: "corrected",
      value: 16,
      rangeLow: 12,
      rangeHigh: 15.5,
      flag: "H",
    });
    // The unit as the lab printed it ("gm%"): read as g/dL, kept as printed for the patient's line.
    expect(
      await d.consultation.checkValue(expert, report._id, ids[1], {
        action: "correct",
        value: "16.0",
        unit: "gm%",
        range: "12.0 - 15.5",
      }),
    ).toMatchObject({ status: "corrected", value: 16, unit: "g/dL", printedUnit: "gm%", flag: "H" });
    await d.consultation.checkValue(expert, report._id, ids[2], { action: "remove" });
    expect(
      (await refusal(() => d.consultation.checkValue(expert, report._id, ids[2], { action: "confirm" })))
        .code,
    ).toBe("conflict");
    const added = await d.consultation.addValue(expert, report._id, {
      loinc: "2345-7",
      value: 126,
      unit: "mg/dL",
    });
    expect(added).toMatchObject({ status: "added", rangeText: null, flag: null });
    // Only the patient's side after the opinion; before it, nothing.
    expect(await d.consultation.confirmedValues(patient, report._id)).toEqual([]);
    await review(expert, report);
    const shown = await d.consultation.confirmedValues(patient, report._id);
    expect(shown.map((v) => v.status).sort()).toEqual(["added", "confirmed", "corrected"]);
    expect((await refusal(() => d.consultation.confirmedValues(manager, report._id))).code).toBe("forbidden");
    // The removed value stays as a row for the trail.
    const all = await d.consultation.valuesForReview(expert, report._id);
    expect(all.find((v) => v._id === ids[2])?.status).toBe("removed");
  });

  it("bad input gets field errors; an unchecked value is never on the patient's side", async () => {
    const bad = async (input: Record<string, unknown>) =>
      (await refusal(() => d.consultation.addValue(expert, report._id, input))).extra?.fieldErrors;
    expect(await bad({ loinc: "0000-0", value: 1, unit: "g/dL" })).toEqual({
      loinc: ["labs.analyteUnknown"],
    });
    expect(await bad({ loinc: HB, value: "nine", unit: "g/dL" })).toMatchObject({
      value: ["labs.valueNotNumber"],
    });
    expect(await bad({ loinc: HB, value: 9, unit: "mg/dL" })).toEqual({ unit: ["labs.unitUnknown"] });
    expect(await bad({ loinc: HB, value: 98, unit: "g/dL" })).toEqual({ value: ["labs.valueImpossible"] });
    expect(await bad({ loinc: HB, value: 9, unit: "g/dL", range: "normal" })).toEqual({
      range: ["labs.rangeUnreadable"],
    });
    expect(
      (await refusal(() => d.consultation.checkValue(expert, report._id, ids[0], { action: "approve" })))
        .code,
    ).toBe("invalid");
    await seedRead(report._id, 8.0);
    const shown = await d.consultation.confirmedValues(patient, report._id);
    expect(shown.some((v) => v.status === "read" || v.status === "removed")).toBe(false);
  });

  it("an analyte in two reviewed reports makes a series; a family manager reads it", async () => {
    const dep = await makeDependant(manager);
    const forDep = async () =>
      (await d.consultation.createReport(
        manager,
        {
          reportType: "Blood Test",
          description: "Sugar",
          phoneNumber: "98765 43210",
          countryCode: "+91",
          consent: "on",
          patientId: dep,
        },
        await d.records.storeUpload(
          (async function* () {
            yield new Uint8Array(pdfBytes());
          })(),
          { maxBytes: 1024 * 1024, allowed: "report", fileName: "r.pdf" },
        ),
      )) as unknown as typeof report;
    const first = await forDep();
    const second = await forDep();
    for (const [r, v] of [
      [first, 10.2],
      [second, 9.1],
    ] as const) {
      const id = await seedRead(r._id, v);
      await claim(expert, r);
      await d.consultation.checkValue(expert, r._id, id, { action: "confirm" });
      await review(expert, r);
    }
    const series = await d.consultation.labSeries(manager, first.patient._id);
    expect(series).toHaveLength(1);
    expect(series[0]).toMatchObject({ loinc: HB, unit: "g/dL" });
    expect(series[0].points.map((p) => p.value)).toEqual([10.2, 9.1]);
    expect((await refusal(() => d.consultation.labSeries(patient, first.patient._id))).code).toMatch(
      /forbidden|not_found/,
    );
  });
});
