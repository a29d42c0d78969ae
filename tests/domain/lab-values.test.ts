import { eq } from "drizzle-orm";
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
async function seedRead(reportId: string, value: number, range = "12.0-15.5", loinc = HB) {
  const id = `lv-${Date.now()}-${seq++}`;
  const [low, high] = range.split("-").map(Number);
  const unit = loinc === HB ? "g/dL" : "mg/dL";
  await d.db
    .db()
    .insert(d.schema.labValues)
    .values({
      id,
      reportId,
      loinc,
      printedName: "Hb",
      value,
      unit,
      printedValue: String(value),
      printedUnit: unit,
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

  /*
   * One range grammar (decision 0105): the expert's correction reads a range as the reader does —
   * in parts by sex, in words, with its units — kept whole, its bounds the part for the report
   * owner's recorded sex and age; a value keeps the digits it was typed with.
   */
  it("a number read in doubt is judged when the holder confirms it, unless its printed flag says otherwise", async () => {
    // Decision 0126: the reader stores no bounds for a number it doubts; her confirmation vouches
    // for value and range as read, so they are judged then.
    const who = await makePatient();
    const r = (await makeReport(who)) as typeof report;
    const holder = await makeExpert();
    await claim(holder, r);
    const doubted = async (value: number, flag: "H" | "L" | null, range = "12.0 - 15.5") => {
      const id = await seedRead(r._id, value, "12.0-15.5");
      await d.db
        .db()
        .update(d.schema.labValues)
        .set({ rangeText: range, rangeLow: null, rangeHigh: null, flag, confidence: 0.6 })
        .where(eq(d.schema.labValues.id, id));
      return id;
    };
    const before = (await d.consultation.valuesForReview(holder, r._id)).length;
    const low = await doubted(9.8, null);
    const high = await doubted(17.2, "H");
    const atOdds = await doubted(17.2, "L");
    const unreadable = await doubted(13.1, null, "see note");
    const seen = await d.consultation.valuesForReview(holder, r._id);
    expect(seen).toHaveLength(before + 4);
    expect(seen.find((v) => v._id === low)).toMatchObject({ judgement: "unknown", rangeLow: null });
    const confirm = (id: string) => d.consultation.checkValue(holder, r._id, id, { action: "confirm" });
    expect(await confirm(low)).toMatchObject({
      status: "confirmed",
      rangeLow: 12,
      rangeHigh: 15.5,
      judgement: "below",
      flag: "L",
    });
    expect(await confirm(high)).toMatchObject({
      rangeLow: 12,
      rangeHigh: 15.5,
      judgement: "above",
      flag: "H",
    });
    // The report at odds with itself (its flag against value and range): nothing judged.
    expect(await confirm(atOdds)).toMatchObject({
      rangeLow: null,
      rangeHigh: null,
      judgement: "unknown",
      flag: null,
    });
    // A range the grammar cannot read: confirmed as it was.
    expect(await confirm(unreadable)).toMatchObject({
      status: "confirmed",
      rangeLow: null,
      judgement: "unknown",
    });
    // A value read without doubt keeps the bounds it was read with.
    const clean = await seedRead(r._id, 14.0);
    expect(await confirm(clean)).toMatchObject({ rangeLow: 12, rangeHigh: 15.5, judgement: "within" });
  });

  describe("a correction beside a range printed in parts", () => {
    const CREATININE = "2160-0";
    const TWO_PART = "Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl";
    const recorded = async (who: Person, sex: "female" | "male" | null, birthYear: number | null) =>
      d.db
        .db()
        .update(d.schema.patients)
        .set({ sex, birthYear })
        .where(eq(d.schema.patients.accountId, who.id));
    const corrected = async (sex: "female" | "male" | null, birthYear: number | null, input: object) => {
      const who = await makePatient();
      await recorded(who, sex, birthYear);
      const r = (await makeReport(who)) as typeof report;
      // An expert of its own: one expert holds only so many claims at once.
      const holder = await makeExpert();
      await claim(holder, r);
      const id = await seedRead(r._id, 1.3, "0.6-1.1", CREATININE);
      const v = await d.consultation.checkValue(holder, r._id, id, { action: "correct", ...input });
      const [stored] = (await d.consultation.valuesForReview(holder, r._id)).filter((x) => x._id === id);
      expect(stored).toEqual(v);
      return v;
    };

    it("takes the part for the owner's recorded sex, keeps the range whole, and says which part applies", async () => {
      const input = { value: "1.3", unit: "mg/dl", range: TWO_PART };
      // Her recorded sex chooses: 1.3 is within the men's part, above the women's.
      expect(await corrected("male", 1980, input)).toMatchObject({
        rangeText: TWO_PART,
        rangeLow: 0.7,
        rangeHigh: 1.4,
        rangePart: "Male : 0.7 - 1.4",
        judgement: "within",
        flag: null,
      });
      expect(await corrected("female", 1980, input)).toMatchObject({
        rangeText: TWO_PART,
        rangeLow: 0.6,
        rangeHigh: 1.2,
        rangePart: "Female : 0.6 - 1.2",
        judgement: "above",
        flag: "H",
      });
      // No sex recorded: no part is chosen and nothing is judged — never a guess.
      expect(await corrected(null, null, input)).toMatchObject({
        rangeText: TWO_PART,
        rangeLow: null,
        rangeHigh: null,
        rangePart: null,
        judgement: "unknown",
        flag: null,
      });
    });

    it("an age band is chosen by her age in the year the report came; worded and one-sided ranges are read", async () => {
      const year = new Date().getUTCFullYear();
      const bands = "1 - 12 Yrs: 0.3 - 0.7 > 12 Yrs : 0.6 - 1.2 mg/dl";
      expect(await corrected(null, year - 8, { value: "1.3", unit: "mg/dL", range: bands })).toMatchObject({
        rangeLow: 0.3,
        rangeHigh: 0.7,
        rangePart: "1 - 12 Yrs: 0.3 - 0.7",
        judgement: "above",
      });
      expect(
        await corrected("female", 1990, { value: "1.3", unit: "mg/dL", range: "Up to 1.5 mg/dL" }),
      ).toMatchObject({
        rangeText: "Up to 1.5 mg/dL",
        rangeLow: null,
        rangeHigh: 1.5,
        rangePart: null,
        judgement: "within",
      });
    });

    it("in another unit the bounds are converted with the value; a unit inside the range must be the value's", async () => {
      // Creatinine corrected in µmol/L beside a range printed in µmol/L: stored in mg/dL.
      const v = await corrected("female", 1980, {
        value: "115",
        unit: "umol/L",
        range: "Male : 62 - 124 umol/L Female : 53 - 106 umol/L",
      });
      expect(v).toMatchObject({ rangePart: "Female : 53 - 106", judgement: "above", printedValue: "115" });
      expect(v.rangeHigh).toBeCloseTo(1.2, 2);
      const refused = await refusal(() =>
        corrected("female", 1980, { value: "1.3", unit: "mg/dL", range: "Male : 62 - 124 umol/L" }),
      );
      expect(refused.extra?.fieldErrors).toEqual({ range: ["labs.rangeOtherUnit"] });
    });

    it("a value keeps the digits it was typed with: 7.0 stays 7.0", async () => {
      const v = await corrected("female", 1980, { value: "7.0", unit: "mg/dL", range: "0.6 - 1.2" });
      expect(v).toMatchObject({ value: 7, printedValue: "7.0", judgement: "above" });
      // Not a number: the same message as ever.
      expect(
        (await refusal(() => corrected("female", 1980, { value: "7.0.1", unit: "mg/dL" }))).extra
          ?.fieldErrors,
      ).toEqual({ value: ["labs.valueNotNumber"] });
    });

    it("a range of 120 characters fits, a longer one is refused with its own message", async () => {
      const long = `${TWO_PART} ${"Children : 0.3 - 0.7 mg/dl "}`.repeat(3).trim();
      expect(long.length).toBeGreaterThan(120);
      expect(
        (await refusal(() => corrected("female", 1980, { value: "1.3", unit: "mg/dL", range: long }))).extra
          ?.fieldErrors,
      ).toEqual({ range: ["labs.rangeTooLong"] });
      const added = await d.consultation.addValue(expert, report._id, {
        loinc: "1742-6",
        value: "52",
        unit: "U/L",
        range: "Male : Up to 45 U/L Female : Up to 34 U/L",
      });
      // This report's patient has no sex recorded by the factory's signup: not judged.
      expect(added).toMatchObject({
        rangeText: "Male : Up to 45 U/L Female : Up to 34 U/L",
        printedValue: "52",
      });
    });
  });
});
