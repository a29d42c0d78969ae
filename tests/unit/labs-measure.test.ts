import type { Observation, Resource } from "@medplum/fhirtypes";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LabValueRow, ReportRow } from "~/db/schema";
import type { BundleContext, Ref } from "~/domain/interop/fhir-codes.server";
import { addObservations } from "~/domain/interop/fhir-observations.server";
import {
  CATALOGUE,
  JUDGEMENT_WORDS,
  printedMeasure,
  recogniseLabRows,
  judgementWords,
  MAX_TEXT,
  storedMeasure,
  wordKind,
  wordMeasure,
  type Analyte,
  type Judgement,
  type LabMeasure,
  type NumberMeasure,
} from "~/domain/records/labs/index";

/*
 * One value, one unit, one judgement (decision 0088), as properties over EVERY analyte of the
 * catalogue and EVERY unit it converts: a value printed with its range in that unit is judged as
 * the printed numbers say — inside (and on either edge) "within", outside on its own side — once
 * converted into the analyte's unit, once stored and read back, and by everything that reads the
 * measure: the patient's words, the expert's flag, the chart's band and the FHIR Observation
 * (value, referenceRange and interpretation).
 */

/** Every analyte with every unit it may be printed in, and the factor of that unit. */
const UNITS = CATALOGUE.flatMap((a) => [
  { a, ucum: a.unit, factor: 1 },
  ...a.alt.map((u) => ({ a, ucum: u.ucum, factor: u.factor })),
]);

/** A number as a lab prints it: up to seven digits, up to three of them decimals. */
const printed = (max = 9_999_999) =>
  fc
    .tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max: 3 }))
    .map(([k, d]) => Number((k / 10 ** d).toFixed(d)));

/** What the printed numbers themselves say. */
function truth(v: number, low: number | null, high: number | null): Judgement {
  if (low === null && high === null) return "unknown";
  if (high !== null && v > high) return "above";
  if (low !== null && v < low) return "below";
  return "within";
}

const report = { id: "r1", createdAt: new Date(0) } as ReportRow;

/** The Observation the FHIR export makes of a stored value. */
function observationOf(row: LabValueRow): Observation {
  const out: Resource[] = [];
  const ctx = {
    s: { labValues: new Map([[report.id, [row]]]) },
    add: (r: Resource) => {
      out.push(r);
      return { reference: `urn:uuid:${r.id}` };
    },
  } as unknown as BundleContext;
  const ref = { reference: "urn:uuid:x" } as Ref;
  addObservations(ctx, report, ref, undefined, ref);
  return out[0] as Observation;
}

/** A lab_values row as the reader or the expert stores a measure. */
function rowOf(a: Analyte, m: NumberMeasure, rangeText: string | null): LabValueRow {
  return {
    id: "v1",
    reportId: report.id,
    loinc: a.loinc,
    printedName: a.name,
    value: m.value,
    unit: m.unit,
    valueText: null,
    printedValue: "",
    printedUnit: null,
    rangeText,
    rangeLow: m.low,
    rangeHigh: m.high,
    flag: null,
    page: null,
    box: null,
    confidence: null,
    status: "confirmed",
    removedFrom: null,
    checkedBy: null,
    checkedAt: null,
    createdAt: new Date(0),
  };
}

const FHIR = { below: "L", within: "N", above: "H", outside: "A", unknown: undefined } as const;
const FLAG = { below: "L", within: null, above: "H", outside: null, unknown: null } as const;

/** A number's measure (every measure the numeric properties make). */
function numeric(m: LabMeasure | null): NumberMeasure {
  if (!m || m.kind !== "number") throw new Error("not a number's measure");
  return m;
}

/** Everything that reads the measure says `expected`, in the analyte's unit, stored and read back. */
function expectEverywhere(a: Analyte, measure: LabMeasure, expected: Judgement, what: string) {
  const m = numeric(measure);
  expect(m.judgement, what).toBe(expected);
  expect(m.unit, what).toBe(a.unit);
  // Stored (the row's value and range, both in the analyte's unit) and read back.
  const stored = numeric(storedMeasure({ value: m.value, unit: m.unit, rangeLow: m.low, rangeHigh: m.high }));
  expect(stored.judgement, `${what}, stored`).toBe(expected);
  // The patient's words and the expert's flag.
  expect(JUDGEMENT_WORDS[stored.judgement], what).toBe(
    {
      below: "labs.below",
      within: "labs.within",
      above: "labs.above",
      outside: "labs.outside",
      unknown: "labs.noRange",
    }[expected],
  );
  expect(stored.flag, what).toBe(FLAG[expected]);
  // The chart's band: the point is inside it exactly when within.
  if (expected !== "unknown")
    expect(
      (stored.low === null || stored.low <= stored.value) &&
        (stored.high === null || stored.value <= stored.high),
      `${what}, band`,
    ).toBe(expected === "within");
  // The FHIR Observation: its interpretation, and its range and value in one unit saying the same.
  const o = observationOf(rowOf(a, m, expected === "unknown" ? null : "as printed"));
  expect(o.interpretation?.[0]?.coding?.[0]?.code, `${what}, FHIR`).toBe(FHIR[expected]);
  expect(o.valueQuantity).toMatchObject({ value: m.value, code: a.unit });
  const range = o.referenceRange?.[0];
  if (expected !== "unknown") {
    for (const q of [range?.low, range?.high]) if (q) expect(q.code, what).toBe(a.unit);
    expect(truth(o.valueQuantity!.value!, range?.low?.value ?? null, range?.high?.value ?? null)).toBe(
      expected,
    );
  }
}

const RUNS = { numRuns: 60 };

describe("a value against the range printed beside it (LabMeasure)", () => {
  it(`covers ${UNITS.length} units of ${CATALOGUE.length} analytes, each converted or the analyte's own`, () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(90);
    expect(UNITS.length - CATALOGUE.length).toBeGreaterThanOrEqual(60);
  });

  it.each(UNITS.map((u) => [`${u.a.name} in ${u.ucum}`, u] as const))(
    "%s: inside or on an edge is within, outside is on its side, everywhere",
    (_, { a, ucum }) => {
      fc.assert(
        fc.property(printed(), printed(), printed(), (x, y, v) => {
          const [low, high] = x <= y ? [x, y] : [y, x];
          const m = printedMeasure(a, v, ucum, { low, high })!;
          expectEverywhere(a, m, truth(v, low, high), `${v} ${ucum} in ${low}–${high}`);
        }),
        RUNS,
      );
      // On either edge: within.
      fc.assert(
        fc.property(printed(), printed(), fc.boolean(), (x, y, lowEdge) => {
          const [low, high] = x <= y ? [x, y] : [y, x];
          const v = lowEdge ? low : high;
          expectEverywhere(
            a,
            printedMeasure(a, v, ucum, { low, high })!,
            "within",
            `${v} ${ucum} on ${low}–${high}`,
          );
        }),
        RUNS,
      );
      // Just outside, by the last printed digit: on its own side.
      fc.assert(
        fc.property(printed(999_999), fc.integer({ min: 0, max: 3 }), fc.boolean(), (edge, d, above) => {
          const step = 10 ** -d;
          const v = Number((above ? edge + step : edge - step).toFixed(d));
          if (v < 0) return;
          const m = printedMeasure(
            a,
            v,
            ucum,
            above ? { low: null, high: edge } : { low: edge, high: null },
          )!;
          expectEverywhere(
            a,
            m,
            above ? "above" : "below",
            `${v} ${ucum} against ${above ? "<" : ">"} ${edge}`,
          );
        }),
        RUNS,
      );
      // One-sided ranges ("< 200", "> 40") and no range at all.
      fc.assert(
        fc.property(printed(), printed(), fc.constantFrom("upper", "lower", "none"), (edge, v, side) => {
          const range =
            side === "upper"
              ? { low: null, high: edge }
              : side === "lower"
                ? { low: edge, high: null }
                : null;
          const m = printedMeasure(a, v, ucum, range)!;
          expectEverywhere(
            a,
            m,
            truth(v, range?.low ?? null, range?.high ?? null),
            `${v} ${ucum} (${side} ${edge})`,
          );
        }),
        RUNS,
      );
    },
  );

  it("refuses a unit the analyte is not reported in", () => {
    const hb = CATALOGUE.find((a) => a.loinc === "718-7")!;
    expect(printedMeasure(hb, 9.8, "mg/dL", { low: 12, high: 15.5 })).toBeNull();
  });

  it("the reports that were told wrong: T3 1.09 ng/mL, WBC 7,800 /cumm, platelets 2.1 lakhs/cumm are within", () => {
    const { rows } = recogniseLabRows([
      "T3 Total              1.09     ng/mL        0.80 - 2.00",
      "Total Leucocyte Count 7,800    /cumm        4,000 - 11,000",
      "Platelet Count        2.1      lakhs/cumm   1.5 - 4.5",
      "Fasting Blood Sugar   3.9      mmol/L       3.9 - 6.1",
      "Serum Creatinine      133      umol/L       62 - 106",
    ]);
    expect(
      rows.map((r) => [r.loinc, r.measure.value, r.measure.low, r.measure.high, r.measure.judgement]),
    ).toEqual([
      ["3053-6", 109, 80, 200, "within"],
      ["6690-2", 7.8, 4, 11, "within"],
      ["777-3", 210, 150, 450, "within"],
      ["1558-6", 70.2624, 70.2624, 109.8976, "within"],
      ["2160-0", 1.504496, 0.701344, 1.199072, "above"],
    ]);
    for (const r of rows) {
      const a = CATALOGUE.find((x) => x.loinc === r.loinc)!;
      expectEverywhere(a, r.measure, r.measure.judgement, r.printedName);
    }
  });
});

/*
 * Text results (decision 0098): a word is judged against the reference printed beside it only where
 * that is certain, by the same one measure, stored and read back, in the patient's words, the
 * expert's badge (the judgement) and the FHIR Observation (valueString, interpretation).
 */
const NONE_WORDS = [
  "Non Reactive",
  "Non-reactive",
  "NON REACTIVE",
  "Negative",
  "Nil",
  "Absent",
  "Not detected",
  "-ve",
];
const FOUND_WORDS = ["Reactive", "Positive", "Present", "Detected", "Trace", "+", "++", "+++", "2+", "+ve"];
const hbsag = CATALOGUE.find((a) => a.loinc === "5196-1")!;

/** A word as a lab might print it: a known one in any case and spacing, or anything at all. */
const anyWord = fc.oneof(
  fc.constantFrom(...NONE_WORDS, ...FOUND_WORDS, "Normal", "1:80", "B Positive", "O", "Weakly reactive"),
  fc.constantFrom(...NONE_WORDS, ...FOUND_WORDS).map((w) => ` ${w.toLowerCase()} `),
  fc.string({ minLength: 1, maxLength: MAX_TEXT }),
);

function textRow(text: string, reference: string | null): LabValueRow {
  return {
    ...rowOf(hbsag, numeric(printedMeasure(hbsag, 0, null, null)), reference),
    value: null,
    unit: "",
    valueText: text,
  };
}

/** Everything that reads a text result's measure says `expected`. */
function expectTextEverywhere(text: string, reference: string | null, expected: Judgement) {
  const m = wordMeasure(text, reference);
  if (!m) return; // blank or over the limit: never stored
  expect(m.kind).toBe("text");
  expect(m.judgement, `${text} / ${reference}`).toBe(expected);
  expect(m.flag).toBeNull();
  const stored = storedMeasure({
    value: null,
    unit: "",
    rangeLow: null,
    rangeHigh: null,
    valueText: m.text,
    rangeText: m.reference,
  });
  expect(stored.judgement).toBe(expected);
  expect(judgementWords(stored)).toBe(
    m.reference === null
      ? "labs.textNoReference"
      : ({ within: "labs.textWithin", outside: "labs.textOutside" }[expected as "within"] ??
          "labs.textUnknown"),
  );
  const o = observationOf(textRow(m.text, m.reference));
  expect(o.valueString).toBe(m.text);
  expect(o.valueQuantity).toBeUndefined();
  expect(o.interpretation?.[0]?.coding?.[0]?.code).toBe(FHIR[expected]);
  expect(o.referenceRange).toEqual(m.reference ? [{ text: m.reference }] : undefined);
}

describe("a text result against the reference printed beside it (decision 0098)", () => {
  it("a result equal to its reference is never said to be abnormal", () => {
    fc.assert(
      fc.property(anyWord, (w) => {
        const m = wordMeasure(w, w);
        if (!m) return;
        expect(["within", "unknown"]).toContain(m.judgement);
        expect(m.interpretation === "A" || m.interpretation === "H" || m.interpretation === "L").toBe(false);
        expectTextEverywhere(w, w, m.judgement);
      }),
      { numRuns: 300 },
    );
  });

  it("an unknown word is never judged, whatever its reference (and against an unknown reference nothing is)", () => {
    fc.assert(
      fc.property(anyWord, anyWord, (a, b) => {
        if (wordKind(a) !== null && wordKind(b) !== null) return;
        expectTextEverywhere(a, b, "unknown");
      }),
      { numRuns: 300 },
    );
  });

  it("something found against a printed 'nothing found' is outside; the same kind is within", () => {
    fc.assert(
      fc.property(fc.constantFrom(...FOUND_WORDS), fc.constantFrom(...NONE_WORDS), (found, none) => {
        expectTextEverywhere(found, none, "outside");
        expectTextEverywhere(none, none.toUpperCase(), "within");
        // The other way round is not certain (a reference that is itself a finding): no judgement.
        expectTextEverywhere(none, found, "unknown");
      }),
      { numRuns: 100 },
    );
  });

  it("no printed reference: no judgement; a word too long is no result", () => {
    expectTextEverywhere("Reactive", null, "unknown");
    expect(wordMeasure("R".repeat(MAX_TEXT + 1), "Non-reactive")).toBeNull();
    expect(wordMeasure("Reactive", "N".repeat(MAX_TEXT + 1))).toBeNull();
    expect(wordMeasure("   ", null)).toBeNull();
  });

  it("the reader keeps a word result and its printed reference as text, judged by the same measure", () => {
    const { rows } = recogniseLabRows([
      "SEROLOGY",
      "HBsAg                 Reactive        Non Reactive",
      "Anti HCV              Non Reactive    Non Reactive",
      "Rh Factor             Positive",
    ]);
    const by = Object.fromEntries(rows.map((r) => [r.analyte, r.measure]));
    expect(by["HBsAg"]).toMatchObject({
      kind: "text",
      text: "Reactive",
      reference: "Non Reactive",
      judgement: "outside",
      interpretation: "A",
    });
    expect(by["Anti-HCV"]).toMatchObject({ kind: "text", judgement: "within", interpretation: "N" });
    expect(by["Rh type"]).toMatchObject({
      kind: "text",
      text: "Positive",
      reference: null,
      judgement: "unknown",
    });
  });

  it("never reads a blood group from the page: its letters are lost, and 'Positive' alone is not one", () => {
    for (const line of ["Blood Group   B Positive", "ABO Group  O", "Blood Group & Rh  AB Positive"]) {
      const { rows } = recogniseLabRows(["SEROLOGY", line]);
      expect(
        rows.filter((r) => r.loinc === "883-9"),
        line,
      ).toEqual([]);
    }
  });
});

it("a range printed but giving no bounds (its part not chosen) is quoted and said not compared, never 'none printed'", () => {
  const m = storedMeasure({ value: 10.4, unit: "g/dL", rangeLow: null, rangeHigh: null });
  expect(judgementWords(m, "Male : 13.0 - 17.0 Female : 12.0 - 15.0")).toBe("labs.notCompared");
  // One part, left unjudged (its report's flag at odds with it): not compared, with no reason
  // about her sex or age that is not the reason.
  expect(judgementWords(m, "13.0 - 17.0")).toBe("labs.notComparedOne");
  expect(judgementWords(m, null)).toBe("labs.noRange");
  expect(judgementWords(m, "  ")).toBe("labs.noRange");
  const bounded = storedMeasure({ value: 10.4, unit: "g/dL", rangeLow: 12, rangeHigh: 15 });
  expect(judgementWords(bounded, "12 - 15")).toBe("labs.below");
});
